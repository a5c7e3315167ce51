/** File operations the stores share: durable atomic replace, backups, rollback, runtime process checks. */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StoreError } from '../errors.js';
import type { FileOperation } from '../bbolt/index.js';
import { fingerprintFile } from './fingerprint.js';
import type { BackupEntry } from './types.js';

function ioError(e: unknown, what: string): StoreError {
  return new StoreError('STORE_IO', [], what, (e as { code?: string }).code ?? String(e));
}

function fsyncPath(path: string, flags = 'r'): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `data`: temp file in the same directory, fsync, rename, fsync the directory.
 * `trace` (crash-point tests) sees those operations in order.
 */
export function writeFileAtomic(path: string, data: Uint8Array, trace?: (op: FileOperation) => void): void {
  const tmp = join(dirname(path), `.${basename(path)}.kubelet-hash-${process.pid}.tmp`);
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
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
    throw ioError(e, `to replace ${path}`);
  }
}

/** A backup path for `original` inside `dir` that keeps distinct originals apart. */
function backupName(dir: string, original: string): string {
  return join(dir, original.replace(/^\/+/, '').replace(/\//g, '__'));
}

/** Copies each file into `dir` (fsynced) and records its fingerprint. */
export async function backupFiles(dir: string, originals: readonly string[]): Promise<BackupEntry[]> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw ioError(e, `a backup directory ${dir}`);
  }
  const out: BackupEntry[] = [];
  for (const original of originals) {
    const backup = backupName(dir, original);
    try {
      copyFileSync(original, backup);
      fsyncPath(backup);
    } catch (e) {
      throw ioError(e, `to back up ${original} to ${backup}`);
    }
    out.push({ original, backup, fingerprint: await fingerprintFile(backup) });
  }
  try {
    fsyncPath(dir);
  } catch (e) {
    throw ioError(e, `to sync ${dir}`);
  }
  return out;
}

/**
 * Puts backups back (atomic replace each), after checking every backup still has its recorded
 * fingerprint; returns the entries restored. Refuses, restoring nothing, when a backup changed.
 */
export async function restoreBackups(entries: readonly BackupEntry[]): Promise<BackupEntry[]> {
  for (const e of entries) {
    if (!existsSync(e.backup)) throw new StoreError('STORE_IO', [], `the backup ${e.backup}`, 'it is missing');
    const fp = await fingerprintFile(e.backup);
    if (fp !== e.fingerprint)
      throw new StoreError('STORE_CHANGED', [], `backup ${e.backup} with fingerprint ${e.fingerprint}`, `found ${fp}`);
  }
  for (const e of entries) writeFileAtomic(e.original, readFileSync(e.backup));
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

/**
 * Pids of running `comm` daemons that may be using the store at `root`: those whose root (from
 * their arguments via `rootOf`) is `root`, and those whose root cannot be told (counted in, to be safe).
 */
export function daemonsUsing(comm: string, root: string, rootOf: (args: string[]) => string | undefined): number[] {
  const want = resolve(root);
  return runningProcesses([comm]).filter((pid) => {
    const args = argsOf(pid);
    const theirs = args ? rootOf(args) : undefined;
    return theirs === undefined || resolve(theirs) === want;
  });
}
