/**
 * A pod still held by scheduling gates has not been bound, so its scheduling directives may be
 * narrowed before it is (KEP-3838): nodeSelector entries added, the required node affinity set
 * or given more match requirements. Restates ValidatePodUpdate's gated-pod branch
 * (validateNodeSelectorMutation, validateNodeAffinityMutation) as of v1.29.6–v1.37.2.
 */
import { isPlainObject } from '../decode/input.js';
import { deepEqual } from '../go/value-diff.js';
import { isAbsent } from './template-diff.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A refusal of a gated pod's directive change: its own (with the printed path) or the catch-all at `spec`. */
export type GatedRefusal = { catchAll: true } | { catchAll: false; reportedField: string; reason: string };

const TERMS = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';

/** null when the nodeSelector and affinity changes of a gated pod only narrow them. */
export function gatedDirectivesRefusal(oldSpec: Obj, newSpec: Obj): GatedRefusal | null {
  const oldSel = obj(oldSpec['nodeSelector']);
  const newSel = obj(newSpec['nodeSelector']);
  for (const [k, v] of Object.entries(oldSel)) {
    if (!(k in newSel) || newSel[k] !== v) {
      return {
        catchAll: false,
        reportedField: 'spec.nodeSelector',
        reason: 'only additions to spec.nodeSelector are allowed (no mutations or deletions)',
      };
    }
  }
  const oldAff = obj(oldSpec['affinity']);
  const newAff = obj(newSpec['affinity']);
  // Only nodeAffinity is mutable; pod (anti-)affinity changes fall to the catch-all.
  for (const k of new Set([...Object.keys(oldAff), ...Object.keys(newAff)])) {
    if (k === 'nodeAffinity') continue;
    const [a, b] = [oldAff[k], newAff[k]];
    if (!(isAbsent(a) && isAbsent(b)) && !deepEqual(a, b)) return { catchAll: true };
  }
  const oldRequired = obj(oldAff['nodeAffinity'])['requiredDuringSchedulingIgnoredDuringExecution'];
  // No required affinity before: anything may be set.
  if (isAbsent(oldRequired)) return null;
  const oldTerms = arr(obj(oldRequired)['nodeSelectorTerms']);
  const newTerms = arr(
    obj(obj(newAff['nodeAffinity'])['requiredDuringSchedulingIgnoredDuringExecution'])['nodeSelectorTerms'],
  );
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return {
      catchAll: false,
      reportedField: TERMS,
      reason: 'no additions/deletions to non-empty NodeSelectorTerms list are allowed',
    };
  }
  for (let i = 0; i < oldTerms.length; i++) {
    if (!onlyAdditions(obj(newTerms[i]), obj(oldTerms[i]))) {
      return {
        catchAll: false,
        reportedField: `${TERMS}[${i}]`,
        reason: 'only additions are allowed (no mutations or deletions)',
      };
    }
  }
  return null;
}

/** validateNodeSelectorTermHasOnlyAdditions: the old requirements kept as a prefix; an empty term stays empty. */
function onlyAdditions(newTerm: Obj, oldTerm: Obj): boolean {
  const lists = ['matchExpressions', 'matchFields'];
  if (lists.every((l) => arr(oldTerm[l]).length === 0)) {
    return lists.every((l) => arr(newTerm[l]).length === 0);
  }
  return lists.every((l) => {
    const old = arr(oldTerm[l]);
    const next = arr(newTerm[l]);
    return old.length === 0 || (next.length >= old.length && deepEqual(next.slice(0, old.length), old));
  });
}
