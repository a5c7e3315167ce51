/**
 * The kubelet's decision for a whole pod on one sync, in computePodActions' order: the sandbox
 * (recreate, or kill a pod that is done), ephemeral containers, initialisation (init containers
 * and sidecars), then each regular container through decide(), and last the pod killed when no
 * regular container is kept or started. Every verdict names its row of RESTART_RULES. Releases
 * read: 1.13.0 (the form applied to 1.8–1.19), 1.20.2 (1.20–1.28, and the init path with
 * SidecarContainers off), 1.29.6, 1.31.14 and 1.37.2 (the sidecar path).
 */
import type { ReleaseInfo } from '../releases/index.js';
import type { ContainerList } from '../pod/locate.js';
import { decide, verdict, type DecisionInput, type PodRestartPolicy, type Verdict } from './decide.js';
import type { ContainerRole } from './container-role.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import { legacyInitProgress, sidecarInitProgress, type InitProgress } from './init-progress.js';
import type { ResolvedGates } from './options.js';
import { restartRule, ruleHolds, type RestartRuleId } from './restart-rules.js';
import { hasRestartAllRule, restartsAllContainers } from './container-restart-policy.js';
import { sandboxOutcome, type SandboxInput } from './sandbox-state.js';

/**
 * What the kubelet does with the pod as a whole on its next sync: `none`; `create-sandbox` (no
 * sandbox exists: one is made and the first containers started); `kill-and-recreate` (every
 * container and the sandbox are killed, a new sandbox is made and containers started in it);
 * `kill` (the pod is done or its initialisation failed: its containers and sandbox are killed,
 * nothing is started); `restart-all` (1.35+, a RestartAllContainers rule: every init and regular
 * container is removed, running ones killed first, and the pod starts again from its first init
 * container in the next sync, in the same sandbox).
 *
 * @example
 * ```ts
 * import { predictRestarts, type PodAction } from 'kubelet-hash';
 * const pod = { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] } };
 * const podStatus = { containerStatuses: [{ name: 'job', state: { terminated: { exitCode: 0 } } }] };
 * const action: PodAction = predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus }).pod.action;
 * action; // → 'kill'
 * ```
 *
 * @group Kubelet decisions
 */
export type PodAction = 'none' | 'create-sandbox' | 'kill-and-recreate' | 'kill' | 'restart-all';

/**
 * The pod-level part of the decision.
 *
 * @example
 * ```ts
 * import { predictRestarts, type PodVerdict } from 'kubelet-hash';
 * const pod = { spec: { containers: [{ name: 'web', image: 'nginx' }] } };
 * const podStatus = { conditions: [{ type: 'PodReadyToStartContainers', status: 'False' }] };
 * const verdict: PodVerdict = predictRestarts(pod, pod, { kubeletVersion: '1.30', podStatus }).pod;
 * [verdict.action, verdict.ruleId]; // → ['kill-and-recreate', 'pod-sandbox-changed']
 * ```
 *
 * @group Kubelet decisions
 */
export interface PodVerdict {
  /** What the kubelet does to the pod as a whole: nothing, create a sandbox, kill it and recreate, or kill it. */
  action: PodAction;
  /** The row of RESTART_RULES that decided (absent for `none`). */
  ruleId?: RestartRuleId;
  /** That rule's kubelet source. */
  ruleSource?: string;
  /** Why, in words. */
  reason: string;
  /** Facts the caller did not give and the decision assumed (the sandbox, the restart policy…). */
  assumptions: string[];
}

/** One container of the pod, with what decide() needs about it. */
export interface PodMember {
  list: ContainerList;
  name: string;
  role: ContainerRole;
  input: Omit<DecisionInput, 'info' | 'gates' | 'staticPod' | 'role' | 'podInitialized' | 'restartPolicy'>;
}

export interface PodDecisionInput {
  info: ReleaseInfo;
  gates: ResolvedGates;
  staticPod: boolean;
  /** `spec.restartPolicy` (undefined: not known, Always assumed and said). */
  restartPolicy: PodRestartPolicy | undefined;
  hostNetwork: boolean;
  /** Init containers, regular containers, ephemeral containers, each in spec order. */
  members: readonly PodMember[];
  sandbox: SandboxInput | undefined;
  /** The PodReadyToStartContainers condition, when the status carries it. */
  sandboxReady: boolean | undefined;
  /** The Initialized condition, used only when init containers' states are not all given. */
  initialized: boolean | undefined;
  /** The AllContainersRestarting condition (1.35+), when the status carries it. */
  allContainersRestarting: boolean | undefined;
}

/** A container's verdict within the pod. */
export interface MemberVerdict extends Verdict {
  /** The kubelet kills this container in this sync (before starting it again, or for good). */
  kills: boolean;
}

export interface PodDecision {
  pod: PodVerdict;
  /** In the order of `members`. */
  containers: MemberVerdict[];
}

/**
 * Running, or assumed running (no state given, as decide() assumes too); an init container without
 * a state is taken as done, with the pod initialised.
 */
const running = (m: PodMember): boolean =>
  m.input.runtime.state === 'running' || (m.input.runtime.state === undefined && m.role !== 'init');
/** Running as the runtime says (a regular container with no state given is not taken as running here). */
const runningKnown = (m: PodMember): boolean => m.input.runtime.state === 'running';
const known = (m: PodMember): boolean => m.input.runtime.state !== undefined && m.input.runtime.state !== 'absent';
const differs = (m: PodMember): boolean => m.input.expected !== m.input.stored;

function rowVerdict(id: RestartRuleId, action: Verdict['action'], reason: string, m: PodMember, kills = false) {
  return {
    ...verdict(id, action, reason, { comparison: 'not-compared', hashDiffers: differs(m), assumptions: [] }),
    kills,
  };
}

function podVerdict(action: PodAction, id: RestartRuleId | undefined, reason: string, assumptions: string[]) {
  const out: PodVerdict = { action, reason, assumptions };
  if (id !== undefined) {
    out.ruleId = id;
    out.ruleSource = restartRule(id).source;
  }
  return out;
}

/** Every running container killed with the pod, the rest left as they are. */
function killAll(
  p: PodDecisionInput,
  id: RestartRuleId,
  why: string,
  keep?: (m: PodMember) => MemberVerdict | undefined,
) {
  return p.members.map((m) =>
    running(m)
      ? rowVerdict('killed-with-pod', 'kill', `${why}: killed with the pod`, m, true)
      : (keep?.(m) ??
        rowVerdict(
          id,
          m.role === 'container' || m.role === 'sidecar' ? 'stays-stopped' : 'keep',
          `${why}: not started`,
          m,
        )),
  );
}

/** `ContainerRestartRules` (1.34+): a container's own restartPolicy, when it sets one. */
function ownPolicy(p: PodDecisionInput, m: PodMember): string | undefined {
  if (!p.gates.containerRestartRules || p.info.minor < 34) return undefined;
  const own = isPlainObject(m.input.container) ? memberOf(m.input.container, 'restartPolicy') : undefined;
  return typeof own === 'string' && m.role !== 'sidecar' ? own : undefined;
}

/**
 * Whether computePodActions walks the init containers with computeInitContainerActions (the sidecar
 * path): 1.28 whenever SidecarContainers is on; 1.29–1.32 only for a pod with a sidecar
 * (`handleRestartableInitContainers`, kuberuntime_manager.go:836@v1.31.14; from the patches 1.29.9,
 * 1.30.5 and 1.31.1 — 1.29.8, 1.30.4 and 1.31.0 take the gate alone, as 1.28); 1.33 unless
 * LegacySidecarContainers (off by default) is on for a pod without one; 1.34+ always.
 */
function sidecarPathTaken(p: PodDecisionInput): boolean {
  if (p.info.minor >= 34) return true;
  if (p.info.minor === 33) return !p.gates.legacySidecars || p.members.some((m) => m.role === 'sidecar');
  if (p.info.minor < 28 || !p.gates.sidecars) return false;
  return p.info.minor === 28 || p.members.some((m) => m.role === 'sidecar');
}

/** The whole pod's decision (see the module comment). */
export function decidePod(p: PodDecisionInput): PodDecision {
  const assumptions: string[] = [];
  const policy = p.restartPolicy ?? 'Always';
  if (p.restartPolicy === undefined) assumptions.push('the pod restartPolicy is Always (none given)');
  if ((p.info.minor >= 14 && p.info.minor <= 19) || p.info.minor < 13)
    assumptions.push(`computePodActions of ${p.info.release} was not read: 1.13.0's form is applied`);
  const sidecarPath = sidecarPathTaken(p);
  const sandbox = sandboxOutcome(p.sandbox, p.sandboxReady, p.hostNetwork);
  assumptions.push(...sandbox.assumptions);
  const reset = restartAllSource(p, assumptions);
  if (reset !== undefined) return restartAll(p, sandbox, reset, assumptions);
  if (sandbox.recreate) return recreate(p, policy, sidecarPath, sandbox.existed, sandbox.why, assumptions);

  const out = new Map<PodMember, MemberVerdict>();
  for (const m of p.members.filter((x) => x.role === 'ephemeral')) {
    if (p.info.minor >= 16 && m.input.runtime.state === 'absent') {
      out.set(m, rowVerdict('ephemeral-start', 'start', 'no container yet: the ephemeral container is started', m));
    } else {
      if (m.input.runtime.state === undefined)
        assumptions.push(`ephemeral container ${m.name} has been created (no state given)`);
      out.set(m, rowVerdict('ephemeral-never-restarted', 'keep', 'ephemeral containers are never restarted', m));
    }
  }

  const inits = p.members.filter((x) => x.role === 'init' || x.role === 'sidecar');
  const regulars = p.members.filter((x) => x.role === 'container');
  const progress = initProgress(p, policy, sidecarPath, inits, regulars, out, assumptions);
  for (const [i, m] of inits.entries()) {
    const compared = out.get(m);
    if (progress.starts.has(i)) {
      if (compared?.action === 'restart') continue; // the sidecar's own rule (hash, resize) restarts it
      const rule: RestartRuleId = sidecarPath ? 'sidecar-start' : 'init-start';
      const action = running(m) ? 'restart' : 'start';
      out.set(m, rowVerdict(rule, action, progress.why.get(i)!, m, progress.kills.has(i)));
    } else if (
      compared === undefined &&
      sidecarPath &&
      m.role === 'sidecar' &&
      m.input.runtime.state !== undefined &&
      !running(m)
    ) {
      // A stopped or not yet created sidecar the walk did not start: the init containers before it come first.
      out.set(
        m,
        rowVerdict('sidecar-start', 'keep', 'not started in this sync: the init containers before it come first', m),
      );
    } else if (compared === undefined) {
      // Not started: what decide() says of it (never compared, a sidecar's startup deferral, or kept).
      const v = decide({
        ...m.input,
        info: p.info,
        gates: p.gates,
        staticPod: p.staticPod,
        role: m.role,
        podInitialized: true,
        restartPolicy: policy,
      });
      out.set(m, { ...v, kills: false });
    }
  }
  if (progress.killPod) {
    const why = 'an init container failed and restartPolicy is Never';
    // Ephemeral containers were judged before initialisation and keep their start: the pod is
    // killed with EphemeralContainersToStart still set (kuberuntime_manager.go:549 and 567@v1.20.2).
    const containers = killAll(p, 'init-failed-pod-killed', why, (m) =>
      m.role === 'ephemeral' ? out.get(m) : undefined,
    );
    return { pod: podVerdict('kill', 'init-failed-pod-killed', why, assumptions), containers };
  }
  if (!progress.done) {
    for (const m of regulars)
      out.set(m, rowVerdict('pod-not-initialised', 'deferred', 'the pod is initialising: not looked at yet', m));
    return { pod: podVerdict('none', undefined, 'the pod is initialising', assumptions), containers: order(p, out) };
  }

  for (const m of regulars) {
    const v = decide({
      ...m.input,
      info: p.info,
      gates: p.gates,
      staticPod: p.staticPod,
      role: 'container',
      podInitialized: true,
      restartPolicy: policy,
    });
    // The running-state step assumed nothing the pod decision did not already say.
    v.assumptions = v.assumptions.filter((a) => !a.startsWith('the pod restartPolicy is Always'));
    const unknownKilled = m.input.runtime.state === 'unknown' && v.action === 'start' && p.info.minor >= 20;
    out.set(m, { ...v, kills: v.action === 'restart' || v.action === 'kill' || unknownKilled });
  }
  const kept = regulars.filter((m) => out.get(m)!.action === 'keep').length;
  const started = regulars.filter((m) => ['start', 'restart'].includes(out.get(m)!.action)).length;
  if (kept === 0 && started === 0 && regulars.length > 0) {
    const why = 'no regular container is kept running or started';
    const containers = killAll(p, 'pod-done', why, (m) => {
      const v = out.get(m)!;
      // Sidecars are not started again for a pod that is done (1.28+); one in unknown state is
      // still killed: only InitContainersToStart is cleared, not ContainersToKill
      // (kuberuntime_manager.go:1488@v1.37.2).
      if (v.action !== 'start' || m.role === 'ephemeral' || m.role === 'container') return v;
      return v.kills
        ? rowVerdict('pod-done', 'kill', `${why}: killed (its state is unknown), not started again`, m, true)
        : rowVerdict('pod-done', 'keep', `${why}: not started again`, m);
    });
    return { pod: podVerdict('kill', 'pod-done', why, assumptions), containers };
  }
  return { pod: podVerdict('none', undefined, sandbox.why, assumptions), containers: order(p, out) };
}

/**
 * Why the kubelet resets the whole pod in this sync (computePodActions' restartAllContainers,
 * 1.35+): the AllContainersRestarting condition, or an init or regular container that exited with
 * a RestartAllContainers rule matching its exit code; none once no such container is left
 * (AllContainersRestartCleanedUp). Undefined: no reset.
 */
function restartAllSource(p: PodDecisionInput, assumptions: string[]): string | undefined {
  if (!ruleHolds('restart-all-containers', p.info, p.gates, 'container', p.staticPod)) return undefined;
  const podMembers = p.members.filter((m) => m.role !== 'ephemeral');
  if (podMembers.every((m) => m.input.runtime.state === 'absent')) return undefined;
  if (p.allContainersRestarting === true) return 'the AllContainersRestarting condition is True';
  for (const m of podMembers) {
    const r = m.input.runtime;
    if (r.state !== 'exited' || r.exitCode === undefined) continue;
    const rule = restartsAllContainers(m.input.container, r.exitCode);
    if (rule !== undefined) return `${m.name} exited with code ${String(r.exitCode)}: ${rule}`;
  }
  const unknown = (m: PodMember): boolean =>
    m.input.runtime.state === undefined ||
    (m.input.runtime.state === 'exited' && m.input.runtime.exitCode === undefined);
  if (podMembers.some((m) => hasRestartAllRule(m.input.container) && unknown(m)))
    assumptions.push(
      'no container exited with a RestartAllContainers rule matching its exit code (states or exit codes not given)',
    );
  return undefined;
}

/** computePodActions with restartAllContainers: every init and regular container reset, nothing else. */
function restartAll(
  p: PodDecisionInput,
  sandbox: ReturnType<typeof sandboxOutcome>,
  why: string,
  assumptions: string[],
): PodDecision {
  const id: RestartRuleId = 'restart-all-containers';
  // The sandbox verdict stands beside the reset: KillPod and CreateSandbox are set before it returns.
  const action: PodAction = sandbox.recreate
    ? sandbox.existed
      ? 'kill-and-recreate'
      : 'create-sandbox'
    : 'restart-all';
  const reason = `RestartAllContainers: ${why}`;
  const containers = p.members.map((m) => {
    const state = m.input.runtime.state;
    if (m.role === 'ephemeral') {
      return sandbox.recreate && running(m)
        ? rowVerdict(id, 'kill', `${reason}; the sandbox is recreated: killed with the pod`, m, true)
        : rowVerdict(id, 'keep', `${reason}; ephemeral containers are left alone`, m);
    }
    if (state === 'absent')
      return rowVerdict(id, 'deferred', `${reason}; started with the pod from its first init container`, m);
    const kill = state !== 'exited';
    return rowVerdict(
      id,
      kill ? 'restart' : 'start',
      `${reason}; ${kill ? 'killed and removed' : 'removed'}, then started again with the pod from its first init container`,
      m,
      kill || (sandbox.recreate && running(m)),
    );
  });
  return { pod: podVerdict(action, id, reason, assumptions), containers };
}

function order(p: PodDecisionInput, out: Map<PodMember, MemberVerdict>): MemberVerdict[] {
  return p.members.map((m) => out.get(m)!);
}

function initProgress(
  p: PodDecisionInput,
  policy: PodRestartPolicy,
  sidecarPath: boolean,
  inits: readonly PodMember[],
  regulars: readonly PodMember[],
  out: Map<PodMember, MemberVerdict>,
  assumptions: string[],
): InitProgress {
  const walk = inits.map((m) => ({
    sidecar: m.role === 'sidecar' && sidecarPath,
    container: m.input.container,
    runtime: m.input.runtime,
  }));
  // Without every init container's state the walk cannot run: the Initialized condition stands in.
  if (inits.some((m) => m.input.runtime.state === undefined)) {
    const done = p.initialized ?? true;
    assumptions.push(
      p.initialized === undefined
        ? "the pod has initialised (init containers' states not all given, no Initialized condition)"
        : `initialisation is ${done ? 'done' : 'in progress'} as the Initialized condition says (init containers' states not all given)`,
    );
    return { done, killPod: false, starts: new Set(), kills: new Set(), why: new Map() };
  }
  if (!sidecarPath) return legacyInitProgress(p.info, walk, policy, regulars.some(runningKnown));
  // A regular container in the runtime means the pod initialised before: 1.28 one created, running
  // or exited (hasAnyRegularContainerCreated, kuberuntime_container.go@v1.28.15); 1.29–1.36 only
  // created or running (an exited one may be from a sandbox before a reboot,
  // kuberuntime_container.go:1027@v1.31.14); 1.37 any, unknown too (HasAnyActiveRegularContainerStarted,
  // kuberuntime_container.go:1078@v1.37.2).
  const states: readonly (string | undefined)[] =
    p.info.minor === 28 ? ['created', 'running', 'exited'] : ['created', 'running'];
  const regularsStarted = regulars.some((m) =>
    p.info.minor >= 37 ? known(m) : states.includes(m.input.runtime.state),
  );
  return sidecarInitProgress(
    p.info,
    walk,
    regularsStarted,
    policy,
    (i) => {
      const own = ownPolicy(p, inits[i]!);
      return own === undefined ? undefined : own === 'Never';
    },
    (i) => {
      const m = inits[i]!;
      const v = decide({
        ...m.input,
        info: p.info,
        gates: p.gates,
        staticPod: p.staticPod,
        role: 'sidecar',
        podInitialized: true,
        restartPolicy: policy,
      });
      out.set(m, { ...v, kills: v.action === 'restart' });
      return v.action === 'restart';
    },
  );
}

/** computePodActions when the sandbox changed. */
function recreate(
  p: PodDecisionInput,
  policy: PodRestartPolicy,
  sidecarPath: boolean,
  existed: boolean,
  why: string,
  assumptions: string[],
): PodDecision {
  // `len(podStatus.ContainerStatuses) != 0`: a container with no state given is taken as known (running).
  const anyKnown = p.members.some((m) => m.input.runtime.state !== 'absent');
  const from20 = p.info.minor >= 20;
  if (policy === 'Never' && existed && (anyKnown || !from20)) {
    const reason = `${why}, but restartPolicy is Never and the pod has run: it is killed, not given a new sandbox`;
    return {
      pod: podVerdict('kill', 'sandbox-not-recreated', reason, assumptions),
      containers: killAll(p, 'sandbox-not-recreated', reason),
    };
  }
  const inits = p.members.filter((m) => m.role === 'init' || m.role === 'sidecar');
  const regulars = p.members.filter((m) => m.role === 'container');
  // containerSucceeded: not running with exit code 0; from 1.32 only an exited one
  // (kuberuntime_manager.go@v1.32.0: an unknown or created container has not succeeded).
  const succeeded = (m: PodMember): boolean =>
    known(m) &&
    !running(m) &&
    (p.info.minor < 32 || m.input.runtime.state === 'exited') &&
    (m.input.runtime.exitCode ?? 0) === 0;
  const runOnce = (m: PodMember): boolean => {
    const own = ownPolicy(p, m);
    return own !== undefined ? own === 'OnFailure' : policy === 'OnFailure';
  };
  const toStart = new Set(regulars.filter((m) => !(runOnce(m) && succeeded(m))));
  if (from20 && toStart.size === 0) {
    const walk = inits.map((m) => ({ sidecar: false, container: m.input.container, runtime: m.input.runtime }));
    // hasAnyRegularContainerCreated: created, running or exited (not unknown).
    const created = (m: PodMember): boolean =>
      ['created', 'running', 'exited'].includes(m.input.runtime.state ?? 'running');
    const initialised = sidecarPath
      ? regulars.some(created)
      : legacyInitProgress(p.info, walk, policy, regulars.some(runningKnown)).done;
    if (initialised) {
      const reason = `${why}, but no regular container would start and initialisation is done: the pod is killed, not given a new sandbox`;
      return {
        pod: podVerdict('kill', 'sandbox-not-recreated', reason, assumptions),
        containers: killAll(p, 'sandbox-not-recreated', reason),
      };
    }
  }
  const action: PodAction = existed ? 'kill-and-recreate' : 'create-sandbox';
  const reason = `${why}: ${existed ? 'the kubelet kills the pod and makes a new sandbox' : 'the kubelet makes one'}`;
  const id: RestartRuleId = 'pod-sandbox-changed';
  const containers = p.members.map((m) => {
    const first = inits.length > 0 ? m === inits[0] : m.role === 'container' && toStart.has(m);
    if (first) return rowVerdict(id, running(m) ? 'restart' : 'start', `${reason}; started in it`, m, running(m));
    if (running(m)) return rowVerdict(id, 'kill', `${reason}; killed with the pod`, m, true);
    if (m.role === 'container' && toStart.has(m))
      return rowVerdict(id, 'deferred', `${reason}; started once the init containers have run`, m);
    if (m.role === 'container')
      return rowVerdict(id, 'stays-stopped', `${reason}; it succeeded under restartPolicy ${policy}: not started`, m);
    return rowVerdict(
      id,
      'keep',
      `${reason}; ${m.role === 'ephemeral' ? 'ephemeral containers are never restarted' : 'not started now'}`,
      m,
    );
  });
  return { pod: podVerdict(action, id, reason, assumptions), containers };
}
