/**
 * A cgroup of a test's own at the top of every cgroup hierarchy of the machine (`/kh-<id>` under each
 * v1 controller's mount, and under the unified one): a kubelet given it as `cgroupRoot` with pod
 * cgroups on (cgroupsPerQOS) makes its kubepods tree there, apart from the machine's and any other
 * test's. Removed deepest first once no process is left in it.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** Mount points of the cgroup filesystems (v1 controllers and the unified hierarchy). */
function hierarchies(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' - '))
    .filter(([, fs]) => fs !== undefined && /^cgroup2? /.test(fs))
    .map(([mount]) => mount!.split(' ')[4]!);
}

/** Every directory under `dir`, deepest first. */
function treeOf(dir: string): string[] {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // removed meanwhile (the kubelet or runtime cleaning up its pod cgroups)
  }
  for (const e of entries) if (e.isDirectory()) out.push(...treeOf(join(dir, e.name)));
  out.push(dir);
  return out;
}

export class CgroupRoot {
  private made: string[] = [];

  /** `name` is the cgroup's name (`kh-<id>`); the kubelet's cgroupRoot is `/<name>`. */
  constructor(readonly name: string) {}

  /** Creates the cgroup in every hierarchy; a cpuset cgroup gets its parent's CPUs and memory nodes. */
  create(): void {
    for (const mount of hierarchies()) {
      const dir = join(mount, this.name);
      mkdirSync(dir);
      this.made.push(dir);
      for (const file of ['cpuset.cpus', 'cpuset.mems'])
        try {
          writeFileSync(join(dir, file), readFileSync(join(mount, file), 'utf8'));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e; // not the cpuset hierarchy
        }
    }
  }

  /** Removes the cgroup and everything the kubelet and runc made under it (their processes gone). */
  remove(): void {
    for (const dir of this.made.splice(0))
      for (const d of treeOf(dir))
        try {
          rmdirSync(d);
        } catch {
          // a process still in it (or already removed): left for the machine's own cleanup
        }
  }
}
