/**
 * Can apply write what it is about to write? Checked before the backup is made and in a dry run.
 * A mode check proves nothing for root (root writes to 0444 files), so the check does what the
 * write will do, without changing anything: a file is opened for writing without truncation (the
 * kernel refuses an immutable or append-only file, and any file of a read-only mount), and a
 * directory that gets new files gets a probe file created, renamed and removed (an immutable,
 * append-only or read-only directory refuses one of those).
 */
import { closeSync, existsSync, openSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode, StoreError } from '../errors.js';

const HINTS: Record<string, string> = {
  EROFS: 'read-only file system (mounted ro)',
  EPERM: 'operation not permitted (an immutable or append-only attribute? see lsattr)',
  EACCES: 'permission denied',
};

function refusal(e: unknown, what: string, file: string): StoreError {
  const code = errnoCode(e) ?? String(e);
  return new StoreError('STORE_IO', [], what, `${code}: ${HINTS[code] ?? 'cannot write'}; nothing was written`, file);
}

/** Opens `file` for writing, without truncating or changing it. */
function checkFile(file: string, why: string): void {
  try {
    closeSync(openSync(file, 'r+'));
  } catch (e) {
    throw refusal(e, `${file} writable (${why})`, file);
  }
}

/** Creates, renames and removes a probe file in `dir`. */
function checkDirectory(dir: string, why: string): void {
  const probe = join(dir, `.kubelet-hash-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    try {
      renameSync(probe, `${probe}.renamed`);
      unlinkSync(`${probe}.renamed`);
    } catch (e) {
      if (existsSync(probe)) unlinkSync(probe);
      throw e;
    }
  } catch (e) {
    throw refusal(e, `a writable directory ${dir} (${why})`, dir);
  }
}

/** The directory itself when it exists, else its nearest existing ancestor (where mkdir will write). */
function existingAncestor(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/**
 * Refuses (StoreError `STORE_IO`, naming the path and why) unless every file apply writes in place
 * (`inPlace`: meta.db), every file it replaces (`replaced`: temp file and rename in its directory)
 * and the backup directory can be written.
 */
export function checkWritable(targets: {
  inPlace?: readonly string[];
  replaced?: readonly string[];
  backupDir?: string;
}): void {
  for (const f of targets.inPlace ?? []) checkFile(f, 'apply writes it in place');
  const dirs = new Set<string>();
  for (const f of targets.replaced ?? []) {
    checkFile(f, 'apply replaces it');
    dirs.add(dirname(f));
  }
  for (const d of [...dirs].sort()) checkDirectory(d, 'apply replaces a file there');
  if (targets.backupDir !== undefined) checkDirectory(existingAncestor(targets.backupDir), 'the backups go there');
}
