/**
 * `planUpgrade`: what to do with every container on a node before its kubelet moves from release
 * `from` to `to`, so that running containers survive the upgrade. API pods (as the apiserver
 * serves them) are joined with the node's runtime records by pod uid + container name; each
 * stored hash is verified against what `from` computes for the API spec before a rewrite to the
 * `to` hash is proposed. Identical specs (every pod of a DaemonSet) are hashed once.
 */
import { lazySchema } from '../on-demand.js';
import { KubeletHashError, OptionError, parseWith } from '../errors.js';
import { formatHash } from '../hash/format.js';
import { releaseInfo, type ReleaseInfo } from '../registry/registry.js';
import { readRuntimeRecords, type ContainerRecordInfo, type HashChange } from '../runtime-records/index.js';
import { decide } from '../kubelet/index.js';
import { checkOptions, escapesSchema, featureGatesSchema, resolveGates, type FeatureGates } from '../kubelet/index.js';
import { storedHashValue } from '../hash/format.js';
import { patchTableNote } from '../hash/options.js';
import { containerRole, type ContainerRole } from '../kubelet/index.js';
import type { ReleaseHashes } from '../hash/hashes-for.js';
import { describeMatches, identifyReleases } from '../kubelet/index.js';
import { locateContainers, type ContainerList, type LocatedContainer } from '../pod/locate.js';
import { mirroredPodUid } from '../pod/mirror-pod.js';
import { stableKey } from '../json/stable-key.js';
import { restartRule, type RestartRuleId } from '../kubelet/index.js';
import { manifestUid, maybeGeneratedStaticUid } from '../kubelet/index.js';
import { specCache, type CachedSpec } from './spec-cache.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';

/**
 * What to do with a container before the upgrade: `keep` (the `to` kubelet will not restart it),
 * `rewrite` (apply `change` to its record), `will-restart` (nothing to rewrite), `unknown` (see `reason`).
 *
 * @example
 * ```ts
 * import { planUpgrade, type PlanAction } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The API pods (kubectl get pods -o json) and the node's runtime records (crictl inspect).
 * const pods = { items: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [web] } }] };
 * const labels = { 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'web' };
 * const record = JSON.stringify({ status: { id: 'c0ffee', labels, annotations: { 'io.kubernetes.container.hash': '590c88e0' } } });
 * const actions: PlanAction[] = planUpgrade({ pods, records: [record], from: '1.30', to: '1.31' }).entries.map((e) => e.action);
 * actions; // → ['rewrite']
 * // 1.25 → 1.26 hash this container alike: nothing to do. (1.25 would have stored 590c88e0 too.)
 * planUpgrade({ pods, records: [record], from: '1.25', to: '1.26' }).entries.map((e) => e.action); // → ['keep']
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type PlanAction = 'keep' | 'rewrite' | 'will-restart' | 'unknown';

/**
 * The node to plan for: its API pods, its runtime records and the two kubelet versions.
 *
 * @example
 * ```ts
 * import { planUpgrade, readRuntimeRecords, type PlanUpgradeInput } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The API pods (kubectl get pods -o json) and the node's runtime records (crictl inspect).
 * const pods = { items: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [web] } }] };
 * const labels = { 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'web' };
 * const record = JSON.stringify({ status: { id: 'c0ffee', labels, annotations: { 'io.kubernetes.container.hash': '590c88e0' } } });
 * // Records may be given as text or already read.
 * const input: PlanUpgradeInput = { pods, records: readRuntimeRecords(record), from: 'v1.30.4', to: 'v1.31.1', featureGates: {} };
 * planUpgrade(input).counts; // → { keep: 0, rewrite: 1, 'will-restart': 0, unknown: 0 }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface PlanUpgradeInput {
  /** Pods as the apiserver serves them (`kubectl get pods -o json` items, or the list itself). */
  pods:
    | readonly unknown[]
    | {
        /** The pods of a `PodList` (`kubectl get pods -o json`). */
        items: readonly unknown[];
      };
  /** Runtime records: texts (docker inspect, config.v2.json, crictl inspect) or parsed records. */
  records: readonly (string | ContainerRecordInfo)[];
  /** The node's current kubelet version, which wrote the stored hashes (`1.29`, `v1.29.4`…). */
  from: string;
  /** The kubelet version the node moves to. */
  to: string;
  /** The `to` kubelet's feature gates (unset gates take that release's default). */
  featureGates?: FeatureGates;
  /**
   * The node's name. Every running container of an API pod scheduled there (`spec.nodeName`) must
   * have a record, or it is listed as `unknown`. Without it: all pods when they are on one node (or
   * carry no `spec.nodeName`), else the pods on the nodes of the pods the records belong to.
   */
  nodeName?: string;
  /**
   * The runtime's pod sandboxes (containerd's sandbox records). When given, a pod the kubelet
   * recreates whatever the hashes (`PodSandboxChanged`: no sandbox, its network namespace mode not
   * the pod's `hostNetwork`, no IP for a pod network) has its containers as `will-restart`.
   */
  sandboxes?: readonly PodSandboxInfo[];
  /**
   * Static pod manifests (as on disk) that set `metadata.uid`: a static pod whose UID one of them
   * sets keeps it across a kubelet minor upgrade. Without this, a static pod survives a minor
   * upgrade only when its UID cannot be a generated one (not 32 lowercase hex digits).
   */
  staticPodManifests?: readonly unknown[];
  /** encoding/json BS/FF escaping of the `from` kubelet's Go build; defaults to that of its `.0` release. */
  fromJsonEscapes?: JsonEscapeMode;
  /** The same for the `to` kubelet. */
  toJsonEscapes?: JsonEscapeMode;
}

/**
 * A pod sandbox as the runtime persisted it: what the kubelet's `PodSandboxChanged` reads.
 *
 * @example
 * ```ts
 * import type { PodSandboxInfo } from 'kubelet-hash';
 * const sandbox: PodSandboxInfo = { id: 'a1b2', podUid: 'uid-1', hostNetwork: false, ip: '10.0.0.7' };
 * sandbox.hostNetwork; // → false
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface PodSandboxInfo {
  /** The sandbox id. */
  id: string;
  /** The pod uid it was created for. */
  podUid: string;
  /** Its network namespace is the node's (CRI NamespaceMode NODE). */
  hostNetwork: boolean;
  /** The pod IP recorded for it ('' when none). */
  ip: string;
}

/**
 * A pod the kubelet recreates whole (new sandbox, every container restarted) whatever the hashes.
 *
 * @example
 * ```ts
 * import type { SandboxFinding } from 'kubelet-hash';
 * const finding: SandboxFinding = { podUid: 'uid-1', reason: 'no sandbox record for the pod' };
 * finding.reason; // → 'no sandbox record for the pod'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface SandboxFinding {
  /** The pod uid. */
  podUid: string;
  /** The API pod's name. */
  podName?: string;
  /** The API pod's namespace. */
  podNamespace?: string;
  /** What the kubelet's PodSandboxChanged finds. */
  reason: string;
}

/**
 * The hashes a runtime record stores, exactly as stored (absent: the record stores none, or there
 * is no record).
 *
 * @example
 * ```ts
 * import type { ObservedHashes } from 'kubelet-hash';
 * const observed: ObservedHashes = { hash: '590c88e0' };
 * observed.hash; // → '590c88e0'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ObservedHashes {
  /** The stored `io.kubernetes.container.hash`. */
  hash?: string;
  /** The stored `io.kubernetes.container.hashWithoutResources` (1.27–1.30). */
  hashWithoutResources?: string;
}

/**
 * What the `from` and `to` kubelets compute for the API spec (lowercase hex; absent until the API
 * container is found and hashed).
 *
 * @example
 * ```ts
 * import type { ComputedHashes } from 'kubelet-hash';
 * const computed: ComputedHashes = { from: '590c88e0', to: 'e220f96' };
 * computed.to; // → 'e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ComputedHashes {
  /** The `from` kubelet's hash. */
  from?: string;
  /** The `to` kubelet's hash. */
  to?: string;
}

/**
 * What every plan entry holds, whatever its action: who the container is, what its record stores
 * and what the two kubelets compute. The entries themselves are {@link PlanEntry}.
 *
 * @example
 * ```ts
 * import type { PlanEntryFields } from 'kubelet-hash';
 * const who: PlanEntryFields = { reason: 'no runtime record', podUid: 'uid-1', containerName: 'web', observed: {}, computed: {} };
 * who.containerName; // → 'web'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface PlanEntryFields {
  /** One line for people: why this action (verification result, rule applied, or what is missing). */
  reason: string;
  /** The runtime's container id, from the record. */
  containerId?: string;
  /** The pod uid from the record's labels, or the API pod's (`''` when the record could not be read). */
  podUid: string;
  /** The API pod's name (or the record's, on a node plan). */
  podName?: string;
  /** The API pod's namespace (or the record's, on a node plan). */
  podNamespace?: string;
  /** The container name from the record's labels (`''` when the record could not be read). */
  containerName: string;
  /** The pod-spec list of the matching API container, once found. */
  list?: ContainerList;
  /** How the kubelet treats that container (`container`, `sidecar`, `init`, `ephemeral`). */
  role?: ContainerRole;
  /** The hashes the record stores. */
  observed: ObservedHashes;
  /** What `from` and `to` compute for the API spec. */
  computed: ComputedHashes;
  /** The row of the restart-rule table behind the action, when a kubelet rule decided it. */
  ruleId?: RestartRuleId;
  /** That rule's kubelet source, `path@tag (function)`. */
  ruleSource?: string;
}

/**
 * A container the `to` kubelet keeps as its record stands (same hash, or a container it does not compare).
 *
 * @example
 * ```ts
 * import type { KeepPlanEntry } from 'kubelet-hash';
 * const entry: KeepPlanEntry = { action: 'keep', reason: 'the stored hash already equals the 1.31 hash', podUid: 'uid-1', containerName: 'web', observed: { hash: 'e220f96' }, computed: { from: '590c88e0', to: 'e220f96' } };
 * entry.action; // → 'keep'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface KeepPlanEntry extends PlanEntryFields {
  /** Nothing to do. */
  action: 'keep';
  /** Only a `rewrite` carries a change. */
  change?: never;
  /** Only an `unknown` entry carries candidates. */
  candidates?: never;
}

/**
 * A container whose stored hash `from` reproduces and that the `to` kubelet would restart unless
 * its record is rewritten: apply `change` while the kubelet is stopped.
 *
 * @example
 * ```ts
 * import type { RewritePlanEntry } from 'kubelet-hash';
 * const entry: RewritePlanEntry = {
 *   action: 'rewrite', reason: 'verified against 1.30 (590c88e0); 1.31 computes e220f96', podUid: 'uid-1', containerName: 'web',
 *   observed: { hash: '590c88e0' }, computed: { from: '590c88e0', to: 'e220f96' },
 *   change: { from: { hash: '590c88e0' }, to: { hash: 'e220f96' } },
 * };
 * entry.change.to.hash; // → 'e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RewritePlanEntry extends PlanEntryFields {
  /** Rewrite the record's stored hash(es). */
  action: 'rewrite';
  /** The argument for `rewriteRuntimeRecord(text, change)`: the stored hash(es) expected and the ones to write. */
  change: HashChange;
  /** A rewrite is proposed only for a stored hash, verified against `from`. */
  observed: ObservedHashes & {
    /** The stored hash, which `from` computes for the API spec. */
    hash: string;
  };
  /** Both kubelets hashed the API spec. */
  computed: {
    /** The `from` kubelet's hash (what the record stores). */
    from: string;
    /** The `to` kubelet's hash (what the rewrite stores). */
    to: string;
  };
  /** Only an `unknown` entry carries candidates. */
  candidates?: never;
}

/**
 * A container the `to` kubelet restarts whatever is rewritten (no stored hash, a static pod whose
 * UID changes, a pod sandbox the kubelet recreates).
 *
 * @example
 * ```ts
 * import type { WillRestartPlanEntry } from 'kubelet-hash';
 * const entry: WillRestartPlanEntry = { action: 'will-restart', reason: 'the record stores no hash', podUid: 'uid-1', containerName: 'web', observed: {}, computed: {}, ruleId: 'hash' };
 * entry.ruleId; // → 'hash'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface WillRestartPlanEntry extends PlanEntryFields {
  /** Nothing can be done: the container restarts. */
  action: 'will-restart';
  /** Only a `rewrite` carries a change. */
  change?: never;
  /** Only an `unknown` entry carries candidates. */
  candidates?: never;
}

/**
 * A container that could not be verified (see `reason`): no record or no API pod, a spec that
 * does not hash, or a stored hash `from` does not compute. Never rewritten.
 *
 * @example
 * ```ts
 * import type { UnknownPlanEntry } from 'kubelet-hash';
 * const entry: UnknownPlanEntry = { action: 'unknown', reason: 'stored hash 1 is not what a 1.30 kubelet computes', podUid: 'uid-1', containerName: 'web', observed: { hash: '1' }, computed: { from: '590c88e0', to: 'e220f96' }, candidates: 'no release' };
 * entry.candidates; // → 'no release'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface UnknownPlanEntry extends PlanEntryFields {
  /** Not verified: not rewritten. */
  action: 'unknown';
  /** Only a `rewrite` carries a change. */
  change?: never;
  /** With a stored hash that `from` does not reproduce: the releases that would have written it. */
  candidates?: string;
  /** No kubelet rule decides an unknown entry. */
  ruleId?: never;
  /** No kubelet rule decides an unknown entry. */
  ruleSource?: never;
}

/**
 * Where a {@link planUpgrade} entry's record is: its index in `input.records`.
 *
 * @example
 * ```ts
 * import type { PlanRecordIndex } from 'kubelet-hash';
 * const where: PlanRecordIndex = { record: 0 };
 * where.record; // → 0
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface PlanRecordIndex {
  /** Index in `records` of the record this entry is about (absent for a container without record). */
  record?: number;
}

/**
 * The plan for one runtime record's container, or for an API container with no record: a union
 * by `action`, so `entry.action === 'rewrite'` narrows to an entry with a `change`, and the other
 * actions have none. `Where` says where the record is: its index in `records` here; a node plan
 * entry (`NodePlanEntry` of `kubelet-hash/node`) is `PlanEntry<NodeRecordLocation>`.
 *
 * @example
 * ```ts
 * import { planUpgrade, type PlanEntry } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The API pods (kubectl get pods -o json) and the node's runtime records (crictl inspect).
 * const pods = { items: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [web] } }] };
 * const labels = { 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'web' };
 * const record = JSON.stringify({ status: { id: 'c0ffee', labels, annotations: { 'io.kubernetes.container.hash': '590c88e0' } } });
 * const entry: PlanEntry = planUpgrade({ pods, records: [record], from: '1.30', to: '1.31' }).entries[0]!;
 * [entry.action, entry.observed.hash, entry.computed.to]; // → ['rewrite', '590c88e0', 'e220f96']
 * // Narrowed on the action: only a rewrite has a change, and it always has one.
 * entry.action === 'rewrite' ? entry.change : 'no change'; // → { from: { hash: '590c88e0' }, to: { hash: 'e220f96' }, containerId: 'c0ffee' }
 * entry.reason; // → 'verified against 1.30 (590c88e0); 1.31 computes e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type PlanEntry<Where extends object = PlanRecordIndex> =
  (KeepPlanEntry & Where) | (RewritePlanEntry & Where) | (WillRestartPlanEntry & Where) | (UnknownPlanEntry & Where);

/**
 * What {@link planUpgrade} returns.
 *
 * @example
 * ```ts
 * import { planUpgrade, type UpgradePlan } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The API pods (kubectl get pods -o json) and the node's runtime records (crictl inspect).
 * const pods = { items: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [web] } }] };
 * const labels = { 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'web' };
 * const record = JSON.stringify({ status: { id: 'c0ffee', labels, annotations: { 'io.kubernetes.container.hash': '590c88e0' } } });
 * const plan: UpgradePlan = planUpgrade({ pods, records: [record, record], from: '1.30', to: '1.31' });
 * [plan.from, plan.to, plan.entries.length, plan.distinctSpecs]; // → ['1.30', '1.31', 2, 1]
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface UpgradePlan {
  /** The `from` release, resolved to its minor (`1.29`). */
  from: string;
  /** The `to` release, resolved to its minor. */
  to: string;
  /** One entry per container in `records` (in order), then regular and sidecar containers of those pods that have no record. */
  entries: PlanEntry[];
  /** How many entries have each action. */
  counts: Record<PlanAction, number>;
  /** How many distinct container specs were hashed (the rest came from the cache). */
  distinctSpecs: number;
  /**
   * Present when a side's encoding/json escaping came from the patch table (a patch version built
   * with a newer Go than its `.0` release, e.g. `v1.29.7`): which Go, and the source.
   */
  toolchains?: {
    /** The `from` kubelet's toolchain, when the patch table chose it. */
    from?: string;
    /** The `to` kubelet's toolchain, when the patch table chose it. */
    to?: string;
  };
  /**
   * How many regular and sidecar containers of the API pods on the node run (or may run: no
   * status says otherwise); each has an entry, with a record or as `unknown`.
   */
  nodeContainers: number;
  /** With `sandboxes`: the pods the kubelet recreates whole because of their sandbox. */
  sandboxFindings?: SandboxFinding[];
}

const recordInfoSchema = lazySchema((z) =>
  z.looseObject({
    containerName: z.string(),
    podUid: z.string(),
    podName: z.string().optional(),
    podNamespace: z.string().optional(),
    containerId: z.string().optional(),
    hash: z.string().optional(),
    hashWithoutResources: z.string().optional(),
  }),
);

const inputSchema = lazySchema((z) =>
  z.object({
    pods: z.union([z.array(z.unknown()), z.looseObject({ items: z.array(z.unknown()) })]),
    records: z.array(z.union([z.string(), recordInfoSchema()])),
    from: z.string(),
    to: z.string(),
    featureGates: featureGatesSchema().optional(),
    nodeName: z.string().min(1).optional(),
    sandboxes: z
      .array(z.object({ id: z.string(), podUid: z.string(), hostNetwork: z.boolean(), ip: z.string() }))
      .optional(),
    staticPodManifests: z.array(z.unknown()).optional(),
    fromJsonEscapes: escapesSchema().optional(),
    toJsonEscapes: escapesSchema().optional(),
  }),
);

const podSchema = lazySchema((z) =>
  z.looseObject({
    metadata: z.looseObject({
      uid: z.string().min(1),
      name: z.string().optional(),
      namespace: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    }),
    spec: z.looseObject({ nodeName: z.string().optional(), hostNetwork: z.boolean().optional() }),
    status: z
      .looseObject({
        phase: z.string().optional(),
        containerStatuses: z.array(z.unknown()).optional(),
        initContainerStatuses: z.array(z.unknown()).optional(),
      })
      .optional(),
  }),
);

interface ApiPod {
  uid: string;
  /** Its index in the pods given. */
  index: number;
  name?: string;
  namespace?: string;
  /** A static pod (seen through its mirror pod): the in-place resize exemption does not apply. */
  staticPod: boolean;
  containers: Map<string, LocatedContainer>;
  /** `spec.nodeName`, when scheduled. */
  nodeName?: string;
  /** `spec.hostNetwork`. */
  hostNetwork: boolean;
  /** The pod has finished (phase Succeeded or Failed): none of its containers runs. */
  finished: boolean;
  /** Container names whose status says they are not running (waiting, terminated). */
  notRunning: Set<string>;
}

/**
 * What to do with every container on a node before its kubelet moves from `input.from` to
 * `input.to`. A rewrite is proposed only where the stored hash is what `from` computes for the API spec.
 * Problems with one record or pod become `unknown` entries with a reason; only invalid input
 * (options, pods without `metadata.uid`) throws ({@link OptionError}, {@link ReleaseError}).
 * Apply each `rewrite` entry's `change` with {@link rewriteRuntimeRecord} while the kubelet is stopped.
 *
 * @example
 * ```ts
 * import { planUpgrade, rewriteRuntimeRecord } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The API pods (kubectl get pods -o json) and the node's runtime records (crictl inspect).
 * const pods = { items: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [web] } }] };
 * const labels = { 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'web' };
 * const record = JSON.stringify({ status: { id: 'c0ffee', labels, annotations: { 'io.kubernetes.container.hash': '590c88e0' } } });
 * const plan = planUpgrade({ pods, records: [record], from: '1.30', to: '1.31' });
 * plan.counts; // → { keep: 0, rewrite: 1, 'will-restart': 0, unknown: 0 }
 * const rewritten = plan.entries.map((e) => (e.action === 'rewrite' ? rewriteRuntimeRecord(record, e.change) : record));
 * rewritten[0]!.includes('"io.kubernetes.container.hash":"e220f96"'); // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function planUpgrade(input: PlanUpgradeInput): UpgradePlan {
  const opts = checkOptions(inputSchema(), input, 'input', 'an object { pods, records, from, to, featureGates? }');
  const fromInfo = releaseInfo(opts.from, ['input', 'from']);
  const toInfo = releaseInfo(opts.to, ['input', 'to']);
  const toGates = resolveGates(toInfo, opts.featureGates, ['input', 'featureGates']);
  const pods = readPods(Array.isArray(opts.pods) ? opts.pods : (opts.pods as { items: unknown[] }).items);
  const fixedStaticUids = new Set(
    (opts.staticPodManifests ?? []).map(manifestUid).filter((u): u is string => u !== undefined),
  );
  const minorUpgrade = fromInfo.minor !== toInfo.minor;
  /**
   * Completes an entry in place (10,000 records make 10,000 entries: no copies). The fields keep the
   * order they always had: what `base` holds, then `change`/`candidates`, then the rule. Only
   * {@link rewriteEntry} gives a change and only `unknown` entries get candidates, so the draft is the
   * union member its action names.
   */
  const settle = (
    entry: DraftEntry,
    action: Exclude<PlanAction, 'rewrite'>,
    reason: string,
    ruleId?: RestartRuleId,
  ): PlanEntry => {
    entry.action = action;
    entry.reason = reason;
    if (ruleId !== undefined) {
      entry.ruleId = ruleId;
      entry.ruleSource = restartRule(ruleId).source;
    }
    return entry as PlanEntry;
  };
  const rewriteEntry = (entry: DraftEntry, change: HashChange, reason: string, ruleId: RestartRuleId): PlanEntry => {
    entry.action = 'rewrite';
    entry.reason = reason;
    entry.change = change;
    entry.ruleId = ruleId;
    entry.ruleSource = restartRule(ruleId).source;
    return entry as RewritePlanEntry;
  };

  // A patch version takes the escapes of the Go that built it; explicit escapes win.
  const fromTable = patchTableNote(opts.from, opts.fromJsonEscapes);
  const toTable = patchTableNote(opts.to, opts.toJsonEscapes);
  const specs = specCache(
    fromInfo,
    toInfo,
    opts.fromJsonEscapes ?? fromTable?.escapes,
    opts.toJsonEscapes ?? toTable?.escapes,
  );
  const hashesOf = (c: LocatedContainer): CachedSpec => specs.get(c.container);
  const candidateCache = new Map<string, string>();
  const candidatesFor = (c: LocatedContainer, stored: bigint): string => {
    const key = `${formatHash(stored)}/${stableKey(c.container)}`;
    let hit = candidateCache.get(key);
    if (hit === undefined) {
      hit = describeMatches(identifyReleases(c.container, stored));
      candidateCache.set(key, hit);
    }
    return hit;
  };

  const entries: PlanEntry[] = [];
  const withRecord = new Set<LocatedContainer>(); // API containers a record was joined with
  const podsOnNode = new Set<string>(); // uids of the pods those belong to, in entry order
  opts.records.forEach((raw, index) => {
    let infos: ContainerRecordInfo[];
    try {
      infos = typeof raw === 'string' ? readRuntimeRecords(raw) : [raw as unknown as ContainerRecordInfo];
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      entries.push({
        action: 'unknown',
        reason: `cannot read the record: ${e.message}`,
        record: index,
        podUid: '',
        containerName: '',
        observed: {},
        computed: {},
      });
      return;
    }
    for (const rec of infos) {
      const entry = planRecord(rec, index);
      entries.push(entry);
    }
  });

  function planRecord(rec: ContainerRecordInfo, index: number): PlanEntry {
    const base: DraftEntry = {
      action: 'unknown',
      reason: '',
      record: index,
      podUid: rec.podUid,
      containerName: rec.containerName,
      observed: {},
      computed: {},
    };
    if (rec.containerId !== undefined) base.containerId = rec.containerId;
    if (rec.hash !== undefined) base.observed.hash = rec.hash;
    if (rec.hashWithoutResources !== undefined) base.observed.hashWithoutResources = rec.hashWithoutResources;
    // dockershim/cri-dockerd name the sandbox (pause) container "POD", which no API container can be
    // called (names are lowercase DNS labels); the kubelet never hashes it.
    if (rec.containerName === 'POD' && rec.hash === undefined)
      return settle(base, 'keep', 'pod sandbox (pause container): the kubelet stores and compares no hash for it');
    const pod = pods.get(rec.podUid);
    if (!pod) {
      const of = rec.podName ? ` (record of ${rec.podNamespace}/${rec.podName})` : '';
      return settle(base, 'unknown', `no API pod has uid ${JSON.stringify(rec.podUid)}${of}`);
    }
    if (pod.name !== undefined) base.podName = pod.name;
    if (pod.namespace !== undefined) base.podNamespace = pod.namespace;
    const c = pod.containers.get(rec.containerName);
    if (!c) return settle(base, 'unknown', `the API pod has no container named ${JSON.stringify(rec.containerName)}`);
    withRecord.add(c);
    podsOnNode.add(rec.podUid);
    base.list = c.list;
    const role = containerRole(c.list, c.container);
    base.role = role;
    if (pod.staticPod && minorUpgrade && maybeGeneratedStaticUid(pod.uid) && !fixedStaticUids.has(pod.uid)) {
      return settle(
        base,
        'will-restart',
        `static pod ${pod.namespace ?? ''}/${pod.name ?? pod.uid}: its UID is generated from the manifest and the kubelet's internal Pod types, which change between ${fromInfo.release} and ${toInfo.release}; the ${toInfo.release} kubelet recreates the whole pod (set metadata.uid in the manifest, or pass the manifest in staticPodManifests, to keep it)`,
        'static-pod-kubelet-upgrade',
      );
    }
    const cached = hashesOf(c);
    if ('error' in cached) return settle(base, 'unknown', `cannot hash the API spec: ${cached.error}`);
    const { from, to } = cached.ok;
    const fromHash = formatHash(from.hash);
    const toHash = formatHash(to.hash);
    base.computed.from = fromHash;
    base.computed.to = toHash;

    const stored = storedHashValue(rec.hash);
    // Would the `to` kubelet restart it as the record stands? decide() is the one evaluator of the
    // kubelet's rules; the container runs (it has a record), its resources as its spec says.
    const verdict = decide({
      info: toInfo,
      role,
      gates: toGates,
      staticPod: pod.staticPod,
      expected: to.hash,
      stored,
      expectedWithoutResources: to.withoutResources,
      storedWithoutResources: storedHashValue(rec.hashWithoutResources),
      container: c.container,
      path: c.path,
      runtime: { state: 'running' },
    });
    const asIs = {
      rule: verdict.comparison,
      changed: verdict.action === 'restart',
      reason: verdict.reason,
      ruleId: verdict.ruleId,
    };
    if (asIs.rule === 'not-compared') {
      // A sidecar the `to` kubelet does not compare is compared by 1.32+: rewrite it now, so the
      // next upgrade does not restart it (only when its stored hash is verified against `from`).
      const later = role === 'sidecar' && rec.hash !== undefined && stored === from.hash && stored !== to.hash;
      if (!later) return settle(base, 'keep', asIs.reason, asIs.ruleId);
      return rewriteEntry(
        base,
        changeFor(rec, from, to, fromInfo, toInfo, toGates.inPlaceResize),
        `${asIs.reason}; verified against ${fromInfo.release} (${fromHash}) and rewritten to the ${toInfo.release} hash ${toHash}, so a later kubelet that compares sidecars (1.32+) does not restart it`,
        asIs.ruleId,
      );
    }
    if (rec.hash === undefined) {
      return settle(
        base,
        'will-restart',
        'the record stores no hash: the kubelet reads 0 and restarts the container (nothing to rewrite)',
        'hash',
      );
    }
    if (stored === to.hash)
      return settle(base, 'keep', `the stored hash already equals the ${toInfo.release} hash`, 'hash');
    if (stored !== from.hash) {
      base.candidates = candidatesFor(c, stored);
      return settle(
        base,
        'unknown',
        `stored hash ${rec.hash} is not what a ${fromInfo.release} kubelet computes for the API spec (${fromHash}): the container may run another spec, or was created by another release; not rewriting`,
      );
    }
    if (!asIs.changed) {
      return settle(base, 'keep', `verified against ${fromInfo.release}; ${asIs.reason}`, asIs.ruleId);
    }
    return rewriteEntry(
      base,
      changeFor(rec, from, to, fromInfo, toInfo, toGates.inPlaceResize),
      `verified against ${fromInfo.release} (${fromHash}); ${toInfo.release} computes ${toHash}`,
      asIs.ruleId,
    );
  }

  // Every running container of the node's pods must have a record: one without is `unknown`, so a
  // wrong namespace or runtime root can never read as "nothing to do".
  let nodeContainers = 0;
  for (const pod of podsOnNodeOf(pods, opts.nodeName, podsOnNode)) {
    if (pod.finished) continue;
    for (const c of pod.containers.values()) {
      const role = containerRole(c.list, c.container);
      if (role !== 'container' && role !== 'sidecar') continue;
      if (pod.notRunning.has(c.name) && !withRecord.has(c)) continue;
      nodeContainers++;
      if (withRecord.has(c)) continue;
      const e: UnknownPlanEntry = {
        action: 'unknown',
        reason: `no runtime record: wrong --namespace or runtime root? (the API pod${pod.nodeName !== undefined ? ` on node ${pod.nodeName}` : ''} runs this container, but no record of the runtime names it)`,
        podUid: pod.uid,
        containerName: c.name,
        list: c.list,
        role,
        observed: {},
        computed: {},
      };
      if (pod.name !== undefined) e.podName = pod.name;
      if (pod.namespace !== undefined) e.podNamespace = pod.namespace;
      entries.push(e);
    }
  }

  const sandboxFindings = opts.sandboxes ? sandboxChanges(pods, entries, opts.sandboxes) : undefined;
  const counts: Record<PlanAction, number> = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  for (const e of entries) counts[e.action]++;
  const plan: UpgradePlan = {
    ...(sandboxFindings ? { sandboxFindings } : {}),
    from: fromInfo.release,
    to: toInfo.release,
    entries,
    counts,
    distinctSpecs: specs.distinct,
    nodeContainers,
  };
  if (fromTable || toTable) {
    plan.toolchains = {
      ...(fromTable ? { from: fromTable.toolchain } : {}),
      ...(toTable ? { to: toTable.toolchain } : {}),
    };
  }
  return plan;
}

/** An entry being planned: every action's fields, settled in place into the {@link PlanEntry} its action names. */
type DraftEntry = PlanEntryFields &
  PlanRecordIndex & {
    action: PlanAction;
    change?: HashChange;
    candidates?: string;
  };

/**
 * The rewrite: always the hash; the hash without resources too when the `to` kubelet reads it
 * (1.27–1.30 with the gate on), the record stores one and `from` reproduces it.
 */
function changeFor(
  rec: ContainerRecordInfo,
  from: ReleaseHashes,
  to: ReleaseHashes,
  fromInfo: ReleaseInfo,
  toInfo: ReleaseInfo,
  toResize: boolean,
): HashChange {
  const change: HashChange = { from: { hash: formatHash(from.hash) }, to: { hash: formatHash(to.hash) } };
  if (
    toInfo.hashWithoutResources &&
    toResize &&
    fromInfo.hashWithoutResources &&
    rec.hashWithoutResources !== undefined &&
    storedHashValue(rec.hashWithoutResources) === from.withoutResources()
  ) {
    change.from.hashWithoutResources = formatHash(from.withoutResources());
    change.to.hashWithoutResources = formatHash(to.withoutResources());
  }
  if (rec.containerId !== undefined) change.containerId = rec.containerId;
  return change;
}

function readPods(items: readonly unknown[]): Map<string, ApiPod> {
  const out = new Map<string, ApiPod>();
  items.forEach((item, i) => {
    const { metadata, spec, status } = parseWith(
      podSchema(),
      item,
      ({ path, message }) =>
        new OptionError(
          'INVALID_OPTION',
          path,
          'a Pod as the apiserver serves it (metadata.uid, spec.containers)',
          message,
        ),
      ['input', 'pods', i],
    );
    const containers = new Map(locateContainers(item).map((c) => [c.name, c]));
    const staticUid = mirroredPodUid(metadata);
    const pod: ApiPod = {
      index: i,
      uid: staticUid ?? metadata.uid,
      staticPod: staticUid !== undefined,
      containers,
      hostNetwork: spec.hostNetwork === true,
      finished: status?.phase === 'Succeeded' || status?.phase === 'Failed',
      notRunning: notRunningNames([...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? [])]),
    };
    if (spec.nodeName !== undefined) pod.nodeName = spec.nodeName;
    if (metadata.name !== undefined) pod.name = metadata.name;
    if (metadata.namespace !== undefined) pod.namespace = metadata.namespace;
    const first = out.get(pod.uid);
    if (first !== undefined) {
      // Which one the records belong to cannot be told: first-wins would check the wrong spec.
      throw new OptionError(
        'DUPLICATE_POD',
        ['input', 'pods', i, 'metadata', 'uid'],
        'each API pod once (one uid, one pod)',
        `pods ${first.index} (${first.namespace ?? '?'}/${first.name ?? '?'}) and ${i} (${pod.namespace ?? '?'}/${pod.name ?? '?'}) share uid ${JSON.stringify(pod.uid)}${stableKey(item) === stableKey(items[first.index]) ? ', the same pod given twice' : ', with different specs'}`,
      );
    }
    out.set(pod.uid, pod);
  });
  return out;
}

/** Names of the containers whose `ContainerStatus` says they do not run (a status without `state.running`). */
function notRunningNames(statuses: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const st of statuses) {
    if (st === null || typeof st !== 'object') continue;
    const { name, state } = st as { name?: unknown; state?: unknown };
    if (typeof name !== 'string' || state === null || typeof state !== 'object') continue;
    if (!('running' in state)) out.add(name);
  }
  return out;
}

/**
 * The API pods scheduled on the node: those with `spec.nodeName` equal to `nodeName`; without
 * one, every pod when they name at most one node, else the pods on the nodes of `joined` (pods a
 * record belongs to). Refuses a multi-node list that no record places.
 */
function podsOnNodeOf(pods: Map<string, ApiPod>, nodeName: string | undefined, joined: Set<string>): ApiPod[] {
  const all = [...pods.values()];
  if (nodeName !== undefined) {
    const here = all.filter((p) => p.nodeName === nodeName);
    // A node no given pod is on: the missing-record check would have nothing to check.
    if (here.length === 0 && all.length > 0) throw nodeNotFound(nodeName, all);
    return here;
  }
  const nodes = new Set(all.map((p) => p.nodeName).filter((n): n is string => n !== undefined));
  if (nodes.size <= 1) return all;
  const here = new Set([...joined].map((uid) => pods.get(uid)?.nodeName).filter((n) => n !== undefined));
  if (here.size === 0) {
    const names = [...nodes].sort();
    throw new OptionError(
      'INVALID_OPTION',
      ['input', 'nodeName'],
      "the node's name: the pods are scheduled on several nodes and no record places this one",
      `${names.length} nodes: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`,
    );
  }
  return all.filter((p) => p.nodeName !== undefined && here.has(p.nodeName));
}

/** `nodeName` is on no given pod: the nodes they are on, and the one that differs only in case. */
function nodeNotFound(nodeName: string, pods: readonly ApiPod[]): OptionError {
  const nodes = [...new Set(pods.map((p) => p.nodeName).filter((n): n is string => n !== undefined))].sort();
  const near = nodes.find((n) => n.toLowerCase() === nodeName.toLowerCase());
  const unscheduled = pods.filter((p) => p.nodeName === undefined).length;
  return new OptionError(
    'NODE_NOT_FOUND',
    ['input', 'nodeName'],
    `a node some given pod is scheduled on (spec.nodeName): no pod of the ${pods.length} given is on ${JSON.stringify(nodeName)}`,
    `${near !== undefined ? `did you mean ${JSON.stringify(near)}? ` : ''}${nodes.length > 0 ? `the pods are on ${nodes.slice(0, 5).join(', ')}${nodes.length > 5 ? `, … (${nodes.length} nodes)` : ''}` : 'no pod names a node'}${unscheduled > 0 && nodes.length > 0 ? `; ${unscheduled} name none` : ''}`,
  );
}

/** Why the kubelet's PodSandboxChanged recreates `pod`, or `undefined` when a sandbox fits it. */
function sandboxProblem(pod: ApiPod, sandboxes: readonly PodSandboxInfo[] | undefined): string | undefined {
  if (!sandboxes || sandboxes.length === 0) return 'the runtime holds no sandbox record for the pod';
  const mode = (host: boolean): string => (host ? 'the node (hostNetwork)' : 'its own (pod network)');
  const fitting = sandboxes.filter((s) => s.hostNetwork === pod.hostNetwork);
  if (fitting.length === 0)
    return `its sandbox's network namespace is ${mode(!pod.hostNetwork)} but the API pod asks for ${mode(pod.hostNetwork)}`;
  if (!pod.hostNetwork && fitting.every((s) => s.ip === ''))
    return 'its sandbox has no IP recorded for a pod-network pod';
  return undefined;
}

/**
 * The sandbox-changed conditions, per pod with entries: the containers of a pod the kubelet
 * recreates become `will-restart` (a rewrite would not save them). Readiness is the runtime's live
 * state, not persisted: the kubelet checks it after the runtime restarts.
 */
function sandboxChanges(
  pods: Map<string, ApiPod>,
  entries: PlanEntry[],
  sandboxes: readonly PodSandboxInfo[],
): SandboxFinding[] {
  const byPod = new Map<string, PodSandboxInfo[]>();
  for (const s of sandboxes) byPod.set(s.podUid, [...(byPod.get(s.podUid) ?? []), s]);
  const findings = new Map<string, SandboxFinding | null>(); // null: its sandbox fits
  for (const e of entries) {
    const pod = pods.get(e.podUid);
    if (!pod || e.action === 'unknown') continue;
    let finding = findings.get(pod.uid);
    if (finding === undefined) {
      const reason = sandboxProblem(pod, byPod.get(pod.uid));
      finding = reason === undefined ? null : { podUid: pod.uid, reason };
      if (finding && pod.name !== undefined) finding.podName = pod.name;
      if (finding && pod.namespace !== undefined) finding.podNamespace = pod.namespace;
      findings.set(pod.uid, finding);
    }
    if (finding === null) continue;
    // In place, as planUpgrade settles entries; the hash rule that decided keep/rewrite no longer does.
    const d = e as DraftEntry;
    d.action = 'will-restart';
    d.reason = `${finding.reason}: the kubelet recreates the whole pod (PodSandboxChanged), whatever the hashes`;
    delete d.change;
    delete d.ruleId;
    delete d.ruleSource;
  }
  return [...findings.values()].filter((f): f is SandboxFinding => f !== null);
}
