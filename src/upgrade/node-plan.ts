/**
 * `planNodeUpgrade`: {@link planUpgrade} over the records a runtime persisted (or record files),
 * turned into a plan file entry per container with where the record lives and its fingerprint.
 * The kubelet's rules stay in planUpgrade; this only joins its entries with the store's records.
 */
import { readFileSync } from 'node:fs';
import type { FeatureGates } from '../kubelet/index.js';
import { planUpgrade, type PlanEntry } from './plan-upgrade.js';
import { readRuntimeRecords, type ContainerRecordInfo } from '../runtime-records/index.js';
import { fingerprinter, type StoredContainer } from '../stores/index.js';
import { PLAN_KIND, PLAN_VERSION, type NodePlanEntry, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { normalizeStoreSpec, openStore } from './store-spec.js';

/**
 * What {@link planNodeUpgrade} needs.
 *
 * @example
 * ```ts
 * import type { PlanNodeUpgradeInput } from 'kubelet-hash/node';
 * const input: PlanNodeUpgradeInput = { pods: [], from: '1.30', to: '1.31', store: { runtime: 'containerd', root: '/var/lib/containerd', namespace: 'k8s.io' } };
 * input.to; // → '1.31'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface PlanNodeUpgradeInput {
  /** The node's pods as the apiserver serves them (a PodList or its items). */
  pods:
    | readonly unknown[]
    | {
        /** The pods of a `PodList`. */
        items: readonly unknown[];
      };
  /** The current kubelet version. */
  from: string;
  /** The kubelet version the node moves to. */
  to: string;
  /** The `to` kubelet's feature gates. */
  featureGates?: FeatureGates;
  /** Where the records are. */
  store: StoreSpec;
}

/** A store's record as planUpgrade reads one (only identity and stored hashes matter to it). */
function asRecordInfo(s: StoredContainer): ContainerRecordInfo {
  const info: ContainerRecordInfo = {
    // planUpgrade reads identity and hashes only; the kind names the closest record shape.
    kind: s.runtime === 'docker' ? 'docker-config-v2' : 'crictl-inspect',
    runtime: s.runtime,
    containerId: s.containerId,
    containerName: s.containerName,
    podName: s.podName,
    podNamespace: s.podNamespace,
    podUid: s.podUid,
    hashLocations: [s.location],
  };
  if (s.hash !== undefined) info.hash = s.hash;
  if (s.hashWithoutResources !== undefined) info.hashWithoutResources = s.hashWithoutResources;
  return info;
}

/** The node's records: from the store, or from record files (each fingerprinted as a whole). */
export async function readNodeRecords(spec: StoreSpec): Promise<StoredContainer[]> {
  if (spec.runtime !== 'records') return openStore(spec).list();
  const fp = await fingerprinter();
  const out: StoredContainer[] = [];
  for (const file of spec.files) {
    const bytes = readFileSync(file);
    for (const info of readRuntimeRecords(bytes.toString('utf8'))) {
      const runtime = info.runtime === 'unknown' ? 'containerd' : info.runtime;
      const s: StoredContainer = {
        runtime,
        containerId: info.containerId ?? '',
        podUid: info.podUid,
        podNamespace: info.podNamespace,
        podName: info.podName,
        containerName: info.containerName,
        location: file,
        fingerprint: fp(bytes),
      };
      if (info.hash !== undefined) s.hash = info.hash;
      if (info.hashWithoutResources !== undefined) s.hashWithoutResources = info.hashWithoutResources;
      out.push(s);
    }
  }
  return out;
}

function toEntry(e: PlanEntry, rec: StoredContainer | undefined): NodePlanEntry {
  const out: NodePlanEntry = {
    action: e.action,
    reason: e.reason,
    podUid: e.podUid,
    containerName: e.containerName,
    observed: {},
    computed: {},
  };
  if (rec) {
    out.runtime = rec.runtime;
    out.containerId = rec.containerId;
    out.location = rec.location;
    out.fingerprint = rec.fingerprint;
    if (rec.hash !== undefined) out.observed.hash = rec.hash;
    if (rec.hashWithoutResources !== undefined) out.observed.hashWithoutResources = rec.hashWithoutResources;
  }
  const ns = e.podNamespace ?? rec?.podNamespace;
  const name = e.podName ?? rec?.podName;
  if (ns !== undefined && ns !== '') out.podNamespace = ns;
  if (name !== undefined && name !== '') out.podName = name;
  if (e.fromHash !== undefined) out.computed.from = e.fromHash;
  if (e.toHash !== undefined) out.computed.to = e.toHash;
  if (e.change) out.change = { from: { ...e.change.from }, to: { ...e.change.to } };
  if (e.candidates !== undefined) out.candidates = e.candidates;
  return out;
}

/** Plans from records already read (shared by plan and verify). */
export function planFromRecords(
  input: Omit<PlanNodeUpgradeInput, 'store'>,
  store: StoreSpec,
  records: readonly StoredContainer[],
): NodeUpgradePlan {
  const plan = planUpgrade({
    pods: input.pods,
    records: records.map(asRecordInfo),
    from: input.from,
    to: input.to,
    ...(input.featureGates ? { featureGates: input.featureGates } : {}),
  });
  const entries = plan.entries.map((e) => toEntry(e, e.record !== undefined ? records[e.record] : undefined));
  // Store order first (records sorted by location and id), then containers without a record.
  const key = (e: NodePlanEntry): string =>
    `${e.containerId === undefined ? 1 : 0}\u0000${e.location ?? ''}\u0000${e.containerId ?? ''}\u0000${e.podUid}\u0000${e.containerName}`;
  entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const out: NodeUpgradePlan = {
    kind: PLAN_KIND,
    version: PLAN_VERSION,
    from: plan.from,
    to: plan.to,
    store,
    counts: plan.counts,
    entries,
  };
  if (input.featureGates && Object.keys(input.featureGates).length > 0) {
    out.featureGates = Object.fromEntries(
      Object.entries(input.featureGates).filter((kv): kv is [string, boolean] => kv[1] !== undefined),
    );
  }
  return out;
}

/**
 * Plans an in-place kubelet upgrade of a node from what its runtime persisted: reads every record
 * (read-only; the runtime may still run), verifies each stored hash against `from` and proposes
 * the `to` hash, per {@link planUpgrade}. Write it with {@link formatNodePlan}.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { planNodeUpgrade } from 'kubelet-hash/node';
 * // An empty docker root: no containers, nothing to do.
 * const root = mkdtempSync(join(tmpdir(), 'docker-'));
 * const plan = await planNodeUpgrade({ pods: [], from: '1.30', to: '1.31', store: { runtime: 'docker', root } });
 * plan.counts; // → { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function planNodeUpgrade(input: PlanNodeUpgradeInput): Promise<NodeUpgradePlan> {
  const store = normalizeStoreSpec(input.store);
  return planFromRecords(input, store, await readNodeRecords(store));
}
