/**
 * `predictRestarts`: for an in-place update of a pod (OpenKruise style: the pod object is patched,
 * not recreated) or an edit of a static pod's manifest, which containers a kubelet of a given
 * release kills and recreates, and why. The running containers are assumed to have been created by
 * this same kubelet from the old spec; their runtime states come from `options.podStatus` when given.
 */
import { formatHash } from '../hash/format.js';
import type { ReleaseInfo } from '../registry/registry.js';
import type { ChangedRule } from './changed-rule.js';
import { decide, type PodRestartPolicy } from './decide.js';
import { resolveRuleOptionFields, type FeatureGates, type ResolvedGates, type StoredHashReading } from './options.js';
import { containerRole, type ContainerRole } from './container-role.js';
import { hashesFor, type ReleaseHashes } from '../hash/hashes-for.js';
import type { HashOptions } from '../hash/options.js';
import type { PodInput } from '../pod/input-types.js';
import { findPodSpec, locateContainers, type ContainerList, type LocatedContainer } from '../pod/locate.js';
import { diffGoValues } from '../go/value-diff.js';
import { isPlainObject } from '../decode/input.js';
import { restartRule, type RestartRuleId } from './restart-rules.js';
import { readPodStatus, type PodFacts } from './runtime-state.js';
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
export interface PredictRestartsOptions extends HashOptions {
  /** The kubelet's feature gates (booleans or Go's bool text); unset gates take the release's default. */
  featureGates?: FeatureGates;
  /**
   * A static (file/http) pod: give the manifests as they are on disk. Without `metadata.uid`, any
   * edit gives the pod a new UID and every container restarts; in-place resize never applies.
   */
  staticPod?: boolean;
  /**
   * The running pod's `status` (e.g. `oldPod.status`): container states, `started`, `resources`
   * and the `Initialized` condition. Without it, every container is assumed running, the pod
   * initialised, and running resources equal to the old spec's (each entry lists its assumptions).
   */
  podStatus?: unknown;
  /** Accepted for symmetry with `containerChanged`; stored hashes are computed here, never read. */
  storedHashReading?: StoredHashReading;
}

/**
 * What the kubelet does with a container: `restart` (kill and recreate), `keep` (leave running),
 * `start` (only in the new spec, or not running and started again), `remove` (only in the old
 * spec: killed), `deferred` (compared later: pod not initialised, or a sidecar's startup probe
 * pending), `stays-stopped` (not running and not started again).
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
export type PredictedAction = 'restart' | 'keep' | 'start' | 'remove' | 'deferred' | 'stays-stopped';

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
  /** A static pod whose manifest edit gives it a new UID: the whole pod is recreated. */
  podRecreated: boolean;
  /** Why the pod is (or is not) recreated; set for static pods. */
  podReason?: string;
}

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
    { podStatus: 'unknown' },
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
  const staticPod = opts.staticPod ?? false;
  const pod = staticPod ? manifestEditRecreates(oldPodSpec, newPodSpec) : { recreated: false, reason: '' };
  const restartPolicy = restartPolicyOf(newPodSpec);
  const key = (c: LocatedContainer): string => `${c.list}/${c.name}`;
  const oldByKey = new Map(before.map((c) => [key(c), c]));
  const newKeys = new Set(after.map(key));
  const out: PredictedContainer[] = [];
  const ctx: Context = { info, gates, staticPod, hashes, facts, restartPolicy, toolchain };

  for (const c of after) {
    const role = containerRole(c.list, c.container);
    const old = oldByKey.get(key(c));
    if (!old) {
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
    const p = compare(ctx, role, old, c);
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
    podRecreated: pod.recreated,
  };
  if (staticPod) result.podReason = pod.reason;
  return result;
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
}

/** `spec.restartPolicy` of a Pod, pod spec or template, when set to a known value. */
function restartPolicyOf(doc: unknown): PodRestartPolicy | undefined {
  const found = isPlainObject(doc) ? findPodSpec(doc) : null;
  const p = found?.spec['restartPolicy'];
  return p === 'Always' || p === 'OnFailure' || p === 'Never' ? p : p === undefined ? 'Always' : undefined;
}

function compare(ctx: Context, role: ContainerRole, old: LocatedContainer, now: LocatedContainer): PredictedContainer {
  const { info, gates } = ctx;
  const stored = ctx.hashes.get(old)!;
  const computed = ctx.hashes.get(now)!;
  // The without-resources hash is only written when the gate was on when the container started.
  const writesWr = info.hashWithoutResources && gates.inPlaceResize;
  const runtime = ctx.facts?.containers.get(now.name);
  const v = decide({
    info,
    role,
    gates,
    staticPod: ctx.staticPod,
    expected: computed.hash,
    stored: stored.hash,
    expectedWithoutResources: () => computed.withoutResources(),
    storedWithoutResources: writesWr ? stored.withoutResources() : 0n,
    container: now.container,
    path: now.path,
    runtime: runtime ?? {},
    ...(ctx.facts?.initialized !== undefined ? { podInitialized: ctx.facts.initialized } : {}),
    ...(ctx.restartPolicy !== undefined ? { restartPolicy: ctx.restartPolicy } : {}),
    fallbackResources: { resources: old.container['resources'], from: 'the old spec' },
  });
  if (ctx.facts && !runtime) v.assumptions.unshift('no status for this container in podStatus');
  const p = computed.pipeline;
  const changes = diffGoValues(p.root, p.decodeFull(old.container), p.decodeFull(now.container));
  const hashedChanges = info.algorithm === 'name-image' ? changes.filter((c) => /^\.(name|image)$/.test(c)) : changes;
  let reason = v.reason;
  if (hashedChanges.length > 0) reason += `; changed: ${hashedChanges.join(', ')}`;
  const unhashed = changes.filter((c) => !hashedChanges.includes(c));
  if (unhashed.length > 0)
    reason += `; not hashed by ${info.release} (only name and image are): ${unhashed.join(', ')}`;
  return {
    list: now.list,
    name: now.name,
    role,
    action: v.action,
    reason,
    rule: v.comparison,
    ruleId: v.ruleId,
    ruleSource: v.ruleSource,
    assumptions: ctx.toolchain === undefined ? v.assumptions : [...v.assumptions, ctx.toolchain],
    storedHash: formatHash(stored.hash),
    expectedHash: formatHash(computed.hash),
    changes,
    hashedChanges,
  };
}
