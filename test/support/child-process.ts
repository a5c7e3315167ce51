/** Stopping a daemon a test started itself: only that process, by its PID. */
import type { ChildProcess } from 'node:child_process';

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
