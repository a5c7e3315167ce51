/** File operations the stores share: durable atomic replace, backups, rollback, runtime process checks. */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoCode, ioError, StoreError } from '../errors.js';
import type { FileOperation } from '../bbolt/index.js';
import { fingerprintFile } from './fingerprint.js';
import type { BackupEntry } from './types.js';

function fsyncPath(path: string, flags = 'r'): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A file's permission bits and owner. */
export interface FileOwnership {
  /** Permission bits (`st_mode & 0o7777`). */
  mode: number;
  /** Owner uid. */
  uid: number;
  /** Owner gid. */
  gid: number;
}

/** The mode and owner of `path`, or `undefined` when it does not exist. */
export function ownershipOf(path: string): FileOwnership | undefined {
  try {
    const st = statSync(path);
    return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw ioError(e, `to read the mode and owner of ${path}`, path);
  }
}

/** Gives the open file `fd` the owner and mode (owner first: chown clears set-id bits). */
function setOwnership(fd: number, want: FileOwnership): void {
  const st = fstatSync(fd);
  if (st.uid !== want.uid || st.gid !== want.gid) fchownSync(fd, want.uid, want.gid);
  if ((st.mode & 0o7777) !== want.mode || st.uid !== want.uid || st.gid !== want.gid) fchmodSync(fd, want.mode);
}

/**
 * Replaces `path` with `data`: temp file in the same directory, fsync, rename, fsync the directory.
 * The new file has `ownership` (default: the mode and owner of the file it replaces; a new file
 * gets 0600). `trace` (crash-point tests) sees those operations in order.
 */
export function writeFileAtomic(
  path: string,
  data: Uint8Array,
  trace?: (op: FileOperation) => void,
  ownership?: FileOwnership,
): void {
  const tmp = join(dirname(path), `.${basename(path)}.kubelet-hash-${process.pid}.tmp`);
  const keep = ownership ?? ownershipOf(path);
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      if (keep) setOwnership(fd, keep);
      trace?.({ op: 'write', path: tmp, position: 0, bytes: data });
      for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done);
      trace?.({ op: 'sync', path: tmp });
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    trace?.({ op: 'rename', from: tmp, to: path });
    renameSync(tmp, path);
    trace?.({ op: 'syncDir', path: dirname(path) });
    fsyncPath(dirname(path));
  } catch (e) {
    throw ioError(e, `to replace ${path}`, path);
  }
}

/** A backup path for `original` inside `dir` that keeps distinct originals apart. */
function backupName(dir: string, original: string): string {
  return join(dir, original.replace(/^\/+/, '').replace(/\//g, '__'));
}

/** Copies each file into `dir` (fsynced) and records its fingerprint, mode and owner. */
export async function backupFiles(dir: string, originals: readonly string[]): Promise<BackupEntry[]> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw ioError(e, `a backup directory ${dir}`, dir);
  }
  const out: BackupEntry[] = [];
  for (const original of originals) {
    const backup = backupName(dir, original);
    try {
      copyFileSync(original, backup);
      fsyncPath(backup);
    } catch (e) {
      throw ioError(e, `to back up ${original} to ${backup}`, original);
    }
    const own = ownershipOf(original);
    out.push({ original, backup, fingerprint: await fingerprintFile(backup), ...own });
  }
  try {
    fsyncPath(dir);
  } catch (e) {
    throw ioError(e, `to sync ${dir}`, dir);
  }
  return out;
}

/**
 * Puts backups back (atomic replace each, with the mode and owner the original had when it was
 * backed up), after checking every backup still has its recorded fingerprint; returns the entries
 * restored. Refuses, restoring nothing, when a backup changed.
 */
export async function restoreBackups(entries: readonly BackupEntry[]): Promise<BackupEntry[]> {
  for (const e of entries) {
    if (!existsSync(e.backup))
      throw new StoreError('STORE_IO', [], `the backup ${e.backup}`, 'it is missing', e.backup);
    const fp = await fingerprintFile(e.backup);
    if (fp !== e.fingerprint)
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `backup ${e.backup} with fingerprint ${e.fingerprint}`,
        `found ${fp}`,
        e.backup,
      );
  }
  for (const e of entries) {
    const own =
      e.mode !== undefined && e.uid !== undefined && e.gid !== undefined
        ? { mode: e.mode, uid: e.uid, gid: e.gid }
        : undefined;
    writeFileAtomic(e.original, readFileSync(e.backup), undefined, own);
  }
  return [...entries];
}

/** Pids of running processes whose command name (`/proc/PID/comm`) is one of `names`. */
export function runningProcesses(names: readonly string[]): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const pid of pids) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (names.includes(comm)) out.push(Number(pid));
    } catch {
      // The process exited while we looked.
    }
  }
  return out;
}

/** A process's arguments (`/proc/PID/cmdline`), or `undefined` when it cannot be read. */
function argsOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '')
      .slice(1);
  } catch {
    return undefined;
  }
}

/** The value of `--flag VALUE` or `--flag=VALUE` among `args`. */
export function flagValue(args: readonly string[], flags: readonly string[]): string | undefined {
  for (const [i, a] of args.entries()) {
    for (const f of flags) {
      if (a === f) return args[i + 1];
      if (a.startsWith(`${f}=`)) return a.slice(f.length + 1);
    }
  }
  return undefined;
}

/** A directory's identity: device and inode (a symlink, bind mount or `--fs-root` prefix names the same one). */
function identityOf(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * `path` as process `pid` names it, seen from here: through `/proc/PID/root` (its root directory,
 * whatever its mount namespace or chroot), relative paths from its working directory.
 */
export function theirPath(pid: number, path: string): string {
  return path.startsWith('/') ? `/proc/${pid}/root${path}` : `/proc/${pid}/cwd/${path}`;
}

/**
 * Is the directory process `pid` names `theirs` the directory `root`? Decided by device and inode:
 * as the process sees it (`/proc/PID/root`), else as this process sees that path; when neither can
 * be read, a `root` that ends with `theirs` (a node mounted at `--fs-root`) counts as the same.
 */
function sameDirectory(pid: number, theirs: string, root: string, rootId: string | undefined): boolean {
  if (rootId !== undefined) {
    const seen = identityOf(theirPath(pid, theirs)) ?? identityOf(resolve(theirs));
    if (seen !== undefined) return seen === rootId;
  }
  const want = resolve(root);
  const their = resolve(theirs);
  return want === their || want.endsWith(their);
}

/**
 * Pids of running `comm` daemons that may be using the store at `root`: those whose root (from
 * their arguments via `rootOf`) is the same directory as `root` (device and inode, so a symlink or
 * a pod's `/host` prefix does not hide it), and those whose root cannot be told (counted in, to be safe).
 */
export function daemonsUsing(
  comm: string,
  root: string,
  rootOf: (args: string[], pid: number) => string | undefined,
): number[] {
  const rootId = identityOf(root);
  return runningProcesses([comm]).filter((pid) => {
    const args = argsOf(pid);
    const theirs = args ? rootOf(args, pid) : undefined;
    return theirs === undefined || sameDirectory(pid, theirs, root, rootId);
  });
}
