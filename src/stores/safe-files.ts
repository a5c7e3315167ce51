/**
 * Files and directories written so that nobody else's file is followed into or read: private
 * directories (0700, ours, never a symlink), new files created exclusively under a random name
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), synced, then renamed or linked into place within the same
 * directory. Node has no openat/renameat2, so a directory is checked by lstat before it is used.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errnoCode, ioError, StoreError } from '../errors.js';
import type { FileOperation } from '../bbolt/index.js';

/** O_CREAT|O_EXCL|O_NOFOLLOW|O_WRONLY: a new file, never one that exists and never through a symlink. */
const NEW_FILE = constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_WRONLY;

/** A file's permission bits and owner. */
interface FileOwnership {
  /** Permission bits (`st_mode & 0o777`: set-id and sticky bits are never written). */
  mode: number;
  /** Owner uid. */
  uid: number;
  /** Owner gid. */
  gid: number;
}

/** The effective uid of this process (0 where there is none, as on Windows). */
const myUid = (): number => process.geteuid?.() ?? 0;

/**
 * Refuses (`STORE_IO`) a directory that is a symlink, not a directory, not ours, or that others
 * can write or read (`private`: no group or other bits at all; else no group or other write).
 */
export function checkOwnDirectory(dir: string, what: string, options: { private?: boolean } = {}): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    throw ioError(e, `${what} ${dir}`, dir);
  }
  const refuse = (found: string): StoreError =>
    new StoreError(
      'STORE_IO',
      [],
      `${what} ${dir}: a real directory owned by uid ${myUid()}, mode ${options.private ? '0700' : 'without group or other write'}`,
      `${found}; nothing was written`,
      dir,
    );
  if (st.isSymbolicLink()) throw refuse('it is a symlink');
  if (!st.isDirectory()) throw refuse('it is not a directory');
  if (st.uid !== myUid()) throw refuse(`it belongs to uid ${st.uid}`);
  const mask = options.private ? 0o077 : 0o022;
  if ((st.mode & mask) !== 0) throw refuse(`its mode is 0${(st.mode & 0o777).toString(8)}`);
}

/**
 * Creates `dir` 0700 (its parent must exist). Refuses (`STORE_IO`) one that exists already, under
 * whatever name: a directory somebody else created first is never used.
 */
export function createPrivateDirectory(dir: string, what: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (errnoCode(e) === 'EEXIST')
      throw new StoreError(
        'STORE_IO',
        [],
        `${what} ${dir} that does not exist yet (each is created new, 0700)`,
        'it exists; nothing was written',
        dir,
      );
    throw ioError(e, `to create ${what} ${dir}`, dir);
  }
  // mkdir's mode is masked by the umask (never widened); say exactly 0700 and check it is ours.
  checkOwnDirectory(dir, what, { private: true });
}

/** Creates `dir` (and missing parents) 0700 when it does not exist; refuses one that is a symlink, not ours, or writable by others. */
export function ensureOwnDirectory(dir: string, what: string): void {
  try {
    mkdirSync(dir, { mode: 0o700, recursive: true });
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') throw ioError(e, `to create ${what} ${dir}`, dir);
  }
  checkOwnDirectory(dir, what);
}

/** A name in `dir` nobody can guess, for a file about to be created exclusively. */
function tempName(dir: string, final: string): string {
  return join(dir, `.${basename(final)}.${randomBytes(8).toString('hex')}.tmp`);
}

/** Writes `data` to a new file created exclusively at `path` (never followed, never an existing one), synced. */
function writeNew(
  path: string,
  data: Uint8Array,
  ownership: FileOwnership | undefined,
  trace?: (op: FileOperation) => void,
): void {
  const fd = openSync(path, NEW_FILE, 0o600);
  try {
    if (ownership) {
      // Owner first (chown clears set-id bits), then the mode without set-id or sticky bits.
      const st = fstatSync(fd);
      if (st.uid !== ownership.uid || st.gid !== ownership.gid) fchownSync(fd, ownership.uid, ownership.gid);
      fchmodSync(fd, ownership.mode & 0o777);
    }
    trace?.({ op: 'write', path, position: 0, bytes: data });
    for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done);
    trace?.({ op: 'sync', path });
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates `path` with `data`, 0600, and never replaces anything: a random temp name created
 * exclusively, synced, then hard-linked to `path` (which fails when `path` exists, even as a
 * dangling symlink) and the directory synced. Refuses (`STORE_IO`, EEXIST) an existing `path`.
 */
export function createFileExclusive(path: string, data: Uint8Array): void {
  const dir = dirname(path);
  const tmp = tempName(dir, path);
  try {
    writeNew(tmp, data, undefined);
    try {
      linkSync(tmp, path);
    } finally {
      unlinkSync(tmp);
    }
    syncDirectory(dir);
  } catch (e) {
    throw ioError(e, `to create ${path} (a new file, never one that exists)`, path);
  }
}

/**
 * Replaces the directory entry `path` with a new file holding `data` (0600 unless `ownership`):
 * random temp name created exclusively beside it, fsync, rename, fsync of the directory. A symlink
 * at `path` is replaced, never followed. `trace` (crash-point tests) sees each step.
 */
export function replaceEntryAtomic(
  path: string,
  data: Uint8Array,
  ownership?: FileOwnership,
  trace?: (op: FileOperation) => void,
): void {
  const dir = dirname(path);
  const tmp = tempName(dir, path);
  try {
    try {
      writeNew(tmp, data, ownership, trace);
      trace?.({ op: 'rename', from: tmp, to: path });
      renameSync(tmp, path);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // Never created, or already renamed.
      }
      throw e;
    }
    trace?.({ op: 'syncDir', path: dir });
    syncDirectory(dir);
  } catch (e) {
    throw ioError(e, `to replace ${path}`, path);
  }
}

/** The mode (without set-id and sticky bits) and owner of `path`'s target, or `undefined` when it does not exist. */
function ownershipOf(path: string): FileOwnership | undefined {
  try {
    const st = lstatSync(realpathSync(path));
    return { mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw ioError(e, `to read the mode and owner of ${path}`, path);
  }
}

/**
 * Rewrites a store's file: a symlinked file is written through to its target (resolved once),
 * never replaced by a regular file; the target is replaced atomically next to itself, keeping its
 * mode (without set-id bits) and owner unless `ownership` says otherwise.
 */
export function rewriteStoreFile(
  path: string,
  data: Uint8Array,
  trace?: (op: FileOperation) => void,
  ownership?: FileOwnership,
): void {
  let target: string;
  try {
    target = realpathSync(path);
  } catch (e) {
    throw ioError(e, `to resolve ${path}`, path);
  }
  replaceEntryAtomic(target, data, ownership ?? ownershipOf(target), trace);
}
