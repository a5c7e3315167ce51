/**
 * The kubelet's decision for one container of a pod it is syncing, rule by rule in the kubelet's
 * order (RESTART_RULES): the pod's sandbox and, across a kubelet upgrade, a static pod's UID (both
 * recreate the whole pod), then role, running state, initialisation, sidecar startup probe, hash, resize.
 * Each verdict carries the rule that decided, its source, and what was assumed for facts the
 * caller did not give.
 */
import type { JsonPathSegment } from '../errors.js';
import type { ReleaseInfo } from '../releases/index.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import { applyChangedRule, type ChangedRule, type RuleInput } from './changed-rule.js';
import type { ContainerRole } from './container-role.js';
import { containerShouldRestart } from './container-restart-policy.js';
import { resizeOutcome } from './resize-rule.js';
import { restartRule, ruleHolds, type RestartRuleId } from './restart-rules.js';
import type { RuntimeFacts } from './runtime-state.js';

/**
 * What the kubelet does with a container: `restart` (kill and recreate), `keep` (leave it as it
 * is), `deferred` (not compared yet: the decision waits for initialisation or a startup probe),
 * `start` (not running: started again from the current spec), `stays-stopped` (not running and
 * not started again), `kill` (killed in this sync: after a failed probe under restartPolicy Never
 * it stays down; when the whole pod is killed to recreate its sandbox, later syncs start its
 * containers again in the new sandbox).
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerAction } from 'kubelet-hash';
 * const c = { name: 'job', image: 'busybox:2' };
 * const opts = { kubeletVersion: '1.30', state: { state: 'exited' as const, exitCode: 0 }, restartPolicy: 'OnFailure' as const };
 * const action: ContainerAction = containerChanged(c, { hash: '1' }, opts).action;
 * action; // → 'stays-stopped'
 * ```
 *
 * @group Kubelet decisions
 */
export type ContainerAction = 'restart' | 'keep' | 'deferred' | 'start' | 'stays-stopped' | 'kill';

/**
 * A pod's restart policy (`spec.restartPolicy`): decides what happens to a container that is not running.
 *
 * @example
 * ```ts
 * import { containerChanged, type PodRestartPolicy } from 'kubelet-hash';
 * const c = { name: 'job', image: 'busybox:2' };
 * const after = (restartPolicy: PodRestartPolicy) =>
 *   containerChanged(c, { hash: '1' }, { kubeletVersion: '1.30', state: { state: 'exited', exitCode: 1 }, restartPolicy }).action;
 * [after('Always'), after('OnFailure'), after('Never')]; // → ['start', 'start', 'stays-stopped']
 * ```
 *
 * @group Kubelet decisions
 */
export type PodRestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** Everything the decision reads about one container. */
export interface DecisionInput extends Omit<RuleInput, 'staticPod'> {
  staticPod: boolean;
  /** The container's spec (JSON value) the kubelet syncs to. */
  container: unknown;
  path: JsonPathSegment[];
  runtime: RuntimeFacts;
  /** The pod's Initialized condition, when known. */
  podInitialized?: boolean;
  /** The pod's restartPolicy, when known (Always otherwise, said in the assumptions). */
  restartPolicy?: PodRestartPolicy;
  /** Where the current resources came from when `runtime.resources` is not given (e.g. "the old spec"). */
  fallbackResources?: { resources: unknown; from: string };
  /** The pod's `spec.resources` (pod-level) the kubelet syncs to, and the old spec's (taken as running with `fallbackResources`). */
  podResources?: { desired: unknown; old?: unknown };
  /**
   * What the runtime's persisted sandbox shows the kubelet's `podSandboxChanged`: why it makes a
   * new sandbox, or `null` when the sandbox fits. Absent: not known (not checked).
   */
  sandboxChange?: string | null;
  /** A kubelet restarting into `info`'s release from this one (an upgrade being planned). */
  upgradeFrom?: ReleaseInfo;
  /** A static pod's UID survives a kubelet minor upgrade: its manifest sets metadata.uid, or it cannot be a generated one. */
  staticUidFixed?: boolean;
}

/** The decision for one container. */
export interface Verdict {
  action: ContainerAction;
  /** The rule that decided (a row of RESTART_RULES). */
  ruleId: RestartRuleId;
  /** That rule's kubelet source. */
  ruleSource: string;
  /** The hash comparison applied (or `not-compared`). */
  comparison: ChangedRule;
  hashDiffers: boolean;
  reason: string;
  /** Facts the caller did not give and the decision assumed. */
  assumptions: string[];
  withoutResources?: { expected: bigint; stored: bigint };
  /** The rule recreates the whole pod (new sandbox or new UID), not this container alone. */
  recreatesPod: boolean;
  /** Not compared by this release, but by a later one (the rule's releases end): the hash matters later. */
  comparedLater: boolean;
  /**
   * Set on a `keep` that a missing input could turn into a restart, saying which: the resize rule
   * not evaluated (no status resources) for a container whose resizePolicy restarts it. A plan says
   * `unknown` for it rather than keep.
   */
  openOn?: string;
}

/** A verdict of rule `ruleId` (the pod-level decision builds its own through this too). */
export function verdict(
  ruleId: RestartRuleId,
  action: ContainerAction,
  reason: string,
  extra: Omit<Verdict, 'ruleId' | 'ruleSource' | 'action' | 'reason' | 'recreatesPod' | 'comparedLater'>,
): Verdict {
  const rule = restartRule(ruleId);
  return {
    action,
    ruleId,
    ruleSource: rule.source,
    reason,
    ...extra,
    recreatesPod: ruleId === 'pod-sandbox-changed' || ruleId === 'static-pod-kubelet-upgrade',
    comparedLater: extra.comparison === 'not-compared' && action === 'keep' && rule.lastMinor !== null,
  };
}

/** A resizePolicy entry with restartPolicy RestartContainer: a resize of that resource restarts the container. */
function restartsOnResize(container: unknown): boolean {
  const policy = isPlainObject(container) ? memberOf(container, 'resizePolicy') : undefined;
  return (
    Array.isArray(policy) && policy.some((p) => isPlainObject(p) && memberOf(p, 'restartPolicy') === 'RestartContainer')
  );
}

/** `ShouldContainerBeRestarted` (pkg/kubelet/container/helpers.go), and sidecars always restart. */
function startsAgain(role: ContainerRole, state: RuntimeFacts, policy: PodRestartPolicy): boolean {
  if (state.state === 'created' || state.state === 'unknown' || state.state === 'absent') return true;
  if (role === 'sidecar') return true;
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return state.exitCode !== 0;
  return true;
}

function hasStartupProbe(container: unknown): boolean {
  return isPlainObject(container) && isPlainObject(memberOf(container, 'startupProbe'));
}

/**
 * The failed probe the kubelet acts on (liveness first, then startup from 1.16, as
 * computePodActions asks its probe managers), or undefined; a probe the spec has but whose result
 * was not given is assumed not failed, and said.
 */
function failedProbe(d: DecisionInput, assumptions: string[]): 'liveness' | 'startup' | undefined {
  if (d.runtime.livenessProbe === 'failure') return 'liveness';
  if (d.info.minor >= 16 && d.runtime.startupProbe === 'failure') return 'startup';
  const has = (k: string): boolean => isPlainObject(d.container) && isPlainObject(memberOf(d.container, k));
  if (has('livenessProbe') && d.runtime.livenessProbe === undefined)
    assumptions.push('its liveness probe has not failed (no probe result given: a failure kills it)');
  if (d.info.minor >= 16 && has('startupProbe') && d.runtime.startupProbe === undefined)
    assumptions.push('its startup probe has not failed (no probe result given: a failure kills it)');
  return undefined;
}

/** After a failed probe: the pod's restartPolicy decides, or from 1.34 (ContainerRestartRules) the container's own. */
function restartsAfterProbe(d: DecisionInput, assumptions: string[]): { restart: boolean; why: string } {
  const own = isPlainObject(d.container) ? memberOf(d.container, 'restartPolicy') : undefined;
  if (d.gates.containerRestartRules && d.info.minor >= 34 && typeof own === 'string')
    return { restart: own !== 'Never', why: `the container's own restartPolicy ${own}` };
  if (d.restartPolicy === undefined) assumptions.push('the pod restartPolicy is Always (none given)');
  const policy = d.restartPolicy ?? 'Always';
  return { restart: policy !== 'Never', why: `restartPolicy ${policy}` };
}

/** The kubelet's decision for one container (see the module comment). */
export function decide(d: DecisionInput): Verdict {
  const assumptions: string[] = [];
  const hashDiffers = d.expected !== d.stored;
  const base = { comparison: 'not-compared' as ChangedRule, hashDiffers, assumptions };

  // Pod-level rows first: computePodActions kills the whole pod for a changed sandbox before it
  // looks at any container, and a static pod with a new UID is another pod.
  if (typeof d.sandboxChange === 'string') {
    return verdict(
      'pod-sandbox-changed',
      'restart',
      `${d.sandboxChange}: the kubelet recreates the whole pod (PodSandboxChanged), whatever the hashes`,
      base,
    );
  }
  if (d.staticPod && d.upgradeFrom !== undefined && d.upgradeFrom.minor !== d.info.minor && d.staticUidFixed !== true) {
    return verdict(
      'static-pod-kubelet-upgrade',
      'restart',
      `its UID is generated from the manifest and the kubelet's internal Pod types, which change between ${d.upgradeFrom.release} and ${d.info.release}; the ${d.info.release} kubelet recreates the whole pod`,
      base,
    );
  }

  // Roles the kubelet never compares: the hash comparison step says why.
  // A running sidecar of 1.28–1.31 is not compared, but a stopped one is still restarted: that
  // verdict waits until after the running-state step.
  const notCompared = applyChangedRule({
    ...d,
    expected: d.stored,
    expectedWithoutResources: () => d.storedWithoutResources,
  });
  const sidecarNotCompared = notCompared.ruleId === 'sidecar-not-compared';
  if (notCompared.rule === 'not-compared' && !sidecarNotCompared)
    return verdict(notCompared.ruleId, 'keep', notCompared.reason, base);

  // Running state: hashes are compared only for running containers.
  if (d.runtime.state === undefined) {
    assumptions.push('the container is running (no state given)');
  } else if (d.runtime.state !== 'running') {
    const policy = d.restartPolicy ?? 'Always';
    if (d.restartPolicy === undefined) assumptions.push('the pod restartPolicy is Always (none given)');
    const s = d.runtime.state;
    const what =
      s === 'exited' ? `exited${d.runtime.exitCode !== undefined ? ` with code ${d.runtime.exitCode}` : ''}` : s;
    // 1.34+ with ContainerRestartRules: an exited regular container's own policy wins over the pod's.
    const own =
      s === 'exited' && ruleHolds('not-running-container-policy', d.info, d.gates, d.role, d.staticPod)
        ? containerShouldRestart(d.container, d.runtime.exitCode, d.gates.restartAllContainers)
        : undefined;
    if (own !== undefined) {
      if (d.restartPolicy === undefined) assumptions.pop(); // the pod's policy is not used
      if (d.runtime.exitCode === undefined)
        assumptions.push('the exit code is unknown: no restartPolicyRules entry matched');
      return verdict(
        'not-running-container-policy',
        own.restart ? 'start' : 'stays-stopped',
        own.restart
          ? `not running (${what}): started again from the current spec (${own.why}), not for a definition change`
          : `not running (${what}) and ${own.why}: the kubelet does not start it again, whatever its definition`,
        base,
      );
    }
    if (startsAgain(d.role, d.runtime, policy)) {
      const kill = s === 'unknown' ? 'killed (state unknown) and ' : '';
      if (s === 'absent') {
        return verdict(
          'not-running',
          'start',
          'the runtime has no container of this name: it is started from the current spec, whatever the restart policy',
          base,
        );
      }
      return verdict(
        'not-running',
        'start',
        `not running (${what}): ${kill}started again from the current spec (restartPolicy ${policy}${d.role === 'sidecar' ? '; sidecars always restart' : ''}), not for a definition change`,
        base,
      );
    }
    return verdict(
      'not-running',
      'stays-stopped',
      `not running (${what}) and restartPolicy ${policy}: the kubelet does not start it again, whatever its definition`,
      base,
    );
  }

  if (sidecarNotCompared) return verdict(notCompared.ruleId, 'keep', notCompared.reason, base);

  if (d.role === 'container') {
    if (d.podInitialized === false) {
      return verdict(
        'pod-not-initialised',
        'deferred',
        'the pod has not initialised: the kubelet compares regular containers only after initialisation',
        base,
      );
    }
    if (d.podInitialized === undefined) assumptions.push('the pod has initialised (no pod status given)');
  }

  if (
    d.role === 'sidecar' &&
    ruleHolds('sidecar-startup-probe-deferral', d.info, d.gates, d.role, d.staticPod) &&
    hasStartupProbe(d.container)
  ) {
    if (d.runtime.started === false) {
      return verdict(
        'sidecar-startup-probe-deferral',
        'deferred',
        `sidecar with a startupProbe that has not succeeded: the kubelet compares its hash only after the probe succeeds (${
          d.gates.statusOnRestart
            ? 'after a kubelet restart, once the probe has run again'
            : 'a restarted kubelet takes a started sidecar as started: ChangeContainerStatusOnKubeletRestart off, prober/worker.go at v1.35.4'
        })`,
        base,
      );
    }
    if (d.runtime.started === undefined) {
      assumptions.push(
        d.gates.statusOnRestart
          ? 'its startupProbe has succeeded and the kubelet holds the result (otherwise the restart is deferred until it does)'
          : 'its startupProbe has succeeded (a restarted kubelet keeps a started sidecar started: ChangeContainerStatusOnKubeletRestart off; otherwise the restart is deferred until it does)',
      );
    }
  }

  const outcome = applyChangedRule(d);
  const compared = {
    comparison: outcome.rule,
    hashDiffers,
    assumptions,
    ...(outcome.withoutResources ? { withoutResources: outcome.withoutResources } : {}),
  };
  if (outcome.changed) return verdict(outcome.ruleId, 'restart', outcome.reason, compared);

  const probe = d.role === 'container' ? failedProbe(d, assumptions) : undefined;
  if (probe !== undefined) {
    const again = restartsAfterProbe(d, assumptions);
    return verdict(
      'probe-failed',
      again.restart ? 'restart' : 'kill',
      `its ${probe} probe failed: the kubelet kills it${again.restart ? ' and starts it again' : ''} (${again.why})`,
      compared,
    );
  }

  const resizeRule: RestartRuleId = d.role === 'sidecar' ? 'resize-policy-sidecar' : 'resize-policy';
  if (!ruleHolds(resizeRule, d.info, d.gates, d.role, d.staticPod))
    return verdict(outcome.ruleId, 'keep', outcome.reason, compared);

  let current = d.runtime.resources;
  let fromFallback = false;
  if (current === undefined && d.fallbackResources) {
    fromFallback = true;
    current = d.fallbackResources.resources ?? {};
    assumptions.push(
      `the running container has the resources of ${d.fallbackResources.from} (no container status resources given)`,
    );
  }
  if (current === undefined) {
    assumptions.push(
      'the running container has the resources of its spec (no status resources given): the resize rule was not evaluated',
    );
    const kept = verdict(outcome.ruleId, 'keep', outcome.reason, compared);
    if (restartsOnResize(d.container))
      kept.openOn =
        "the running container's resources (ContainerStatus.resources): its resizePolicy restarts it when they differ from the spec";
    return kept;
  }
  // 1.35+ with InPlacePodLevelResourcesVerticalScaling: limits the container does not set are the pod's.
  const podLevel =
    d.gates.podLevelResize && d.podResources
      ? { desired: d.podResources.desired, ...(fromFallback ? { current: d.podResources.old } : {}) }
      : undefined;
  const resize = resizeOutcome(d.info, d.container, current, d.path, podLevel);
  if (resize.skipped) return verdict(outcome.ruleId, 'keep', `${outcome.reason}; ${resize.skipped}`, compared);
  if (resize.changes.length === 0)
    return verdict(outcome.ruleId, 'keep', `${outcome.reason}; resources as running`, compared);
  assumptions.push('the kubelet admitted the resize (it fits the node)');
  if (resize.restart) {
    return verdict(resizeRule, 'restart', `resize requires restart: ${resize.changes.join('; ')}`, compared);
  }
  return verdict(resizeRule, 'keep', `${outcome.reason}; resized in place: ${resize.changes.join('; ')}`, compared);
}
