/**
 * The file stores' write with the runtime kept out (apply's, and rollback's): CRI-O and dockerd hold
 * no lock this package can take, so the check that the daemon is stopped is made before the first
 * file is replaced, again at least every {@link RECHECK_MS} during the writes, right before the last
 * file is replaced, and after it. A daemon seen at any of these points is a refusal, and every file
 * already replaced is put back as it was read (the daemon may be reading them: the old bytes are
 * what it expects).
 */
import { StoreError } from '../errors.js';
import type { FileOperation } from '../bbolt/index.js';
import { rewriteStoreFile } from './safe-files.js';

/** During a long write, the daemon check runs again after this many milliseconds. */
const RECHECK_MS = 250;

/** Puts back every file of `written` (newest first) as `originals` holds it; says what could not be. */
function undo(written: readonly string[], originals: ReadonlyMap<string, Buffer>, who: string): string {
  const failed: string[] = [];
  for (const file of [...written].reverse()) {
    const bytes = originals.get(file);
    try {
      if (bytes === undefined) throw new Error('no copy');
      rewriteStoreFile(file, bytes);
    } catch (e) {
      failed.push(`${file} (${e instanceof StoreError ? (e.detail ?? e.message) : String(e)})`);
    }
  }
  return failed.length === 0
    ? `${who} put back the ${written.length} files it had replaced`
    : `${who} could not put back ${failed.join(', ')}: ${who === 'apply' ? 'restore them from the backup (rollback)' : 'run rollback again once the runtime is stopped'}`;
}

/**
 * Replaces each file of `writes` (atomically, in order, a symlinked file written through to its
 * target) while `checkStopped` finds the runtime stopped; refuses (`RUNTIME_RUNNING`) as soon as it
 * does not, after undoing the files replaced. `what` words the messages: the records are `verb` by `who`.
 */
export function writeStopped(
  writes: readonly { file: string; data: Uint8Array }[],
  originals: ReadonlyMap<string, Buffer>,
  checkStopped: (when: string) => void,
  trace?: (op: FileOperation) => void,
  what: { verb: string; who: string } = { verb: 'rewritten', who: 'apply' },
): void {
  const written: string[] = [];
  const check = (when: string): void => {
    try {
      checkStopped(when);
    } catch (e) {
      if (!(e instanceof StoreError) || e.code !== 'RUNTIME_RUNNING' || written.length === 0) throw e;
      throw new StoreError(
        e.code,
        e.path,
        e.expected,
        `${e.detail ?? ''}; ${undo(written, originals, what.who)}`,
        e.location,
      );
    }
  };
  check(`${what.verb} (before the first file is replaced)`);
  let checked = performance.now();
  writes.forEach((w, i) => {
    const last = i === writes.length - 1;
    if (last || performance.now() - checked > RECHECK_MS) {
      check(last ? `${what.verb} (before the last file is replaced)` : what.verb);
      checked = performance.now();
    }
    rewriteStoreFile(w.file, w.data, trace);
    written.push(w.file);
  });
  check(`${what.verb} (after the last file was replaced)`);
}
