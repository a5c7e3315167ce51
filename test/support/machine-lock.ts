/**
 * A lock held by one test process at a time on this machine, for real systems that cannot share it.
 * Two kubelets on one machine cannot: a 1.20 kubelet writes container logs under the fixed
 * /var/log/pods and its container GC removes there, every minute, the directory of every pod it does
 * not know — another kubelet's pods, whose next container then fails to start. (Network, cgroups and
 * every other directory are the test's own; see kubelet-daemon.ts and cluster.ts.)
 *
 * The lock is a directory (mkdir is atomic) holding the owner's PID; one whose owner has died is
 * taken over, so a killed run never blocks the next.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const ownerOf = (dir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // not written yet, or already released
  }
};

/** Waits (polling once a second, until `deadline`) for the lock `name`; returns its release. */
export async function machineLock(name: string, deadline: number): Promise<() => void> {
  const dir = join(tmpdir(), `kubelet-hash-${name}.lock`);
  let ownerless = 0;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => {
        if (ownerOf(dir) === process.pid) rmSync(dir, { recursive: true, force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = ownerOf(dir);
    // A directory without a PID for a few seconds is one whose owner died between mkdir and write.
    ownerless = owner === undefined ? ownerless + 1 : 0;
    if ((owner !== undefined && !alive(owner)) || ownerless > 5) {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`machine lock ${dir} still held by PID ${String(owner)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
