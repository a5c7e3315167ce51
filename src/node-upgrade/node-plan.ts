/**
 * `planNodeUpgrade`: {@link planUpgrade} over the records a runtime persisted (or record files),
 * turned into a plan file entry per container with where the record lives and its fingerprint.
 * The kubelet's rules stay in planUpgrade; this only joins its entries with the store's records.
 */
import { existsSync } from 'node:fs';
import { readBounded } from './bounded-read.js';
import { KubeletHashError } from '../errors.js';
import { readGateSettings, type FeatureGates } from '../kubelet/index.js';
import { planUpgrade, readPods, type PlanEntry, type PlanRecordIndex, type PodSandboxInfo } from '../plan/index.js';
import { readRuntimeRecords, type ContainerRecordInfo, type RuntimeRecord } from '../runtime-records/index.js';
import { containerdSandboxes, fingerprinter, type StoredContainer } from '../stores/index.js';
import { PLAN_KIND, PLAN_VERSION, type NodePlanEntry, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { normalizeStoreSpec, openStore } from './store-spec.js';
import { checkNodeCoverage } from './coverage.js';
import { containerText } from './container-text.js';
import { patchTableNote } from '../hash/options.js';
import type { AuditStamp } from './audit.js';

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
  /** The node's name: the API pods with this `spec.nodeName` are the node's (as `PlanUpgradeInput.nodeName` of `planUpgrade`). */
  nodeName?: string;
  /** The most bytes one record file (`store.runtime` `records`) may have; a bigger one is refused (`STORE_IO`, EFBIG) before it is read whole. Default: no limit (the CLI passes `--max-input-size`). */
  maxRecordFileBytes?: number;
  /** When, where and by what the plan is made ({@link auditStamp}); the plan carries it. Without it the plan has none (and the same node state gives the same plan). */
  audit?: AuditStamp;
}

/**
 * One record of the node, as read: a store's record, or one of a record file (whose runtime is what
 * the record shows, `unknown` when it shows none). Planning reads its identity and stored hashes.
 */
type NodeRecord = Omit<StoredContainer, 'runtime'> & { runtime: RuntimeRecord['runtime'] };

/** A record file that could not be read: planned as `unknown`, never skipped. */
interface UnreadableRecord {
  location: string;
  fingerprint: string;
  reason: string;
}

/** The node's records: from the store, or from record files (each fingerprinted as a whole; one that cannot be read is reported). */
export async function readNodeRecords(
  spec: StoreSpec,
  maxRecordFileBytes = Number.MAX_SAFE_INTEGER,
): Promise<{ records: NodeRecord[]; unreadable: UnreadableRecord[] }> {
  if (spec.runtime === 'cri-o') return readCrioRecords(spec);
  if (spec.runtime !== 'records') return { records: await openStore(spec).list(), unreadable: [] };
  const fp = await fingerprinter();
  const out: NodeRecord[] = [];
  const unreadable: UnreadableRecord[] = [];
  for (const file of spec.files) {
    const bytes = readBounded(file, maxRecordFileBytes, 'a record file');
    let infos: ContainerRecordInfo[];
    try {
      infos = readRuntimeRecords(bytes.toString('utf8'));
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      unreadable.push({ location: file, fingerprint: fp(bytes), reason: `cannot read the record: ${e.message}` });
      continue;
    }
    for (const info of infos) {
      const s: NodeRecord = {
        runtime: info.runtime,
        containerId: info.containerId ?? '',
        podUid: info.podUid,
        podNamespace: info.podNamespace,
        podName: info.podName,
        containerName: info.containerName,
        location: file,
        fingerprint: fp(bytes),
      };
      if (info.attempt !== undefined) s.attempt = info.attempt;
      if (info.hash !== undefined) s.hash = info.hash;
      if (info.hashWithoutResources !== undefined) s.hashWithoutResources = info.hashWithoutResources;
      out.push(s);
    }
  }
  return { records: out, unreadable };
}

/**
 * CRI-O's records, with the runroot's copies checked against the graphroot's: CRI-O restores a
 * container from either, so a copy that stores another hash, or one without its graphroot record,
 * is an `unknown` entry of its own (never "keep" because the graphroot copy agrees).
 */
async function readCrioRecords(
  spec: Extract<StoreSpec, { runtime: 'cri-o' }>,
): Promise<{ records: StoredContainer[]; unreadable: UnreadableRecord[] }> {
  const records = await openStore(spec).list();
  const unreadable: UnreadableRecord[] = [];
  if (spec.runRoot === undefined || !existsSync(spec.runRoot)) return { records, unreadable };
  const byId = new Map(records.map((r) => [r.containerId, r]));
  // The runroot has the graphroot's layout: read it as a store of its own, one file per record.
  for (const copy of await openStore({ runtime: 'cri-o', graphRoot: spec.runRoot }).list()) {
    const main = byId.get(copy.containerId);
    const who = `container ${copy.containerId.slice(0, 13)} (${copy.podNamespace}/${copy.podName} ${copy.containerName})`;
    const say = (h: string | undefined): string => (h === undefined ? 'no hash' : h);
    let reason: string | undefined;
    if (!main) reason = `CRI-O's runroot holds a copy of ${who} that the graphroot does not have`;
    else if (main.hash !== copy.hash || main.hashWithoutResources !== copy.hashWithoutResources)
      reason = `CRI-O's two copies of ${who} disagree: the graphroot stores ${say(main.hash)}${main.hashWithoutResources !== undefined ? `/${main.hashWithoutResources}` : ''}, the runroot ${say(copy.hash)}${copy.hashWithoutResources !== undefined ? `/${copy.hashWithoutResources}` : ''}`;
    if (reason !== undefined) unreadable.push({ location: copy.location, fingerprint: copy.fingerprint, reason });
  }
  return { records, unreadable };
}

/**
 * planUpgrade's entry with where its record lives instead of its index: the same union member
 * (its observed hashes are the store's, which planUpgrade read).
 */
function toEntry(e: PlanEntry, rec: NodeRecord | undefined): NodePlanEntry {
  // planUpgrade's result is this function's alone: its nested objects are not copied again.
  const out: NodePlanEntry & PlanRecordIndex = { ...e };
  delete out.record;
  // The file names the record by location, not by the change's containerId.
  if (out.action === 'rewrite') out.change = { from: out.change.from, to: out.change.to };
  if (rec) {
    out.runtime = rec.runtime;
    out.containerId = rec.containerId;
    out.location = rec.location;
    out.fingerprint = rec.fingerprint;
  }
  const ns = e.podNamespace ?? rec?.podNamespace;
  const name = e.podName ?? rec?.podName;
  if (ns !== undefined && ns !== '') out.podNamespace = ns;
  else delete out.podNamespace;
  if (name !== undefined && name !== '') out.podName = name;
  else delete out.podName;
  return out;
}

/** The runtime's pod sandboxes, when the store keeps them where this package can read them (containerd). */
function sandboxesOf(store: StoreSpec): { sandboxes?: PodSandboxInfo[]; read?: PodSandboxInfo[]; note: string } {
  if (store.runtime !== 'containerd')
    return { note: `not checked: kubelet-hash reads pod sandboxes from containerd's meta.db only` };
  const found = containerdSandboxes(store.root, store.namespace).map((s) => ({
    id: s.id,
    podUid: s.podUid,
    hostNetwork: s.networkMode === 2,
    ip: s.ip,
  }));
  // Every CRI pod has a sandbox; a namespace without any was not written by a kubelet's CRI plugin.
  if (found.length === 0)
    return { read: found, note: `not checked: namespace ${store.namespace} holds no sandbox record` };
  return {
    sandboxes: found,
    read: found,
    note: `${found.length} sandbox records read (existence, network mode, IP; readiness is live state the runtime does not persist)`,
  };
}

/** Plans from records already read (shared by plan and verify). */
export function planFromRecords(
  input: Omit<PlanNodeUpgradeInput, 'store'>,
  store: StoreSpec,
  records: readonly NodeRecord[],
  unreadable: readonly UnreadableRecord[] = [],
): NodeUpgradePlan {
  // Gates become booleans here, once: planUpgrade and the plan file see the same settings.
  const featureGates = readGateSettings(input.featureGates, ['input', 'featureGates']);
  const { sandboxes, read, note } =
    records.length > 0
      ? sandboxesOf(store)
      : { sandboxes: undefined, read: undefined, note: 'not checked: no records' };
  const podItems = Array.isArray(input.pods) ? input.pods : (input.pods as { items: unknown[] }).items;
  const plan = planUpgrade({
    pods: input.pods,
    records,
    from: input.from,
    to: input.to,
    featureGates,
    ...(input.nodeName !== undefined ? { nodeName: input.nodeName } : {}),
    ...(sandboxes ? { sandboxes } : {}),
  });
  checkNodeCoverage({
    store,
    records,
    unreadable: unreadable.length,
    podsGiven: podItems.length,
    nodeContainers: plan.nodeContainers,
  });
  const entries = plan.entries.map((e) => toEntry(e, e.record !== undefined ? records[e.record] : undefined));
  withContainers(entries, podItems);
  for (const u of unreadable) {
    entries.push({
      action: 'unknown',
      reason: u.reason,
      location: u.location,
      fingerprint: u.fingerprint,
      podUid: '',
      containerName: '',
      observed: {},
      computed: {},
    });
    plan.counts.unknown++;
  }
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
    sandboxes: {
      note,
      findings: (plan.sandboxFindings ?? []).map((f) => ({ ...f })),
      // What apply compares the store's sandboxes with (containerd: the list read, even empty).
      ...(read ? { records: read.map((s) => ({ ...s })).sort((a, b) => (a.id < b.id ? -1 : 1)) } : {}),
    },
  };
  if (Object.keys(featureGates).length > 0) out.featureGates = featureGates;
  // A patch release's escapes are lost in `from`/`to` (minors): kept so apply hashes as plan did.
  const escapes = { from: patchTableNote(input.from)?.escapes, to: patchTableNote(input.to)?.escapes };
  if (escapes.from !== undefined || escapes.to !== undefined)
    out.jsonEscapes = {
      ...(escapes.from !== undefined ? { from: escapes.from } : {}),
      ...(escapes.to !== undefined ? { to: escapes.to } : {}),
    };
  if (input.audit) out.audit = { ...input.audit };
  return out;
}

/** Gives each rewrite entry the API container its hashes were computed from, for apply to hash again. */
function withContainers(entries: NodePlanEntry[], podItems: readonly unknown[]): void {
  if (!entries.some((e) => e.action === 'rewrite')) return;
  // planUpgrade read these pods already: they parse.
  const pods = readPods(podItems, new Set());
  for (const e of entries) {
    if (e.action !== 'rewrite') continue;
    const c = pods.get(e.podUid)?.containers.get(e.containerName);
    if (c) e.container = containerText(c.container);
  }
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
  const { records, unreadable } = await readNodeRecords(store, input.maxRecordFileBytes);
  return planFromRecords(input, store, records, unreadable);
}
