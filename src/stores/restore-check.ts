/**
 * Before rollback puts records back: is each record apply rewrote still as apply left it? Putting
 * back one that changed again since would lose that change without a word, so it is refused
 * (naming the record) unless forced; one that is gone cannot be put back at all. Rollback touches
 * only these records: what else changed in the store since apply stays as it is now.
 */
import { StoreError } from '../errors.js';
import type { RecordBackup } from './types.js';

/** A record as the store holds it now. */
export interface CurrentRecord {
  fingerprint: string;
  location: string;
}

/** Which records to write, which already hold their pre-apply bytes, and what a forced restore loses. */
export interface RestorePlan {
  write: RecordBackup[];
  unchanged: string[];
  lost: string[];
}

const label = (r: RecordBackup): string => (r.name !== undefined ? `${r.containerId} (${r.name})` : r.containerId);

/**
 * Refuses (`STORE_CORRUPT`) a backup whose bytes are not its own fingerprint, (`STORE_CHANGED`) a
 * record gone since apply and, unless `force`, one that is neither as apply left it nor as it was.
 */
export function planRestore(
  records: readonly RecordBackup[],
  now: ReadonlyMap<string, CurrentRecord>,
  fp: (b: Uint8Array) => string,
  force: boolean,
  where: string,
): RestorePlan {
  const out: RestorePlan = { write: [], unchanged: [], lost: [] };
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.containerId))
      throw new StoreError('STORE_CORRUPT', [], 'one backup per record', `${r.containerId} appears twice`, where);
    seen.add(r.containerId);
    const saved = fp(Buffer.concat(r.values));
    if (saved !== r.fingerprint)
      throw new StoreError(
        'STORE_CORRUPT',
        [],
        `the backup of record ${label(r)} with fingerprint ${r.fingerprint}`,
        `its bytes have ${saved}`,
        r.location,
      );
    const current = now.get(r.containerId);
    if (!current)
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `record ${label(r)}, rewritten by apply, in ${where}`,
        'it is gone since apply: it cannot be put back (nothing was written)',
        r.location,
      );
    if (current.fingerprint === r.fingerprint) out.unchanged.push(r.containerId);
    else if (current.fingerprint === r.after) out.write.push(r);
    else if (force) {
      out.lost.push(`the changes to container ${label(r)}'s record since apply`);
      out.write.push(r);
    } else
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `record ${label(r)} at ${current.location} as apply left it (fingerprint ${r.after}) or as it was (${r.fingerprint})`,
        `it changed again since apply (now ${current.fingerprint}); putting it back would lose that (--force to restore anyway); nothing was written`,
        current.location,
      );
  }
  return out;
}

/** Refuses (`STORE_CORRUPT`) unless every record read back after the restore holds its pre-apply bytes. */
export function checkRestored(records: readonly RecordBackup[], now: ReadonlyMap<string, CurrentRecord>): void {
  for (const r of records) {
    const current = now.get(r.containerId);
    if (current?.fingerprint !== r.fingerprint)
      throw new StoreError(
        'STORE_CORRUPT',
        [],
        `record ${label(r)} read back after the restore with its pre-apply fingerprint ${r.fingerprint}`,
        current ? `it has ${current.fingerprint}` : 'it is gone',
        current?.location ?? r.location,
      );
  }
}
