/**
 * A store's records as a set of (container id, fingerprint): what a plan read, what apply left.
 * Apply refuses a store whose set differs in any way from the plan's (a record added, removed or
 * changed), and rollback one whose set differs from what apply left (restoring it would lose the
 * difference).
 */
import type { RecordPrint, StoredContainer } from './types.js';

/** How a store's records differ from an expected set: container ids, each with its name when known. */
export interface StoreDifference {
  /** Records the store holds that were not expected. */
  added: string[];
  /** Expected records the store no longer holds. */
  removed: string[];
  /** Records whose fingerprint is none of the expected ones. */
  changed: string[];
}

/** A store record as a print, named `namespace/pod container`. */
export function printOf(c: StoredContainer): RecordPrint {
  return {
    containerId: c.containerId,
    fingerprint: c.fingerprint,
    name: `${c.podNamespace}/${c.podName} ${c.containerName}`,
  };
}

const label = (r: RecordPrint): string => (r.name !== undefined ? `${r.containerId} (${r.name})` : r.containerId);

/**
 * How `now` differs from `expected`. A record matches when `matches` says its fingerprint is
 * acceptable for the expected record (by default: the expected fingerprint alone).
 */
export function diffRecords<E extends RecordPrint>(
  expected: readonly E[],
  now: readonly RecordPrint[],
  matches: (e: E, fingerprint: string) => boolean = (e, f) => e.fingerprint === f,
): StoreDifference {
  const want = new Map(expected.map((e) => [e.containerId, e]));
  const seen = new Set<string>();
  const out: StoreDifference = { added: [], removed: [], changed: [] };
  for (const r of now) {
    const e = want.get(r.containerId);
    if (!e || seen.has(r.containerId)) out.added.push(label(r));
    else if (!matches(e, r.fingerprint)) out.changed.push(label(r));
    seen.add(r.containerId);
  }
  for (const e of expected) if (!seen.has(e.containerId)) out.removed.push(label(e));
  return out;
}

/** True when there is no difference. */
export function noDifference(d: StoreDifference): boolean {
  return d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0;
}

/** "2 added: a, b; 1 changed: c", listing at most `limit` ids per kind. */
export function describeDifference(d: StoreDifference, limit = 10): string {
  const part = (n: string[], what: string): string[] =>
    n.length === 0 ? [] : [`${n.length} ${what}: ${n.slice(0, limit).join(', ')}${n.length > limit ? ', …' : ''}`];
  return [...part(d.added, 'added'), ...part(d.removed, 'removed'), ...part(d.changed, 'changed')].join('; ');
}

/** The planned records with the fingerprints of the rewritten ones replaced (the store as apply leaves it). */
export function afterApply(planned: readonly RecordPrint[], rewritten: ReadonlyMap<string, string>): RecordPrint[] {
  return planned.map((p) => ({ ...p, fingerprint: rewritten.get(p.containerId) ?? p.fingerprint }));
}
