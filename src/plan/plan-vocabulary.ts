/**
 * The plan's vocabulary, spelled once: the actions and their counts, the entry (a union by
 * `action`, with where its record is), the sandbox finding. The zod schemas are built on first use
 * ({@link planSchemas}) and every type is derived from them, so planning, the plan file, the node
 * plan and the CLI's rows cannot drift apart, and a type-only import loads no zod.
 */
import type { z } from 'zod';
import { zodNow } from '../on-demand.js';
import { CONTAINER_LISTS } from '../pod/locate.js';
import { CONTAINER_ROLES, RESTART_RULES, type RestartRuleId } from '../kubelet/index.js';
import type { HashChange } from '../runtime-records/index.js';

/** Every {@link PlanAction}, in the order counts and tables list them. */
export const PLAN_ACTIONS = ['keep', 'rewrite', 'will-restart', 'unknown'] as const;

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
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** How many entries have each action, counted once for every plan. */
export function countActions(entries: readonly { action: PlanAction }[]): PlanCounts {
  const counts = Object.fromEntries(PLAN_ACTIONS.map((a) => [a, 0])) as PlanCounts;
  for (const e of entries) counts[e.action]++;
  return counts;
}

const RULE_IDS: ReadonlySet<string> = new Set(RESTART_RULES.map((r) => r.id));

function buildPlanSchemas() {
  const { z } = zodNow();
  const ruleId = z.custom<RestartRuleId>((v) => typeof v === 'string' && RULE_IDS.has(v), {
    error: 'a restart rule id (RESTART_RULES)',
  });
  const observed = z.object({
    /** The stored `io.kubernetes.container.hash`. */
    hash: z.string().optional(),
    /** The stored `io.kubernetes.container.hashWithoutResources` (1.27–1.30). */
    hashWithoutResources: z.string().optional(),
  });
  const computed = z.object({
    /** The `from` kubelet's hash. */
    from: z.string().optional(),
    /** The `to` kubelet's hash. */
    to: z.string().optional(),
  });
  const fields = z.object({
    /** One line for people: why this action (verification result, rule applied, or what is missing). */
    reason: z.string(),
    /** The runtime's container id, from the record. */
    containerId: z
      .string()
      .optional()
      .describe("the runtime's container id (absent for an API container without record)"),
    /** The pod uid from the record's labels, or the API pod's (`''` when the record could not be read). */
    podUid: z.string().describe("the pod uid ('' for a record that could not be read)"),
    /** The API pod's name (or the record's, on a node plan). */
    podName: z.string().optional(),
    /** The API pod's namespace (or the record's, on a node plan). */
    podNamespace: z.string().optional(),
    /** The container name from the record's labels (`''` when the record could not be read). */
    containerName: z.string(),
    /** The pod-spec list of the matching API container, once found. */
    list: z.enum(CONTAINER_LISTS).optional().describe("the API container's pod-spec list"),
    /** How the kubelet treats that container (`container`, `sidecar`, `init`, `ephemeral`). */
    role: z.enum(CONTAINER_ROLES).optional().describe('how the kubelet treats the container'),
    /** The hashes the record stores. */
    observed: observed.describe('the hash(es) the record stores'),
    /** What `from` and `to` compute for the API spec. */
    computed: computed.describe('what the --from and --to kubelets compute for the API spec'),
    /** The row of the restart-rule table behind the action, when a kubelet rule decided it. */
    ruleId: ruleId.optional().describe('the restart rule that decided the action (RESTART_RULES; never on unknown)'),
    /** That rule's kubelet source, `path@tag (function)`. */
    ruleSource: z.string().optional().describe("that rule's kubelet source"),
  });
  const hashPair = z.object({ hash: z.string(), hashWithoutResources: z.string().optional() });
  const change: z.ZodType<HashChange> = z.object({
    from: hashPair,
    to: hashPair,
    containerId: z.string().optional(),
  });
  const noChange = z.undefined({ error: 'no change: only a rewrite entry has one' }).optional();
  const noCandidates = z.undefined({ error: 'no candidates: only an unknown entry has them' }).optional();
  const noRule = z.undefined({ error: 'no rule: no kubelet rule decides an unknown entry' }).optional();

  const supersededBy = z.object({
    /** The newest attempt of the pod's container. */
    attempt: z.number().int().nonnegative(),
    /** The record holding it (absent when two records hold that attempt: then both are unknown). */
    containerId: z.string().optional(),
  });
  const keep = fields.extend({
    /** Nothing to do. */
    action: z.literal('keep'),
    /** An older attempt of the pod's container: the kubelet compares only the newest, this one is not planned. */
    supersededBy: supersededBy
      .optional()
      .describe(
        'an older attempt of the pod uid + container name: the newest attempt the kubelet compares instead (this record is not planned)',
      ),
    /** Only a `rewrite` carries a change. */
    change: noChange,
    /** Only an `unknown` entry carries candidates. */
    candidates: noCandidates,
  });
  const rewrite = fields.extend({
    /** Rewrite the record's stored hash(es). */
    action: z.literal('rewrite'),
    /** The argument for `rewriteRuntimeRecord(text, change)`: the stored hash(es) expected and the ones to write. */
    change: change.describe(
      'rewrite entries only, always there: the stored hash(es) expected and the ones apply writes',
    ),
    /** A rewrite is proposed only for a stored hash, verified against `from`. */
    observed: observed.extend({
      /** The stored hash, which `from` computes for the API spec. */
      hash: z.string(),
    }),
    /** Both kubelets hashed the API spec. */
    computed: z.object({
      /** The `from` kubelet's hash (what the record stores). */
      from: z.string(),
      /** The `to` kubelet's hash (what the rewrite stores). */
      to: z.string(),
    }),
    /** Only an `unknown` entry carries candidates. */
    candidates: noCandidates,
  });
  const willRestart = fields.extend({
    /** Nothing can be done: the container restarts. */
    action: z.literal('will-restart'),
    /** Only a `rewrite` carries a change. */
    change: noChange,
    /** Only an `unknown` entry carries candidates. */
    candidates: noCandidates,
  });
  const unknown = fields.extend({
    /** Not verified: not rewritten. */
    action: z.literal('unknown'),
    /** Only a `rewrite` carries a change. */
    change: noChange,
    /** With a stored hash that `from` does not reproduce: the releases that would have written it. */
    candidates: z
      .string()
      .optional()
      .describe("unknown entries only: the releases that would have written a stored hash --from doesn't compute"),
    /** No kubelet rule decides an unknown entry. */
    ruleId: noRule,
    /** No kubelet rule decides an unknown entry. */
    ruleSource: noRule,
  });
  const recordIndex = z.object({
    /** Index in `records` of the record this entry is about (absent for a container without record). */
    record: z.number().int().nonnegative().optional(),
  });
  const recordLocation = z.object({
    /** The runtime that persisted the record. */
    runtime: z.string().optional(),
    /** Where the record lives (a file, or `meta.db#bucket/path`). */
    location: z.string().optional().describe('where the record lives: a file (absolute), or meta.db#bucket/path'),
    /** xxHash64 of the record as read (16 hex digits); apply refuses when it changed. */
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .optional()
      .describe('xxHash64 of the record as read'),
    /** Rewrite entries: the API container the hashes were computed from, as JSON text (keys sorted, numbers as written): apply hashes it again. */
    container: z
      .string()
      .optional()
      .describe('rewrite entries: the API container hashed, as JSON text (apply recomputes the hashes from it)'),
  });
  const nodeEntry = z.discriminatedUnion('action', [
    keep.extend(recordLocation.shape),
    rewrite.extend(recordLocation.shape),
    willRestart.extend(recordLocation.shape),
    unknown.extend(recordLocation.shape),
  ]);
  // The CLI documents a node entry as one row: every action's fields, each said once.
  const nodeRow = z.looseObject({
    action: z.enum(PLAN_ACTIONS),
    ...fields.shape,
    ...recordLocation.shape,
    ruleId: z
      .string()
      .optional()
      .describe(fields.shape.ruleId.description ?? ''),
    change: z
      .looseObject({})
      .optional()
      .describe(rewrite.shape.change.description ?? ''),
    candidates: unknown.shape.candidates,
    supersededBy: keep.shape.supersededBy,
  });
  const sandboxFinding = z.object({
    /** The pod uid. */
    podUid: z.string(),
    /** The API pod's name. */
    podName: z.string().optional(),
    /** The API pod's namespace. */
    podNamespace: z.string().optional(),
    /** What the kubelet's PodSandboxChanged finds. */
    reason: z.string(),
  });
  const podSandbox = z.object({
    /** The sandbox id. */
    id: z.string(),
    /** The pod uid it was created for. */
    podUid: z.string(),
    /** Its network namespace is the node's (CRI NamespaceMode NODE). */
    hostNetwork: z.boolean(),
    /** The pod IP recorded for it ('' when none). */
    ip: z.string(),
  });
  const record = z.object({
    /** The container name (label `io.kubernetes.container.name`). */
    containerName: z.string(),
    /** The pod uid (label `io.kubernetes.pod.uid`). */
    podUid: z.string(),
    /** The pod name, when the record names it. */
    podName: z.string().optional(),
    /** The pod namespace, when the record names it. */
    podNamespace: z.string().optional(),
    /** The runtime's container id, when the record has it. */
    containerId: z.string().optional(),
    /** The container's CRI attempt, when the record keeps it: of several records of one pod uid + container name, the kubelet compares the newest attempt only. */
    attempt: z.number().int().nonnegative().optional(),
    /** The stored `io.kubernetes.container.hash`, exactly as stored. */
    hash: z.string().optional(),
    /** The stored `io.kubernetes.container.hashWithoutResources`, exactly as stored. */
    hashWithoutResources: z.string().optional(),
  });
  const counts = z.record(z.enum(PLAN_ACTIONS), z.number().int().nonnegative());
  return {
    observed,
    computed,
    fields,
    keep,
    rewrite,
    willRestart,
    unknown,
    recordIndex,
    recordLocation,
    nodeEntry,
    nodeRow,
    sandboxFinding,
    podSandbox,
    record,
    counts,
  };
}

let built: ReturnType<typeof buildPlanSchemas> | undefined;

/** The plan's zod schemas, built on first use (a plan read or written, an input checked). */
export function planSchemas(): ReturnType<typeof buildPlanSchemas> {
  return (built ??= buildPlanSchemas());
}

type Schemas = ReturnType<typeof buildPlanSchemas>;

/**
 * How many entries of a plan have each action.
 *
 * @example
 * ```ts
 * import type { PlanCounts } from 'kubelet-hash';
 * const counts: PlanCounts = { keep: 3, rewrite: 1, 'will-restart': 0, unknown: 0 };
 * counts.rewrite; // → 1
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type PlanCounts = Record<PlanAction, number>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type ObservedHashes = z.infer<Schemas['observed']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type ComputedHashes = z.infer<Schemas['computed']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type PlanEntryFields = z.infer<Schemas['fields']>;

/**
 * A container the `to` kubelet keeps as its record stands (same hash, or a container it does not compare),
 * or an older attempt of a pod's container (`supersededBy`), which the kubelet never compares.
 *
 * @example
 * ```ts
 * import type { KeepPlanEntry } from 'kubelet-hash';
 * const entry: KeepPlanEntry = { action: 'keep', reason: 'the stored hash already equals the 1.31 hash', podUid: 'uid-1', containerName: 'web', observed: { hash: 'e220f96' }, computed: { from: '590c88e0', to: 'e220f96' } };
 * entry.action; // → 'keep'
 * ```
 *
 * @interface
 * @group Upgrades and runtime stores
 */
export type KeepPlanEntry = z.infer<Schemas['keep']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type RewritePlanEntry = z.infer<Schemas['rewrite']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type WillRestartPlanEntry = z.infer<Schemas['willRestart']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type UnknownPlanEntry = z.infer<Schemas['unknown']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type PlanRecordIndex = z.infer<Schemas['recordIndex']>;

/**
 * Where a node plan entry's record lives: the runtime, the file or bucket, and the record's
 * fingerprint as read (absent for an API container without record).
 *
 * @example
 * ```ts
 * import type { NodeRecordLocation } from 'kubelet-hash/node';
 * const where: NodeRecordLocation = { runtime: 'containerd', location: '/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db#v1/k8s.io/containers/c0ffee', fingerprint: '0123456789abcdef' };
 * where.runtime; // → 'containerd'
 * ```
 *
 * @interface
 * @group Upgrades and runtime stores
 */
export type NodeRecordLocation = z.infer<Schemas['recordLocation']>;

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
 * One container of a plan file: `planUpgrade`'s entry (the same union by `action`, so a `rewrite`
 * always has its `change`) with where its record lives instead of its index in `records`.
 *
 * @example
 * ```ts
 * import type { NodePlanEntry } from 'kubelet-hash/node';
 * const entry: NodePlanEntry = { action: 'keep', reason: 'init containers are not compared', podUid: 'u1', containerName: 'setup', observed: {}, computed: {} };
 * entry.action; // → 'keep'
 * const hashes = (e: NodePlanEntry) => (e.action === 'rewrite' ? `${e.change.from.hash} -> ${e.change.to.hash}` : e.action);
 * hashes(entry); // → 'keep'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type NodePlanEntry = PlanEntry<NodeRecordLocation>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type SandboxFinding = z.infer<Schemas['sandboxFinding']>;

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
 * @interface
 * @group Upgrades and runtime stores
 */
export type PodSandboxInfo = z.infer<Schemas['podSandbox']>;

/**
 * What planning reads of a runtime record: its identity and its stored hashes, nothing it does not
 * have (a {@link ContainerRecordInfo} from {@link readRuntimeRecords} is one, and so is a store's record).
 *
 * @example
 * ```ts
 * import type { PlanRecord } from 'kubelet-hash';
 * const record: PlanRecord = { podUid: 'uid-1', containerName: 'web', containerId: 'c0ffee', hash: '590c88e0' };
 * record.hash; // → '590c88e0'
 * ```
 *
 * @interface
 * @group Upgrades and runtime stores
 */
export type PlanRecord = z.infer<Schemas['record']>;
