/**
 * apply writes to the store the plan saw, pod sandboxes included: a sandbox removed, added or changed
 * since the plan changes what the kubelet does with the pod's containers (a pod without its sandbox
 * is recreated whole), so the plan's verdicts no longer hold. Records and their attempts are
 * compared by the store itself (every record's fingerprint); this compares the sandboxes.
 */
import { StoreError } from '../errors.js';
import { containerdSandboxes } from '../stores/index.js';
import type { NodeUpgradePlan } from './plan-file.js';

type Sandbox = NonNullable<NonNullable<NodeUpgradePlan['sandboxes']>['records']>[number];

/** At most this many sandboxes are named per kind of difference. */
const NAMED = 10;

const describe = (s: Sandbox): string =>
  `${s.id.slice(0, 13)} (pod uid ${s.podUid}, ${s.hostNetwork ? 'host network' : `ip ${s.ip || 'none'}`})`;

const list = (what: string, items: readonly Sandbox[]): string[] =>
  items.length === 0
    ? []
    : [
        `${items.length} ${what}: ${items
          .slice(0, NAMED)
          .map(describe)
          .join(', ')}${items.length > NAMED ? ', …' : ''}`,
      ];

/** The differences between the plan's sandboxes and the store's, as `removed: …; added: …; changed: …`. */
function sandboxDifference(planned: readonly Sandbox[], now: readonly Sandbox[]): string {
  const byId = new Map(now.map((s) => [s.id, s]));
  const plannedIds = new Set(planned.map((s) => s.id));
  const removed = planned.filter((s) => !byId.has(s.id));
  const changed = planned.filter((s) => {
    const n = byId.get(s.id);
    return n !== undefined && (n.podUid !== s.podUid || n.hostNetwork !== s.hostNetwork || n.ip !== s.ip);
  });
  const added = now.filter((s) => !plannedIds.has(s.id));
  return [
    ...list('removed', removed),
    ...list('added', added),
    ...list(
      'changed (now)',
      changed.map((s) => byId.get(s.id)!),
    ),
  ].join('; ');
}

/**
 * Refuses (`STORE_CHANGED`, naming the plan's and the store's views) a containerd store whose pod
 * sandboxes are not those the plan read, and a containerd plan with records that does not say which
 * sandboxes it read (a plan of an older kubelet-hash). Other stores keep no sandboxes this package reads.
 */
export function checkSandboxesAsPlanned(plan: NodeUpgradePlan): void {
  const store = plan.store;
  if (store.runtime !== 'containerd') return;
  const hasRecords = plan.entries.some((e) => e.containerId !== undefined);
  const planned = plan.sandboxes?.records;
  const where = `the pod sandboxes of containerd namespace ${store.namespace} under ${store.root}`;
  if (planned === undefined) {
    if (!hasRecords) return;
    throw new StoreError(
      'STORE_CHANGED',
      ['sandboxes', 'records'],
      `${where} as the plan read them (sandboxes.records, which plan --out writes)`,
      'the plan does not say which it read (a plan of an older kubelet-hash): make a new plan',
      store.root,
    );
  }
  const now = containerdSandboxes(store.root, store.namespace).map((s) => ({
    id: s.id,
    podUid: s.podUid,
    hostNetwork: s.networkMode === 2,
    ip: s.ip,
  }));
  const diff = sandboxDifference(planned, now);
  if (diff === '') return;
  throw new StoreError(
    'STORE_CHANGED',
    [],
    `${where} as the plan read them: ${planned.length} sandboxes${planned.length > 0 ? ` (${planned.slice(0, NAMED).map(describe).join(', ')}${planned.length > NAMED ? ', …' : ''})` : ''} (make a new plan)`,
    `the store holds ${now.length}: ${diff}`,
    store.root,
  );
}
