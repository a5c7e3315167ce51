/**
 * The running kubelet's command line from /proc (what its service started it with: the flags the
 * target kubelet will get too), and the node's cgroup hierarchy. Read-only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The kubelet process: its PID and its arguments after the binary. */
export interface KubeletProcess {
  pid: number;
  args: string[];
}

/** The processes named `kubelet` under `proc`, lowest PID first (a node runs one). */
export function kubeletProcesses(proc = '/proc'): KubeletProcess[] {
  if (!existsSync(proc)) return [];
  const out: KubeletProcess[] = [];
  for (const pid of readdirSync(proc).filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(join(proc, pid, 'comm'), 'utf8').trim() !== 'kubelet') continue;
      const argv = readFileSync(join(proc, pid, 'cmdline'), 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      out.push({ pid: Number(pid), args: argv.slice(1) });
    } catch {
      // gone while we looked
    }
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** `v2` when /sys/fs/cgroup is the unified hierarchy (it has cgroup.controllers), `v1` when it is mounted without; unknown otherwise. */
export function cgroupVersion(fsRoot = '/'): 'v1' | 'v2' | undefined {
  const dir = join(fsRoot, 'sys/fs/cgroup');
  if (!existsSync(dir)) return undefined;
  if (existsSync(join(dir, 'cgroup.controllers'))) return 'v2';
  return readdirSync(dir).length > 0 ? 'v1' : undefined;
}
