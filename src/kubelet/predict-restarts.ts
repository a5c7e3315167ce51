/**
 * `predictRestarts`: for an in-place update of a pod (OpenKruise style: the pod object is patched,
 * not recreated) or an edit of a static pod's manifest, which containers a kubelet of a given
 * release kills and recreates, and why. The running containers are assumed to have been created by
 * this same kubelet from the old spec; their runtime states come from `options.podStatus` when given.
 */
import { formatHash } from '../hash/format.js';
import type { ReleaseInfo } from '../releases/index.js';
import type { ChangedRule } from './changed-rule.js';
import type { PodRestartPolicy, Verdict } from './decide.js';
import { decidePod, type MemberVerdict, type PodMember, type PodVerdict } from './decide-pod.js';
import {
  resolveRuleOptionFields,
  type FeatureGates,
  type KubeletChoice,
  type ResolvedGates,
  type StoredHashReading,
} from './options.js';
import { containerRole, type ContainerRole } from './container-role.js';
import { hashesFor, type ReleaseHashes } from '../hash/hashes-for.js';
import type { PodInput } from '../pod/input-types.js';
import { findPodSpec, locateContainers, type ContainerList, type LocatedContainer } from '../pod/locate.js';
import { diffGoValues } from '../go/value-diff.js';
import { isPlainObject } from '../decode/input.js';
import { restartRule, type RestartRuleId } from './restart-rules.js';
import { readPodStatus, type PodFacts, type ProbeResult, type RuntimeFacts } from './runtime-state.js';
import { readSandbox, type SandboxInput } from './sandbox-state.js';
import { OptionError } from '../errors.js';
import { readOptionFields, type OptionFields } from '../option-fields.js';
import { manifestEditRecreates } from './static-pod.js';

/**
 * Options of {@link predictRestarts}: the kubelet to reproduce and how it runs the pod.
 *
 * @example
 * ```ts
 * import { predictRestarts, type PredictRestartsOptions } from 'kubelet-hash';
 *
 * const options: PredictRestartsOptions = { kubeletVersion: '1.29', featureGates: { InPlacePodVerticalScaling: true } };
 * const pod = (cpu: string) => ({ spec: { containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu } } }] } });
 * predictRestarts(pod('500m'), pod('1'), options).restarts; // → 0
 * predictRestarts(pod('500m'), pod('1'), { kubeletVersion: '1.29' }).restarts; // → 1
 * ```
 *
 * @group Kubelet decisions
 */
export interface PredictRestartsOptions extends KubeletChoice {
  /** The kubelet's feature gates (booleans or Go's bool text); unset gates take the release's default. */
  featureGates?: FeatureGates;
  /**
   * A static (file/http) pod: give the manifests as they are on disk. Without `metadata.uid`, any
   * edit gives the pod a new UID and every container restarts; in-place resize never applies.
   */
  staticPod?: boolean;
  /**
   * The running pod's `status` (e.g. `oldPod.status`): container states, `started`, `resources`,
   * and the `Initialized` and `PodReadyToStartContainers` conditions. Without it, every container is assumed running, the pod initialised, the
   * sandbox ready, and running resources equal to the old spec's (each entry lists its
   * assumptions). An entry may give `state: 'absent'` for a container the runtime does not have;
   * an ephemeral container without an entry is taken as not created yet.
   */
  podStatus?: unknown;
  /** The pod's sandbox as the runtime reports it (a node agent); else the PodReadyToStartContainers condition, else assumed ready. */
  sandbox?: SandboxInput;
  /**
   * The kubelet's latest probe results by container name (its prober's cache, which no API status
   * shows): a `failure` kills the container. Containers with a probe and no result given are
   * assumed not failed, and their entries say so.
   */
  probes?: Readonly<Record<string, ProbeResults>>;
  /** Accepted for symmetry with `containerChanged`; stored hashes are computed here, never read. */
  storedHashReading?: StoredHashReading;
}

/**
 * The kubelet prober's latest results for one container.
 *
 * @example
 * ```ts
 * import { predictRestarts, type ProbeResults } from 'kubelet-hash';
 * const pod = { spec: { restartPolicy: 'Never', containers: [{ name: 'web', image: 'nginx', livenessProbe: { tcpSocket: { port: 80 } } }] } };
 * const web: ProbeResults = { livenessProbe: 'failure' };
 * // Killed for the failed probe and, under restartPolicy Never, not started again.
 * predictRestarts(pod, pod, { kubeletVersion: '1.31', probes: { web } }).containers[0]!.action; // → 'kill'
 * ```
 *
 * @group Kubelet decisions
 */
export interface ProbeResults {
  /** The latest liveness probe result: `failure` kills the container (and restarts it unless the policy says Never). */
  livenessProbe?: ProbeResult;
  /** The latest startup probe result (1.16+): `failure` as for liveness. */
  startupProbe?: ProbeResult;
}

/**
 * What the kubelet does with a container: `restart` (kill and recreate), `keep` (leave as it is),
 * `start` (only in the new spec, or not running and started again), `remove` (only in the old
 * spec: killed), `deferred` (not looked at yet: the pod is initialising, or a sidecar's startup
 * probe is pending), `stays-stopped` (not running and not started again), `kill` (killed in this
 * sync: after a failed probe under restartPolicy Never it stays down; when the whole pod is killed
 * to recreate its sandbox, the new sandbox's later syncs start its containers again, regular ones
 * once the init containers are done).
 *
 * @example
 * ```ts
 * import { predictRestarts, type PredictedAction } from 'kubelet-hash';
 *
 * const before = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] } };
 * const after = { spec: { containers: [{ name: 'a', image: 'y' }, { name: 'c', image: 'x' }] } };
 * const actions: PredictedAction[] = predictRestarts(before, after, { kubeletVersion: '1.31' }).containers.map((c) => c.action);
 * actions; // → ['restart', 'start', 'remove']
 * // A stopped container of a Never pod is not started again, whatever its spec says.
 * const status = { containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0 } } }] };
 * const never = { spec: { ...after.spec, restartPolicy: 'Never' } };
 * predictRestarts(before, never, { kubeletVersion: '1.31', podStatus: status }).containers[0]!.action; // → 'stays-stopped'
 * ```
 *
 * @group Kubelet decisions
 */
export type PredictedAction = 'restart' | 'keep' | 'start' | 'remove' | 'deferred' | 'stays-stopped' | 'kill';

/**
 * The prediction for one container, matched across the two specs by list and name.
 *
 * @example
 * ```ts
 * import { predictRestarts, type PredictedContainer } from 'kubelet-hash';
 *
 * const before = { spec: { containers: [{ name: 'log', image: 'busybox:1.36' }] } };
 * const after = { spec: { containers: [{ name: 'log', image: 'busybox:1.36', env: [{ name: 'A', value: '1' }] }] } };
 * const [log]: PredictedContainer[] = predictRestarts(before, after, { kubeletVersion: '1.31' }).containers;
 * // 1.31+ hashes only name and image: an env change is not a restart.
 * [log!.action, log!.changes, log!.hashedChanges]; // → ['keep', ['.env'], []]
 * ```
 *
 * @group Kubelet decisions
 */
export interface PredictedContainer {
  /** The pod-spec list the container is in. */
  list: ContainerList;
  /** The container's name. */
  name: string;
  /** How the kubelet treats it (`container`, `sidecar`, `init`, `ephemeral`), from the new spec when present. */
  role: ContainerRole;
  /** What the kubelet does with it. */
  action: PredictedAction;
  /** One line for people: the rule applied and the changed fields. */
  reason: string;
  /** The comparison the kubelet applied; absent for `start` and `remove` of containers in one spec only. */
  rule?: ChangedRule;
  /** The row of the restart-rule table that decided (absent for containers in one spec only). */
  ruleId?: RestartRuleId;
  /** That rule's kubelet source, `path@tag (function)`. */
  ruleSource?: string;
  /** What was assumed for facts not given. */
  assumptions: string[];
  /** Set when the kubelet kills this container in this sync (to restart it, for good, or first because its state is unknown). */
  kills?: true;
  /** The hash the running container stores: what this kubelet computed for the old spec (lowercase hex). */
  storedHash?: string;
  /** The hash the kubelet computes for the new spec (lowercase hex); absent for `start` and `remove`. */
  expectedHash?: string;
  /** Every field that differs between the old and new spec, as the kubelet decodes them. */
  changes: string[];
  /** The subset of `changes` this release's hash covers (1.31+: only name and image). */
  hashedChanges: string[];
}

/**
 * What {@link predictRestarts} found for one pod update.
 *
 * @example
 * ```ts
 * import { predictRestarts, type RestartPrediction } from 'kubelet-hash';
 *
 * const pod = { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
 * const prediction: RestartPrediction = predictRestarts(pod, pod, { kubeletVersion: 'v1.31.2' });
 * [prediction.release, prediction.restarts]; // → ['1.31', 0]
 * ```
 *
 * @group Kubelet decisions
 */
export interface RestartPrediction {
  /** The kubelet minor release the prediction is for (`1.31`). */
  release: string;
  /** One entry per container: the new spec's in document order, then those only in the old spec. */
  containers: PredictedContainer[];
  /** How many running containers the kubelet kills and recreates. */
  restarts: number;
  /** What the kubelet does with the pod as a whole (its sandbox), and why. */
  pod: PodVerdict;
  /** A static pod whose manifest edit gives it a new UID: the whole pod is recreated. */
  podRecreated: boolean;
  /** Why the pod is (or is not) recreated; set for static pods. */
  podReason?: string;
}

/** The probe results a caller may give per container (the kubelet's prober cache). */
const PROBE_FIELDS = {
  livenessProbe: ['success', 'failure'],
  startupProbe: ['success', 'failure'],
} as const satisfies OptionFields;

/**
 * Compares the containers of `oldPodSpec` and `newPodSpec` (Pods, pod specs, or workloads with a
 * pod template), matched by list and name. This is an in-place update as OpenKruise does it: the
 * pod object is patched, and the kubelet compares each running container (created from the old
 * spec by this same kubelet) with the new spec. Throws the errors of {@link hashContainer} and
 * {@link locateContainers}.
 *
 * @example
 * ```ts
 * import { predictRestarts } from 'kubelet-hash';
 *
 * const oldPod = { metadata: { name: 'web-0' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }, { name: 'log', image: 'busybox:1.36' }] } };
 * const newPod = {
 *   ...oldPod,
 *   spec: { containers: [{ name: 'web', image: 'nginx:1.28' }, { name: 'log', image: 'busybox:1.36', env: [{ name: 'LEVEL', value: 'debug' }] }] },
 * };
 * const restartsAt = (kubeletVersion: string) => predictRestarts(oldPod, newPod, { kubeletVersion }).containers.map((c) => `${c.name}: ${c.action}`);
 * restartsAt('1.29'); // → ['web: restart', 'log: restart']
 * // From 1.31 the kubelet hashes only name and image: the env change no longer restarts `log`.
 * restartsAt('1.31'); // → ['web: restart', 'log: keep']
 * ```
 *
 * @group Kubelet decisions
 */
export function predictRestarts(
  oldPodSpec: PodInput,
  newPodSpec: PodInput,
  options: PredictRestartsOptions,
): RestartPrediction {
  const { opts, info, gates, toolchain } = resolveRuleOptionFields(
    { podStatus: 'unknown', sandbox: 'object', probes: 'object' },
    options,
    '{ kubeletVersion: "1.31" }',
  );
  const before = locateContainers(oldPodSpec);
  const after = locateContainers(newPodSpec);
  // Every container checked as hashContainer checks one (decode, then name), the old spec first.
  const hashes = new Map<LocatedContainer, ReleaseHashes>();
  for (const c of [...before, ...after])
    hashes.set(c, hashesFor(c.container, info, opts.jsonEscapes, { shape: false, requireName: true, path: c.path }));
  const facts = opts.podStatus !== undefined ? readPodStatus(opts.podStatus, ['options', 'podStatus']) : undefined;
  const sandbox = opts.sandbox !== undefined ? readSandbox(opts.sandbox, ['options', 'sandbox']) : undefined;
  const probes = readProbes(opts.probes, after);
  const staticPod = opts.staticPod ?? false;
  const pod = staticPod ? manifestEditRecreates(oldPodSpec, newPodSpec) : { recreated: false, reason: '' };
  const restartPolicy = restartPolicyOf(newPodSpec);
  const key = (c: LocatedContainer): string => `${c.list}/${c.name}`;
  const oldByKey = new Map(before.map((c) => [key(c), c]));
  const newKeys = new Set(after.map(key));
  const podResources = { now: podResourcesOf(newPodSpec), old: podResourcesOf(oldPodSpec) };
  const ctx: Context = { info, gates, staticPod, hashes, facts, restartPolicy, toolchain, podResources };

  // One pod decision over the new spec: the running containers store the old spec's hashes.
  const members: PodMember[] = after.map((c) => member(ctx, c, oldByKey.get(key(c)), probes.get(c.name)));
  const decision = decidePod({
    info,
    gates,
    staticPod,
    restartPolicy,
    hostNetwork: hostNetworkOf(newPodSpec),
    members,
    sandbox,
    sandboxReady: facts?.sandboxReady,
    initialized: facts?.initialized,
    allContainersRestarting: facts?.allContainersRestarting,
  });
  const out: PredictedContainer[] = [];
  for (const [i, c] of after.entries()) {
    const role = members[i]!.role;
    const v = decision.containers[i]!;
    const old = oldByKey.get(key(c));
    if (!old && v.action === 'start') {
      out.push({
        list: c.list,
        name: c.name,
        role,
        action: 'start',
        reason: 'not in the old spec: there is no running container to compare, it is started',
        assumptions: [],
        changes: [],
        hashedChanges: [],
      });
      continue;
    }
    const p = describe(ctx, role, old ?? c, c, v, members[i]!.input.runtime);
    if (pod.recreated && role !== 'ephemeral') {
      p.action = 'restart';
      p.ruleId = 'static-pod-manifest-edit';
      p.ruleSource = restartRule('static-pod-manifest-edit').source;
      p.reason = `${pod.reason}; per container: ${p.reason}`;
    }
    out.push(p);
  }
  for (const c of before) {
    if (newKeys.has(key(c))) continue;
    out.push({
      list: c.list,
      name: c.name,
      role: containerRole(c.list, c.container),
      action: 'remove',
      reason: 'not in the new spec: the running container is killed',
      assumptions: [],
      changes: [],
      hashedChanges: [],
    });
  }
  const result: RestartPrediction = {
    release: info.release,
    containers: out,
    restarts: out.filter((c) => c.action === 'restart').length,
    pod: decision.pod,
    podRecreated: pod.recreated,
  };
  if (staticPod) result.podReason = pod.reason;
  return result;
}

function hostNetworkOf(doc: unknown): boolean {
  const found = isPlainObject(doc) ? findPodSpec(doc) : null;
  return found?.spec['hostNetwork'] === true;
}

/** `options.probes`: each entry names a container of the new spec and gives known results. */
function readProbes(input: Record<string, unknown> | undefined, after: readonly LocatedContainer[]) {
  const out = new Map<string, ProbeResults>();
  if (input === undefined) return out;
  const names = new Set(after.map((c) => c.name));
  for (const [name, value] of Object.entries(input)) {
    if (!names.has(name)) {
      throw new OptionError(
        'INVALID_OPTION',
        ['options', 'probes', name],
        'the name of a container of the new spec',
        `found ${JSON.stringify(name)}`,
      );
    }
    out.set(
      name,
      readOptionFields(value, ['options', 'probes', name], {
        fields: PROBE_FIELDS,
        expected: "probe results: { livenessProbe?: 'success' | 'failure', startupProbe?: 'success' | 'failure' }",
      }),
    );
  }
  return out;
}

/** One container of the new spec as the pod decision takes it. */
function member(
  ctx: Context,
  now: LocatedContainer,
  old: LocatedContainer | undefined,
  probes: ProbeResults | undefined,
): PodMember {
  const { info, gates } = ctx;
  const computed = ctx.hashes.get(now)!;
  const stored = ctx.hashes.get(old ?? now)!;
  // The without-resources hash is only written when the gate was on when the container started.
  const writesWr = info.hashWithoutResources && gates.inPlaceResize;
  const given = ctx.facts?.containers.get(now.name);
  // A container the old spec lacks has no container yet; so has an ephemeral container the status
  // does not list (the apiserver added it, the kubelet has not created it).
  const absent = !old || (ctx.facts !== undefined && given === undefined && now.list === 'ephemeralContainers');
  const runtime: RuntimeFacts = { ...(given ?? (absent ? { state: 'absent' as const } : {})), ...(probes ?? {}) };
  return {
    list: now.list,
    name: now.name,
    role: containerRole(now.list, now.container),
    input: {
      expected: computed.hash,
      stored: stored.hash,
      expectedWithoutResources: () => computed.withoutResources(),
      storedWithoutResources: writesWr ? stored.withoutResources() : 0n,
      container: now.container,
      path: now.path,
      runtime,
      ...(old ? { fallbackResources: { resources: old.container['resources'], from: 'the old spec' } } : {}),
      podResources: { desired: ctx.podResources.now, old: ctx.podResources.old },
    },
  };
}

interface Context {
  info: ReleaseInfo;
  gates: ResolvedGates;
  staticPod: boolean;
  /** Each located container's hashes, computed (and so checked) up front. */
  hashes: ReadonlyMap<LocatedContainer, ReleaseHashes>;
  facts: PodFacts | undefined;
  restartPolicy: PodRestartPolicy | undefined;
  /** Set when the patch table chose the escapes (said in each compared container's assumptions). */
  toolchain: string | undefined;
  /** `spec.resources` (pod-level resources) of the new and the old spec. */
  podResources: { now: unknown; old: unknown };
}

/** `spec.resources` (pod-level resources) of a Pod, pod spec or template. */
function podResourcesOf(doc: unknown): unknown {
  return (isPlainObject(doc) ? findPodSpec(doc) : null)?.spec['resources'];
}

/** `spec.restartPolicy` of a Pod, pod spec or template, when set to a known value. */
function restartPolicyOf(doc: unknown): PodRestartPolicy | undefined {
  const found = isPlainObject(doc) ? findPodSpec(doc) : null;
  const p = found?.spec['restartPolicy'];
  return p === 'Always' || p === 'OnFailure' || p === 'Never' ? p : p === undefined ? 'Always' : undefined;
}

function describe(
  ctx: Context,
  role: ContainerRole,
  old: LocatedContainer,
  now: LocatedContainer,
  v: MemberVerdict | Verdict,
  runtime: RuntimeFacts,
): PredictedContainer {
  const { info } = ctx;
  const stored = ctx.hashes.get(old)!;
  const computed = ctx.hashes.get(now)!;
  const assumptions = [...v.assumptions];
  if (ctx.facts && !ctx.facts.containers.has(now.name) && runtime.state !== 'absent')
    assumptions.unshift('no status for this container in podStatus');
  const p = computed.pipeline;
  const changes = diffGoValues(p.root, p.decodeFull(old.container), p.decodeFull(now.container));
  const hashedChanges = info.algorithm === 'name-image' ? changes.filter((c) => /^\.(name|image)$/.test(c)) : changes;
  let reason = v.reason;
  if (hashedChanges.length > 0) reason += `; changed: ${hashedChanges.join(', ')}`;
  const unhashed = changes.filter((c) => !hashedChanges.includes(c));
  if (unhashed.length > 0)
    reason += `; not hashed by ${info.release} (only name and image are): ${unhashed.join(', ')}`;
  const out: PredictedContainer = {
    list: now.list,
    name: now.name,
    role,
    action: v.action,
    reason,
    rule: v.comparison,
    ruleId: v.ruleId,
    ruleSource: v.ruleSource,
    assumptions: ctx.toolchain === undefined ? assumptions : [...assumptions, ctx.toolchain],
    storedHash: formatHash(stored.hash),
    expectedHash: formatHash(computed.hash),
    changes,
    hashedChanges,
  };
  if ('kills' in v && v.kills) out.kills = true;
  return out;
}
