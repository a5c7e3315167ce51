/** Stopping a daemon a test started itself: only that process, by its PID. */
import { spawn, type ChildProcess } from 'node:child_process';

/** SIGTERM to `child`, SIGKILL after `timeoutMs`; resolves once it has exited (at once if it already has). */
export async function terminateChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** A daemon process a test spawned: the tail of its stderr, and why it exited if it has. */
export class SpawnedDaemon {
  readonly child: ChildProcess;
  log = '';
  exited: string | undefined;

  constructor(
    readonly name: string,
    args: readonly string[],
    logLimit = 1_000_000,
    env?: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(name, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(env ? { env } : {}) });
    this.child.once('exit', (code, signal) => (this.exited = `exited with ${code ?? signal}`));
    this.child.stderr?.on('data', (d: Buffer) => (this.log = (this.log + d.toString()).slice(-logLimit)));
  }

  /**
   * Polls `ready` (a throw counts as not ready) until it holds; throws with the end of the log when the
   * daemon exits first or `deadline` (a Date.now() value) passes.
   */
  async waitFor(what: string, ready: () => boolean | Promise<boolean>, deadline: number, everyMs = 100): Promise<void> {
    for (;;) {
      let why = '';
      try {
        if (await ready()) return;
      } catch (e) {
        why = ` (${String(e)})`;
      }
      if (this.exited) throw new Error(`${this.name} ${this.exited} before ${what}:\n${this.log.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`${this.name}: no ${what} in time${why}:\n${this.log.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}

/**
 * The command line that runs `bin args` in the network namespace `netns` and the mount namespace
 * `mountns` (each when given; mount-namespace.ts): nsenter enters them and execs `bin`, so the PID we
 * get is the daemon's. Not `ip netns exec`, which also mounts a fresh /sys and hides the cgroup
 * hierarchy the kubelet and runc need.
 */
export function inNetns(
  netns: string | undefined,
  bin: string,
  args: readonly string[],
  mountns?: string,
): [string, string[]] {
  const enter = [
    ...(netns === undefined ? [] : [`--net=${netns}`]),
    ...(mountns === undefined ? [] : [`--mount=${mountns}`]),
  ];
  return enter.length === 0 ? [bin, [...args]] : ['nsenter', [...enter, '--', bin, ...args]];
}
