/**
 * Before rollback puts a backup back: is the store still as apply left it? Restoring a store that
 * changed since (a container recorded, removed or changed) would lose that change without a word,
 * so it is refused unless forced, and a forced restore says what it lost.
 */
import { existsSync } from 'node:fs';
import { StoreError } from '../errors.js';
import { fingerprintFile } from './fingerprint.js';
import { diffRecords, printOf } from './store-state.js';
import type { BackupEntry, RestoreOptions, RestoreReport, StoredContainer } from './types.js';

/**
 * What restoring `backups` would lose (refused unless `options.force`), and the files that changed
 * outside the container records (reported, not refused). `current` reads the store's records now.
 */
export async function checkRestore(
  backups: readonly BackupEntry[],
  current: () => Promise<StoredContainer[]>,
  options: RestoreOptions = {},
): Promise<Omit<RestoreReport, 'restored'>> {
  const lost: string[] = [];
  const notes: string[] = [];
  // Files as apply left them, or not yet written (a crash during apply): putting them back loses nothing.
  const settled = new Set<string>();
  for (const b of backups) {
    if (b.after === undefined) continue;
    const now = existsSync(b.original) ? await fingerprintFile(b.original) : undefined;
    if (now === b.fingerprint || now === b.after) settled.add(b.original);
    else if (now === undefined) lost.push(`the removal of ${b.original} since apply`);
    else
      notes.push(
        `${b.original} changed since apply outside the container records; it is put back as it was before apply`,
      );
  }
  if (options.records === undefined) {
    lost.push(
      'whatever changed since apply: the manifest records no post-apply state (written by an older kubelet-hash), so it cannot be told',
    );
  } else {
    const now = await current();
    // A record of several files (CRI-O's two copies) may be caught between them by a crash: each
    // file old or new is no change of its own.
    const between = new Set(
      now.filter((c) => c.location.split(' + ').every((f) => settled.has(f))).map((c) => c.containerId),
    );
    const d = diffRecords(
      options.records,
      now.map(printOf),
      (e, f) => between.has(e.containerId) || f === e.fingerprint || f === e.after,
    );
    for (const id of d.added) lost.push(`container ${id}, recorded since apply`);
    for (const id of d.removed) lost.push(`the removal of container ${id} since apply (its record comes back)`);
    for (const id of d.changed) lost.push(`the changes to container ${id}'s record since apply`);
  }
  if (lost.length > 0 && options.force !== true) {
    throw new StoreError(
      'STORE_CHANGED',
      [],
      'the store as apply left it (rollback puts the pre-apply files back and would lose what changed since; --force to restore anyway)',
      `it would lose ${lost.length}: ${lost.slice(0, 10).join('; ')}${lost.length > 10 ? '; …' : ''}`,
      backups.map((b) => b.original).join(' + '),
    );
  }
  return { lost, ...(notes.length > 0 ? { notes } : {}) };
}
