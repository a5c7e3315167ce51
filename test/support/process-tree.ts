/**
 * Tearing down what a test's own containerd left behind, without touching anyone else's: the shims
 * it started carry `-address SOCK` on their command line (the socket is in the test's temporary
 * directory), so their children and then they are killed by PID; then what is still mounted under
 * the temporary directory is unmounted (sandboxes mount shm, the kubelet bind-mounts its root).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

function pids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return []; // it exited meanwhile
  }
}

function parentOf(pid: number): number | undefined {
  try {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** PIDs of the shims serving the containerd at `socket`. */
function shimsOf(socket: string): number[] {
  return pids().filter((pid) => {
    const args = cmdline(pid);
    const at = args.indexOf('-address');
    return at >= 0 && args[at + 1] === socket && (args[0] ?? '').includes('containerd-shim');
  });
}

/** Every descendant of `roots` (not the roots themselves), deepest last. */
function descendantsOf(roots: readonly number[]): number[] {
  const all = pids().map((pid) => [pid, parentOf(pid)] as const);
  const out: number[] = [];
  let frontier = new Set(roots);
  while (frontier.size) {
    const next = all.filter(([, ppid]) => ppid !== undefined && frontier.has(ppid)).map(([pid]) => pid);
    out.push(...next);
    frontier = new Set(next);
  }
  return out;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILLs the processes the shims of `socket` run (containers), then the shims themselves. */
export async function killShimsOf(socket: string): Promise<void> {
  const shims = shimsOf(socket);
  for (const pid of descendantsOf(shims).reverse()) kill(pid);
  await new Promise((r) => setTimeout(r, 200)); // let the shims reap them
  for (const pid of shims) kill(pid);
}

/** Lazily unmounts every mount point at or under `dir`, deepest first. */
export function unmountUnder(dir: string): void {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined && (p === dir || p.startsWith(`${dir}/`)))
    .map((p) => p.replace(/\\040/g, ' '))
    .sort((a, b) => b.length - a.length);
  for (const p of points) spawnSync('umount', ['-l', p]);
}
