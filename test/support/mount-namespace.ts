/**
 * A mount namespace of a test's own, in which its containerd and its kubelet run, with private
 * /var/log/pods and /var/log/containers (bind mounts of directories under the test's directory).
 * A kubelet writes container logs under that fixed path (and the CRI runtime opens each log file at
 * the path the kubelet gives it, so both must see the same directory), and its container GC removes
 * there every pod directory it does not know: on a shared /var/log/pods, two kubelets of one machine
 * remove each other's pods' logs, whose next container then fails to start. In namespaces of their
 * own they run side by side.
 *
 * The namespace is kept by a bind mount of its nsfs file (as `ip netns` keeps network namespaces),
 * and entered with nsenter; mounts made inside (the kubelet's volumes, containerd's sandboxes) stay
 * inside (propagation slave: nothing goes back to the machine) and go with the namespace once the
 * last process in it has exited and the file is unmounted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The fixed directories a kubelet writes container logs into, made private to each namespace. */
const LOG_DIRS = ['/var/log/pods', '/var/log/containers'];

export class LogMountNamespace {
  /** The nsfs file that keeps the namespace (`nsenter --mount=<file>`). */
  readonly file: string;
  private readonly holder: string;
  private made = false;

  /** A namespace kept under `dir` (a directory of the test's own). */
  constructor(readonly dir: string) {
    this.holder = join(dir, 'mntns');
    this.file = join(this.holder, 'mnt');
  }

  /** The namespace's private copy of `/var/log/pods` (or `/var/log/containers`), as the machine sees it. */
  logDir(path: string): string {
    return join(this.dir, 'logs', path.slice(1).replaceAll('/', '-'));
  }

  /** Makes the namespace and mounts the private log directories inside it. */
  create(): void {
    mkdirSync(this.holder, { recursive: true });
    // A namespace file can only be bind-mounted on a mount that does not propagate: the holder's own.
    execFileSync('mount', ['--bind', this.holder, this.holder]);
    this.made = true;
    execFileSync('mount', ['--make-private', this.holder]);
    writeFileSync(this.file, '', { flag: 'wx', mode: 0o600 });
    execFileSync('unshare', [`--mount=${this.file}`, '--propagation', 'slave', 'true']);
    for (const path of LOG_DIRS) {
      mkdirSync(path, { recursive: true }); // the mount point, on the machine
      mkdirSync(this.logDir(path), { recursive: true, mode: 0o755 });
      execFileSync('nsenter', [`--mount=${this.file}`, '--', 'mount', '--bind', this.logDir(path), path]);
    }
  }

  /** Releases the namespace (it goes once no process is left in it). Safe to call when `create` failed. */
  remove(): void {
    if (!this.made) return;
    spawnSync('umount', [this.file]);
    spawnSync('umount', [this.holder]);
    this.made = false;
  }
}
