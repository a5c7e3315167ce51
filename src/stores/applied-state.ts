/**
 * Is the store as the plan read it, or as applying the plan left it? A second `apply` of the same
 * plan finds every rewritten record changed: it is "already applied" when each of those records is
 * exactly the planned one with its hash rewritten (undoing the rewrite gives back the planned
 * fingerprint) and every other record is as planned. Anything else is still a refusal.
 */
import { StoreError } from '../errors.js';
import type { HashChange } from '../runtime-records/index.js';
import { describeDifference, diffRecords, noDifference, printOf } from './store-state.js';
import type { RecordPrint, StoreRewrite, StoredContainer } from './types.js';

/** The change that undoes `change`. */
export function reversedChange(change: HashChange): HashChange {
  return { from: { ...change.to }, to: { ...change.from } };
}

/**
 * `planned` when the store's records are the planned ones, `applied` when they are what these
 * rewrites make of them; otherwise refuses (`STORE_CHANGED`, listing the differences, and how many
 * rewrites were found done when some but not all were: an interrupted apply). `rewritten(r)` says
 * whether the record of `r` is the planned record with `r` applied; it is asked only when the
 * store is not as planned.
 */
export function appliedState(
  planned: readonly RecordPrint[],
  now: readonly StoredContainer[],
  rewrites: readonly StoreRewrite[],
  rewritten: (r: StoreRewrite) => boolean,
  where: string,
): 'planned' | 'applied' {
  const prints = now.map(printOf);
  const asPlanned = diffRecords(planned, prints);
  if (noDifference(asPlanned)) return 'planned';
  const done = new Set(rewrites.filter((r) => rewritten(r)).map((r) => r.containerId));
  if (rewrites.length > 0 && done.size === rewrites.length) {
    const asApplied = diffRecords(planned, prints, (e, f) => e.fingerprint === f || done.has(e.containerId));
    if (noDifference(asApplied)) return 'applied';
    throw changed(where, describeDifference(asApplied), 'every rewrite of the plan is done, but');
  }
  const partly =
    done.size > 0
      ? `${done.size} of the plan's ${rewrites.length} rewrites are already done (an interrupted apply? roll back, or make a new plan): `
      : '';
  throw changed(where, `${partly}${describeDifference(asPlanned)}`);
}

function changed(where: string, found: string, prefix?: string): StoreError {
  return new StoreError(
    'STORE_CHANGED',
    [],
    `the records of ${where} exactly as the plan read them, or exactly as applying it leaves them (make a new plan)`,
    prefix !== undefined ? `${prefix} ${found}` : found,
    where,
  );
}
