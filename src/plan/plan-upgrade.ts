/**
 * `planUpgrade`: what to do with every container on a node before its kubelet moves from release
 * `from` to `to`, so that running containers survive the upgrade. This module is the join: API pods
 * (read by `read-pods.ts`) with the node's runtime records by pod uid + container name. Each
 * container is decided by the kubelet room's `decide()` alone (sandbox, static-pod UID, role, hash
 * rows); the join adds what is the plan's own: a stored hash is verified against what `from`
 * computes before a rewrite to the `to` hash is proposed. Identical specs are hashed once.
 */
import { zodNow } from '../on-demand.js';
import { KubeletHashError, OptionError } from '../errors.js';
import { formatHash, storedHashValue } from '../hash/format.js';
import { checkOptions } from '../hash/options.js';
import { RELEASE_PAIR_FIELDS, resolvePair, type ReleasePair } from '../hash/release.js';
import { describeOptionValue, readOptionFields } from '../option-fields.js';
import type { ReleaseHashes } from '../hash/hashes-for.js';
import type { ReleaseInfo } from '../releases/index.js';
import { readRuntimeRecords, type HashChange } from '../runtime-records/index.js';
import {
  containerRole,
  decide,
  describeMatches,
  identifyReleases,
  manifestUid,
  resolveGates,
  type FeatureGates,
  type ResolvedGates,
  type Verdict,
} from '../kubelet/index.js';
import type { LocatedContainer } from '../pod/locate.js';
import { stableKey } from '../json/stable-key.js';
import { specCache, type SpecCache } from './spec-cache.js';
import { attemptStandings, type AttemptStanding } from './attempts.js';
import { podsOnNodeOf, readPods, sandboxProblem, type ApiPod } from './read-pods.js';
import {
  countActions,
  planSchemas,
  type PlanAction,
  type PlanCounts,
  type PlanEntry,
  type PlanEntryFields,
  type PlanRecord,
  type PlanRecordIndex,
  type PodSandboxInfo,
  type SandboxFinding,
} from './plan-vocabulary.js';

export type {
  ComputedHashes,
  KeepPlanEntry,
  ObservedHashes,
  PlanAction,
  PlanCounts,
  PlanEntry,
  PlanEntryFields,
  PlanRecord,
  PlanRecordIndex,
  PodSandboxInfo,
  RewritePlanEntry,
  SandboxFinding,
  UnknownPlanEntry,
  WillRestartPlanEntry,
} from './plan-vocabulary.js';

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
export interface PlanUpgradeInput extends ReleasePair {
  /** Pods as the apiserver serves them (`kubectl get pods -o json` items, or the list itself). */
  pods:
    | readonly unknown[]
    | {
        /** The pods of a `PodList` (`kubectl get pods -o json`). */
        items: readonly unknown[];
      };
  /** Runtime records: texts (docker inspect, config.v2.json, crictl inspect) or records already read (identity and stored hashes). */
  records: readonly (string | PlanRecord)[];
  /** The `to` kubelet's feature gates (unset gates take that release's default); with a `to` handle, its own. */
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
}

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
  counts: PlanCounts;
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

function buildInputSchema() {
  const { z } = zodNow();
  return z.object({
    pods: z.union([z.array(z.unknown()), z.looseObject({ items: z.array(z.unknown()) })]),
    records: z.array(z.union([z.string(), planSchemas().record])),
    sandboxes: z.array(planSchemas().podSandbox).optional(),
    staticPodManifests: z.array(z.unknown()).optional(),
  });
}

let inputSchema: ReturnType<typeof buildInputSchema> | undefined;

/** The top-level fields of {@link PlanUpgradeInput}, read without zod (names refused with a suggestion). */
const PLAN_INPUT_FIELDS = {
  pods: 'unknown',
  records: 'unknown',
  ...RELEASE_PAIR_FIELDS,
  featureGates: 'object',
  nodeName: { test: (v: unknown) => typeof v === 'string' && v !== '', expected: 'a non-empty string' },
  sandboxes: 'unknown',
  staticPodManifests: 'unknown',
} as const;

/** The members the input schema checks in depth. */
function pick(input: PlanUpgradeInput): object {
  const out: Record<string, unknown> = { pods: input.pods, records: input.records };
  if (input.sandboxes !== undefined) out.sandboxes = input.sandboxes;
  if (input.staticPodManifests !== undefined) out.staticPodManifests = input.staticPodManifests;
  return out;
}

/** What planning one node reads, once: the releases, the gates, the pods, the sandboxes and the spec cache. */
interface PlanContext {
  fromInfo: ReleaseInfo;
  toInfo: ReleaseInfo;
  toGates: ResolvedGates;
  pods: Map<string, ApiPod>;
  specs: SpecCache;
  /** The sandboxes by pod uid, when given. */
  sandboxes?: Map<string, PodSandboxInfo[]>;
  /** Per pod uid: why its sandbox is recreated (`null`: it fits); filled as pods are met. */
  sandboxChanges: Map<string, string | null>;
  candidates: Map<string, string>;
  /** API containers a record was joined with. */
  withRecord: Set<LocatedContainer>;
  /** Uids of the pods those belong to, in entry order. */
  podsOnNode: Set<string>;
  /** Why the kubelet of this node kills the containers of `pod` (the API places it on another node), or undefined. */
  elsewhere: (pod: ApiPod) => string | undefined;
}

/**
 * A record of a pod the API places on another node is never kept: that node's kubelet, not this
 * one, runs the pod, and this one kills what it does not know. This node is `nodeName`; without it,
 * the one node the records' pods are on (records of pods on several nodes: none can be told apart).
 */
function elsewhereRule(
  pods: ReadonlyMap<string, ApiPod>,
  nodeName: string | undefined,
  recordUids: Iterable<string>,
): (pod: ApiPod) => string | undefined {
  if (nodeName !== undefined)
    return (pod) =>
      pod.nodeName !== undefined && pod.nodeName !== nodeName
        ? `the API places pod ${pod.namespace ?? ''}/${pod.name ?? pod.uid} on node ${pod.nodeName}, not on ${nodeName}: this node's kubelet kills its containers (not rewriting)`
        : undefined;
  const nodes = new Set<string>();
  for (const uid of recordUids) {
    const n = pods.get(uid)?.nodeName;
    if (n !== undefined) nodes.add(n);
  }
  if (nodes.size <= 1) return () => undefined;
  const names = [...nodes].sort();
  return (pod) =>
    pod.nodeName !== undefined
      ? `the records hold containers of pods on ${names.length} nodes (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}): which node this is cannot be told, and a node's kubelet kills the others' containers; give the node's name (--node)`
      : undefined;
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
  const fields = readOptionFields<PlanUpgradeInput>(input, ['input'], {
    fields: PLAN_INPUT_FIELDS,
    required: ['pods', 'records', 'from', 'to'],
    expected: 'an object { pods, records, from, to, featureGates? }',
  });
  const { from, to } = resolvePair(fields, 'input');
  if (to.handle !== undefined && fields.featureGates !== undefined)
    throw new OptionError(
      'INVALID_OPTION',
      ['input', 'featureGates'],
      'no featureGates beside a kubelet() handle as `to` (give them to kubelet() instead)',
      `found ${describeOptionValue(fields.featureGates)}`,
    );
  // The nested records and sandboxes are checked by their schemas (zod, on first use).
  const deep = checkOptions(
    (inputSchema ??= buildInputSchema()),
    pick(fields),
    'input',
    'an object { pods, records, from, to }',
  );
  const opts = { ...fields, ...deep };
  const fromInfo = from.info;
  const toInfo = to.info;
  const toGates = to.handle?.gates ?? resolveGates(toInfo, opts.featureGates, ['input', 'featureGates']);
  const fixedStaticUids = new Set(
    (opts.staticPodManifests ?? []).map(manifestUid).filter((u): u is string => u !== undefined),
  );
  const pods = readPods(
    Array.isArray(opts.pods) ? opts.pods : (opts.pods as { items: unknown[] }).items,
    fixedStaticUids,
  );
  const ctx: PlanContext = {
    fromInfo,
    toInfo,
    toGates,
    pods,
    specs: specCache(fromInfo, toInfo, from.escapes, to.escapes),
    sandboxChanges: new Map(),
    candidates: new Map(),
    withRecord: new Set(),
    podsOnNode: new Set(),
    elsewhere: () => undefined,
  };
  if (opts.sandboxes) {
    ctx.sandboxes = new Map();
    for (const s of opts.sandboxes) ctx.sandboxes.set(s.podUid, [...(ctx.sandboxes.get(s.podUid) ?? []), s]);
  }

  // Every record read first: which attempt of a pod's container is the newest needs them all.
  const read: ({ index: number; rec: PlanRecord } | { index: number; unreadable: string })[] = [];
  opts.records.forEach((raw, index) => {
    try {
      for (const rec of typeof raw === 'string' ? readRuntimeRecords(raw) : [raw]) read.push({ index, rec });
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      read.push({ index, unreadable: `cannot read the record: ${e.message}` });
    }
  });
  ctx.elsewhere = elsewhereRule(
    pods,
    opts.nodeName,
    read.flatMap((r) => ('rec' in r ? [r.rec.podUid] : [])),
  );
  const standings = attemptStandings(
    read.flatMap((r) => ('rec' in r ? [r.rec] : [])),
    (uid) => pods.has(uid),
  );
  const entries: PlanEntry[] = read.map((r) =>
    'rec' in r
      ? planRecord(ctx, r.rec, r.index, standings.get(r.rec))
      : {
          action: 'unknown',
          reason: r.unreadable,
          record: r.index,
          podUid: '',
          containerName: '',
          observed: {},
          computed: {},
        },
  );
  const nodeContainers = missingRecords(ctx, opts.nodeName, entries);

  const plan: UpgradePlan = {
    ...(ctx.sandboxes ? { sandboxFindings: sandboxFindings(ctx) } : {}),
    from: fromInfo.release,
    to: toInfo.release,
    entries,
    counts: countActions(entries),
    distinctSpecs: ctx.specs.distinct,
    nodeContainers,
  };
  if (from.toolchain !== undefined || to.toolchain !== undefined) {
    plan.toolchains = {
      ...(from.toolchain !== undefined ? { from: from.toolchain } : {}),
      ...(to.toolchain !== undefined ? { to: to.toolchain } : {}),
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
 * Completes an entry in place (10,000 records make 10,000 entries: no copies). The fields keep the
 * order they always had: what the draft holds, then `change`/`candidates`, then the rule. Only a
 * rewrite gives a change and only `unknown` entries get candidates, so the draft is the union
 * member its action names.
 */
function settle(
  entry: DraftEntry,
  action: PlanAction,
  reason: string,
  verdict?: Verdict,
  change?: HashChange,
): PlanEntry {
  entry.action = action;
  entry.reason = reason;
  if (change !== undefined) entry.change = change;
  if (verdict !== undefined) {
    entry.ruleId = verdict.ruleId;
    entry.ruleSource = verdict.ruleSource;
  }
  return entry as PlanEntry;
}

/** Why the kubelet's PodSandboxChanged recreates `pod` (`null`: its sandbox fits), or `undefined` when sandboxes were not given. */
function sandboxChangeOf(ctx: PlanContext, pod: ApiPod): string | null | undefined {
  if (!ctx.sandboxes) return undefined;
  let change = ctx.sandboxChanges.get(pod.uid);
  if (change === undefined) {
    change = sandboxProblem(pod, ctx.sandboxes.get(pod.uid)) ?? null;
    ctx.sandboxChanges.set(pod.uid, change);
  }
  return change;
}

/** The pods whose sandbox the kubelet recreates, in the order their entries were planned. */
function sandboxFindings(ctx: PlanContext): SandboxFinding[] {
  const out: SandboxFinding[] = [];
  for (const [uid, reason] of ctx.sandboxChanges) {
    if (reason === null) continue;
    const pod = ctx.pods.get(uid);
    const finding: SandboxFinding = { podUid: uid, reason };
    if (pod?.name !== undefined) finding.podName = pod.name;
    if (pod?.namespace !== undefined) finding.podNamespace = pod.namespace;
    out.push(finding);
  }
  return out;
}

function candidatesFor(ctx: PlanContext, c: LocatedContainer, stored: bigint): string {
  const key = `${formatHash(stored)}/${stableKey(c.container)}`;
  let hit = ctx.candidates.get(key);
  if (hit === undefined) {
    hit = describeMatches(identifyReleases(c.container, stored));
    ctx.candidates.set(key, hit);
  }
  return hit;
}

/** What an older attempt's entry says: who supersedes it; nothing of it is planned. */
function supersededEntry(
  base: DraftEntry,
  rec: PlanRecord,
  standing: { attempt: number; newest?: PlanRecord },
): PlanEntry {
  const by = standing.newest?.containerId;
  const entry = settle(
    base,
    'keep',
    `superseded: attempt ${rec.attempt ?? '?'} of this container; the kubelet compares only the newest attempt (${standing.attempt}${by !== undefined ? `, container ${by.slice(0, 13)}` : ''}), so this record is not planned`,
  );
  if (entry.action === 'keep')
    entry.supersededBy = { attempt: standing.attempt, ...(by !== undefined ? { containerId: by } : {}) };
  return entry;
}

/** The resize-policy restart the `to` kubelet makes to apply resources, once the hash agrees (`agreeing`). */
function resizeRestart(verdict: Verdict, agreeing: () => Verdict): Verdict | undefined {
  const resize = (v: Verdict) =>
    v.action === 'restart' && (v.ruleId === 'resize-policy' || v.ruleId === 'resize-policy-sidecar');
  if (resize(verdict)) return verdict;
  if (verdict.action !== 'restart' || verdict.comparison === 'not-compared') return undefined;
  const after = agreeing();
  return resize(after) ? after : undefined;
}

/** One record's container: joined with its API container, decided by decide(), verified against `from`. */
function planRecord(ctx: PlanContext, rec: PlanRecord, index: number, standing?: AttemptStanding): PlanEntry {
  const { fromInfo, toInfo } = ctx;
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
  const pod = ctx.pods.get(rec.podUid);
  if (!pod) {
    const of = rec.podName ? ` (record of ${rec.podNamespace}/${rec.podName})` : '';
    return settle(base, 'unknown', `no API pod has uid ${JSON.stringify(rec.podUid)}${of}`);
  }
  if (pod.name !== undefined) base.podName = pod.name;
  if (pod.namespace !== undefined) base.podNamespace = pod.namespace;
  const c = pod.containers.get(rec.containerName);
  if (!c) return settle(base, 'unknown', `the API pod has no container named ${JSON.stringify(rec.containerName)}`);
  ctx.withRecord.add(c);
  ctx.podsOnNode.add(rec.podUid);
  const elsewhere = ctx.elsewhere(pod);
  if (elsewhere !== undefined) return settle(base, 'unknown', elsewhere);
  if (standing?.kind === 'superseded') return supersededEntry(base, rec, standing);
  if (standing?.kind === 'tied')
    return settle(
      base,
      'unknown',
      `${standing.records} records of this pod's container hold its newest attempt (${standing.attempt}): which one the kubelet compares cannot be told`,
    );
  base.list = c.list;
  const role = containerRole(c.list, c.container);
  base.role = role;
  const cached = ctx.specs.get(c.container);
  if ('error' in cached) return settle(base, 'unknown', `cannot hash the API spec: ${cached.error}`);
  const { from, to } = cached.ok;
  const fromHash = formatHash(from.hash);
  const toHash = formatHash(to.hash);
  base.computed.from = fromHash;
  base.computed.to = toHash;

  const stored = storedHashValue(rec.hash);
  // Would the `to` kubelet restart it as the record stands? decide() is the one evaluator of the
  // kubelet's rules; the container runs (it has a record), with the resources its status reports
  // (ContainerStatus.resources) unless a resize is not admitted yet, else as its spec says.
  const sandboxChange = sandboxChangeOf(ctx, pod);
  // The `to` kubelet compares the spec with ContainerStatus.resources (1.27–1.32,
  // kuberuntime_manager.go:553 (v1.31.14)) or with its actuated checkpoint (1.33+, :601 (v1.33.13)),
  // which a 1.33+ kubelet wrote as the status shows it; after a kubelet of ≤ 1.32 it has none
  // (the allocation-checkpoint restart cause), so the status does not tell.
  const statusTells = pod.resizePending === undefined && (toInfo.minor <= 32 || fromInfo.minor >= 33);
  const resources = statusTells ? pod.statusResources.get(c.name) : undefined;
  const input: Parameters<typeof decide>[0] = {
    info: toInfo,
    role,
    gates: ctx.toGates,
    staticPod: pod.staticPod,
    staticUidFixed: pod.staticUidFixed,
    upgradeFrom: fromInfo,
    ...(sandboxChange !== undefined ? { sandboxChange } : {}),
    expected: to.hash,
    stored,
    expectedWithoutResources: to.withoutResources,
    storedWithoutResources: storedHashValue(rec.hashWithoutResources),
    container: c.container,
    path: c.path,
    runtime: { state: 'running', ...(resources !== undefined ? { resources } : {}) },
  };
  const verdict = decide(input);
  if (verdict.recreatesPod) {
    const reason =
      verdict.ruleId === 'static-pod-kubelet-upgrade'
        ? `static pod ${pod.namespace ?? ''}/${pod.name ?? pod.uid}: ${verdict.reason} (set metadata.uid in the manifest, or pass the manifest in staticPodManifests, to keep it)`
        : verdict.reason;
    return settle(base, 'will-restart', reason, verdict);
  }
  // Resources that differ from the spec under a RestartContainer policy restart it whatever the
  // hash: asked with the hash agreeing, as it does once rewritten.
  const resized =
    resources !== undefined &&
    resizeRestart(verdict, () => decide({ ...input, stored: to.hash, storedWithoutResources: to.withoutResources() }));
  if (resized) return settle(base, 'will-restart', `${resized.reason} (ContainerStatus.resources)`, resized);
  const change = (): HashChange => changeFor(rec, from, to, fromInfo, toInfo, ctx.toGates.inPlaceResize);
  // A keep that an input the plan does not have could turn into a restart is not promised. No rule
  // decides it, so the entry names none: the plan file's unknown entries carry no ruleId.
  const untold =
    pod.resizePending !== undefined
      ? ` (${pod.resizePending}: the resize is not admitted yet)`
      : pod.statusResources.has(c.name) && resources === undefined
        ? ` (the status's resources do not tell: a ${fromInfo.release} kubelet wrote no actuated checkpoint for the ${toInfo.release} one)`
        : '';
  const open = (why: string): PlanEntry =>
    settle(
      base,
      'unknown',
      `${why}; but the ${toInfo.release} kubelet may restart it: not known without ${verdict.openOn ?? ''}${untold}`,
    );
  if (verdict.comparison === 'not-compared') {
    // Not compared by the `to` kubelet but by a later one (a sidecar before 1.32): rewrite it now,
    // so the next upgrade does not restart it (only when its stored hash is verified against `from`).
    const later = verdict.comparedLater && rec.hash !== undefined && stored === from.hash && stored !== to.hash;
    if (!later) return settle(base, 'keep', verdict.reason, verdict);
    return settle(
      base,
      'rewrite',
      `${verdict.reason}; verified against ${fromInfo.release} (${fromHash}) and rewritten to the ${toInfo.release} hash ${toHash}, so a later kubelet that compares sidecars (1.32+) does not restart it`,
      verdict,
      change(),
    );
  }
  if (rec.hash === undefined) {
    return settle(
      base,
      'will-restart',
      'the record stores no hash: the kubelet reads 0 and restarts the container (nothing to rewrite)',
      verdict,
    );
  }
  if (stored === to.hash) {
    const why = `the stored hash already equals the ${toInfo.release} hash`;
    return verdict.openOn !== undefined ? open(why) : settle(base, 'keep', why, verdict);
  }
  if (stored !== from.hash) {
    base.candidates = candidatesFor(ctx, c, stored);
    return settle(
      base,
      'unknown',
      `stored hash ${rec.hash} is not what a ${fromInfo.release} kubelet computes for the API spec (${fromHash}): the container may run another spec, or was created by another release; not rewriting`,
    );
  }
  if (verdict.action !== 'restart') {
    const why = `verified against ${fromInfo.release}; ${verdict.reason}`;
    return verdict.openOn !== undefined ? open(why) : settle(base, 'keep', why, verdict);
  }
  return settle(
    base,
    'rewrite',
    `verified against ${fromInfo.release} (${fromHash}); ${toInfo.release} computes ${toHash}`,
    verdict,
    change(),
  );
}

/**
 * Every running container of the node's pods must have a record: one without is an `unknown`
 * entry, so a wrong namespace or runtime root can never read as "nothing to do". Returns how many
 * containers of the node run (or may run).
 */
function missingRecords(ctx: PlanContext, nodeName: string | undefined, entries: PlanEntry[]): number {
  let nodeContainers = 0;
  for (const pod of podsOnNodeOf(ctx.pods, nodeName, ctx.podsOnNode)) {
    if (pod.finished) continue;
    for (const c of pod.containers.values()) {
      const role = containerRole(c.list, c.container);
      if (role !== 'container' && role !== 'sidecar') continue;
      const joined = ctx.withRecord.has(c);
      if (pod.notRunning.has(c.name) && !joined) continue;
      nodeContainers++;
      if (joined) continue;
      const e: PlanEntry = {
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
  return nodeContainers;
}

/**
 * The rewrite: always the hash; the hash without resources too when the `to` kubelet reads it
 * (1.27–1.30 with the gate on), the record stores one and `from` reproduces it.
 */
function changeFor(
  rec: PlanRecord,
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
