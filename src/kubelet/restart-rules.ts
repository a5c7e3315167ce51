/**
 * The kubelet's restart decision as data: one row per rule, in the order the kubelet applies them,
 * with the releases it holds for, the gate it needs and the kubelet source it was read from. The
 * evaluation (`decide.ts`, `changed-rule.ts`, `resize-rule.ts`, `static-pod.ts`) looks rules up
 * here, so every verdict names its rule and source, and docs/controllers.md's table is this table.
 *
 * Sources are cited as `path@tag (function)`: the tag is the first release the rule holds for in
 * that form. Where the text changed over releases, the later form is cited as well.
 */
import type { ReleaseInfo } from '../releases/index.js';
import type { ContainerRole } from './container-role.js';
import type { GateName, ResolvedGates } from './options.js';

/**
 * Every rule the library applies; see {@link RESTART_RULES}.
 *
 * @example
 * ```ts
 * import { predictRestarts, type RestartRuleId } from 'kubelet-hash';
 * const pod = (image: string) => ({ spec: { containers: [{ name: 'web', image }] } });
 * const id: RestartRuleId | undefined = predictRestarts(pod('a:1'), pod('a:2'), { kubeletVersion: '1.30' }).containers[0]!.ruleId;
 * id; // → 'hash'
 * ```
 *
 * @group Kubelet decisions
 */
export type RestartRuleId =
  | 'pod-sandbox-changed'
  | 'sandbox-not-recreated'
  | 'init-failed-pod-killed'
  | 'pod-done'
  | 'restart-all-containers'
  | 'killed-with-pod'
  | 'static-pod-manifest-edit'
  | 'static-pod-kubelet-upgrade'
  | 'ephemeral-never-restarted'
  | 'ephemeral-start'
  | 'init-not-compared'
  | 'init-start'
  | 'sidecar-start'
  | 'sidecar-as-init'
  | 'sidecar-not-compared'
  | 'not-running'
  | 'not-running-container-policy'
  | 'pod-not-initialised'
  | 'sidecar-startup-probe-deferral'
  | 'hash'
  | 'hash-and-hash-without-resources'
  | 'probe-failed'
  | 'resize-policy'
  | 'resize-policy-sidecar';

/**
 * One rule of the kubelet's restart decision.
 *
 * @example
 * ```ts
 * import { RESTART_RULES, type RestartRule } from 'kubelet-hash';
 * const holdsAt = (r: RestartRule, minor: number) => minor >= r.firstMinor && (r.lastMinor === null || minor <= r.lastMinor);
 * // The rules that depend on SidecarContainers and hold for a 1.31 kubelet:
 * RESTART_RULES.filter((r) => r.gate?.name === 'SidecarContainers' && holdsAt(r, 31)).map((r) => r.id); // → ['sidecar-start', 'sidecar-as-init', 'sidecar-not-compared']
 * ```
 *
 * @group Kubelet decisions
 */
export interface RestartRule {
  /** Stable identifier, carried by every verdict the rule decides. */
  readonly id: RestartRuleId;
  /** First kubelet minor the rule holds for (`27` for 1.27). */
  readonly firstMinor: number;
  /** Last kubelet minor it holds for; `null` while it holds in the newest release modelled. */
  readonly lastMinor: number | null;
  /** A gate that must be in this state for the rule to hold. */
  readonly gate?: {
    /** The gate's name. */
    readonly name: GateName;
    /** The state it must be in. */
    readonly on: boolean;
  };
  /** The container roles it concerns (all when absent). */
  readonly roles?: readonly ContainerRole[];
  /** Whether it holds only for non-static pods (in-place resize never applies to static pods). */
  readonly notStaticPods?: boolean;
  /** Where the kubelet does this: `path@tag (function)`. */
  readonly source: string;
  /** The rule in one sentence, as README states it. */
  readonly statement: string;
}

const MANAGER = 'pkg/kubelet/kuberuntime/kuberuntime_manager.go';

/**
 * The rules, in the order the kubelet applies them to one container.
 *
 * @example
 * ```ts
 * import { RESTART_RULES } from 'kubelet-hash';
 * const resize = RESTART_RULES.find((r) => r.id === 'resize-policy')!;
 * [resize.firstMinor, resize.gate?.name]; // → [27, 'InPlacePodVerticalScaling']
 * resize.source.startsWith('pkg/kubelet/kuberuntime/kuberuntime_manager.go@v1.27.0'); // → true
 * ```
 *
 * @group Kubelet decisions
 */
export const RESTART_RULES: readonly RestartRule[] = Object.freeze([
  {
    id: 'pod-sandbox-changed',
    firstMinor: 8,
    lastMinor: null,
    source: `${MANAGER}@v1.8.0 (computePodActions, podSandboxChanged)`,
    statement:
      'A pod whose sandbox is gone, is in the wrong network namespace mode for hostNetwork, or has no IP for a pod-network pod gets a new sandbox: the kubelet kills every container of the pod and starts them again, whatever the hashes say.',
  },
  {
    id: 'sandbox-not-recreated',
    firstMinor: 8,
    lastMinor: null,
    source: `${MANAGER}@v1.8.0 (computePodActions: restartPolicy Never and an earlier sandbox); ${MANAGER}@v1.20.0 (also: some container known to the runtime; or no regular container to start and initialisation done)`,
    statement:
      'A pod that needs a new sandbox is only killed, not given one, when it is done: under restartPolicy Never once a sandbox existed (from 1.20: and the runtime knows some container of it), or (from 1.20) when no regular container would start and initialisation has finished.',
  },
  {
    id: 'init-failed-pod-killed',
    firstMinor: 8,
    lastMinor: null,
    source: `${MANAGER}@v1.8.0 (computePodActions: init failed and restartPolicy Never); pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.28.0 (computeInitContainerActions)`,
    statement:
      'An init container that failed (from 1.20 also one in unknown state) under restartPolicy Never kills the pod; nothing is started again.',
  },
  {
    id: 'pod-done',
    firstMinor: 8,
    lastMinor: null,
    source: `${MANAGER}@v1.8.0 (computePodActions: keepCount == 0 and nothing to start)`,
    statement:
      'Once initialised, a pod with no regular container kept running and none to start is killed (its sandbox stopped; from 1.28 its sidecars are not started again).',
  },
  {
    id: 'restart-all-containers',
    firstMinor: 35,
    lastMinor: null,
    gate: { name: 'RestartAllContainersOnContainerExits', on: true },
    source: `${MANAGER}@v1.35.0 (computePodActions: ContainersToReset, getContainersToReset); pkg/kubelet/container/helpers.go@v1.35.0 (ShouldAllContainersRestart); pkg/kubelet/kubelet.go@v1.35.0 (SyncPod: the AllContainersRestarting condition)`,
    statement:
      "With RestartAllContainersOnContainerExits on (alpha 1.35, beta on from 1.36; it needs ContainerRestartRules): when an init or regular container exited with an exit code whose first matching restartPolicyRules entry has action RestartAllContainers, or the pod's AllContainersRestarting condition is True (which carries the reset across a kubelet restart), every init and regular container the runtime has is removed (those not exited killed first) and the pod starts again from its first init container; ephemeral containers are left alone. Nothing else is decided in that sync.",
  },
  {
    id: 'killed-with-pod',
    firstMinor: 8,
    lastMinor: null,
    source: `${MANAGER}@v1.8.0 (SyncPod: KillPod kills every running container of the pod)`,
    statement: 'When the kubelet kills the pod, every running container of it is killed, whatever its role or hash.',
  },
  {
    id: 'static-pod-manifest-edit',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/kubelet/config/common.go@v1.8.0 (applyDefaults: md5); pkg/kubelet/config/common.go@v1.35.0 (applyDefaults: FNV-128a, kubernetes#133511)',
    statement:
      'A static pod without metadata.uid gets its UID from a hash (MD5 to 1.34, FNV-128a from 1.35) of the decoded pod, the node name and the file path: any edit of the manifest makes a new pod, so the kubelet kills every container of the old one and starts the new one, whatever the hashes say.',
  },
  {
    id: 'static-pod-kubelet-upgrade',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/kubelet/config/common.go@v1.8.0 (applyDefaults, hash.DeepHashObject of the internal api.Pod); CHANGELOG-1.35.md (v1.35.0-alpha.3: md5 replaced, kubernetes#133511)',
    statement:
      'That hash covers the go-spew text of the internal Pod type, which gains fields in almost every minor: across a kubelet minor upgrade a static pod without metadata.uid gets a new UID and is recreated (patch upgrades keep the internal types); 1.34 → 1.35 also changes the hash function (MD5 → FNV-128a).',
  },
  {
    id: 'ephemeral-never-restarted',
    firstMinor: 16,
    lastMinor: null,
    roles: ['ephemeral'],
    source: `${MANAGER}@v1.16.0 (computePodActions: "Ephemeral Containers are never restarted")`,
    statement: 'Ephemeral (debug) containers are started once and never restarted, whatever their definition.',
  },
  {
    id: 'ephemeral-start',
    firstMinor: 16,
    lastMinor: null,
    roles: ['ephemeral'],
    source: `${MANAGER}@v1.16.0 (computePodActions: EphemeralContainersToStart)`,
    statement:
      'An ephemeral container the runtime has no container for is started, even while the pod initialises (the EphemeralContainers gate: alpha 1.16, beta 1.23, GA 1.25).',
  },
  {
    id: 'init-not-compared',
    firstMinor: 8,
    lastMinor: null,
    roles: ['init'],
    source: `${MANAGER}@v1.8.0 (findNextInitContainerToRun); pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.28.0 (computeInitContainerActions)`,
    statement: 'Init containers run to completion; the kubelet never compares their hash.',
  },
  {
    id: 'init-start',
    firstMinor: 8,
    lastMinor: null,
    roles: ['init', 'sidecar'],
    source: `${MANAGER}@v1.8.0 (computePodActions, findNextInitContainerToRun); ${MANAGER}@v1.20.0 (an init container in unknown state is killed first)`,
    statement:
      'While the pod initialises, the kubelet starts one init container: the first, the one after the last that exited, or the last failed one again (restartPolicy Always or OnFailure; from 1.20 one in unknown state counts as failed and is killed first). Regular containers wait.',
  },
  {
    id: 'sidecar-start',
    firstMinor: 28,
    lastMinor: null,
    roles: ['init', 'sidecar'],
    gate: { name: 'SidecarContainers', on: true },
    source:
      'pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.28.0 (computeInitContainerActions); kuberuntime_container.go@v1.31.0 (a created init container is started again)',
    statement:
      'With SidecarContainers on, init containers are walked from the last: a sidecar that exited, is in unknown state or failed its startup or liveness probe is (killed and) started again, and the init container after a started sidecar or a completed init container is started; a sidecar missing from a pod that has initialised is started.',
  },
  {
    id: 'sidecar-as-init',
    firstMinor: 28,
    lastMinor: 32,
    roles: ['sidecar'],
    gate: { name: 'SidecarContainers', on: false },
    source: `${MANAGER}@v1.28.0 (computePodActions: legacy init path when SidecarContainers is off)`,
    statement:
      'With SidecarContainers off (1.28–1.32), an init container with restartPolicy Always is a plain init container: never compared.',
  },
  {
    id: 'sidecar-not-compared',
    firstMinor: 28,
    lastMinor: 31,
    roles: ['sidecar'],
    gate: { name: 'SidecarContainers', on: true },
    source: 'pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.28.0 (computeInitContainerActions)',
    statement: 'Running sidecars (restartable init containers) are not compared for a definition change in 1.28–1.31.',
  },
  {
    id: 'not-running',
    firstMinor: 8,
    lastMinor: null,
    roles: ['container', 'sidecar'],
    source: `${MANAGER}@v1.8.0 (computePodActions); pkg/kubelet/container/helpers.go@v1.8.0 (ShouldContainerBeRestarted)`,
    statement:
      'Hashes are compared only for running containers. One that is not running is started again from the current spec if the restart policy says so (Always; OnFailure after a failure; sidecars always), and stays stopped otherwise.',
  },
  {
    id: 'not-running-container-policy',
    firstMinor: 34,
    lastMinor: null,
    roles: ['container'],
    gate: { name: 'ContainerRestartRules', on: true },
    source:
      'pkg/kubelet/container/helpers.go@v1.34.0 (ShouldContainerBeRestarted → podutil.ContainerShouldRestart with ContainerRestartRules on); pkg/api/v1/pod/util.go@v1.34.0 (ContainerShouldRestart, findMatchingContainerRestartRule)',
    statement:
      "With ContainerRestartRules on (alpha 1.34, beta on from 1.35), a regular container that sets its own restartPolicy and is not running follows it instead of the pod's: the first restartPolicyRules entry whose exitCodes match the exit code (In / NotIn) with action Restart starts it again; else its restartPolicy decides (Always; OnFailure after a failure; Never).",
  },
  {
    id: 'pod-not-initialised',
    firstMinor: 8,
    lastMinor: null,
    roles: ['container'],
    source: `${MANAGER}@v1.8.0 (computePodActions returns before the regular containers while initialisation is in progress)`,
    statement:
      'Regular containers are compared only once the pod has initialised (every init container done, every sidecar started).',
  },
  {
    id: 'sidecar-startup-probe-deferral',
    firstMinor: 32,
    lastMinor: null,
    roles: ['sidecar'],
    gate: { name: 'SidecarContainers', on: true },
    source:
      'pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.32.0 (computeInitContainerActions: startup probe before containerChanged)',
    statement:
      'A sidecar with a startupProbe is compared only after the probe has succeeded; until then (and after a kubelet restart, until the probe runs again) the restart is deferred.',
  },
  {
    id: 'hash',
    firstMinor: 8,
    lastMinor: null,
    roles: ['container', 'sidecar'],
    source: `${MANAGER}@v1.8.0 (containerChanged); kuberuntime_container.go@v1.32.0 for sidecars`,
    statement:
      'A running container (from 1.32 also a running sidecar) whose stored hash differs from HashContainer(spec) is killed and recreated, whatever the restart policy.',
  },
  {
    id: 'hash-and-hash-without-resources',
    firstMinor: 27,
    lastMinor: 30,
    roles: ['container'],
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    notStaticPods: true,
    source: `${MANAGER}@v1.27.0 (computePodActions: HashContainerWithoutResources)`,
    statement:
      'With InPlacePodVerticalScaling on (1.27–1.30, non-static pods), a changed hash restarts the container only if the hash without resources changed too; a resources-only change goes to the resize rule.',
  },
  {
    id: 'probe-failed',
    firstMinor: 8,
    lastMinor: null,
    roles: ['container'],
    source: `${MANAGER}@v1.8.0 (computePodActions: liveness probe failure); ${MANAGER}@v1.16.0 (startup probe failure)`,
    statement:
      "A running container whose hash is unchanged but whose liveness (from 1.16 also startup) probe failed is killed, and started again unless the pod's restartPolicy (from 1.34 with ContainerRestartRules, its own) is Never.",
  },
  {
    id: 'resize-policy',
    firstMinor: 27,
    lastMinor: null,
    roles: ['container'],
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    notStaticPods: true,
    source: `${MANAGER}@v1.27.0 (computePodResizeAction); ${MANAGER}@v1.33.0 (computePodResizeAction)`,
    statement:
      'With InPlacePodVerticalScaling on (alpha 1.27–1.32, beta on 1.33–1.34, GA 1.35+), non-static pods: when the CPU limit, CPU request or memory limit differs from what the running container has and that resource\'s resizePolicy is RestartContainer, the container is restarted ("resize requires restart"); otherwise it is resized in place. 1.27–1.32 act only on containers with limits; CPU values at or below 2m (requests) and, from 1.33, 10m (limits) count as equal.',
  },
  {
    id: 'resize-policy-sidecar',
    firstMinor: 33,
    lastMinor: null,
    roles: ['sidecar'],
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    notStaticPods: true,
    source:
      'pkg/kubelet/kuberuntime/kuberuntime_container.go@v1.33.0 (computeInitContainerActions → computePodResizeAction)',
    statement: 'From 1.33 the same resize rule applies to running sidecars, after their hash check.',
  },
] as const satisfies readonly RestartRule[]);

const BY_ID: ReadonlyMap<RestartRuleId, RestartRule> = new Map(RESTART_RULES.map((r) => [r.id, r]));

/** The rule with this id. */
export function restartRule(id: RestartRuleId): RestartRule {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`no restart rule ${id}`); // unreachable: RestartRuleId lists the rows
  return rule;
}

/** Whether rule `id` holds for this kubelet, gates, role and pod kind. */
export function ruleHolds(
  id: RestartRuleId,
  info: ReleaseInfo,
  gates: ResolvedGates,
  role: ContainerRole,
  staticPod: boolean,
): boolean {
  const r = restartRule(id);
  if (info.minor < r.firstMinor || (r.lastMinor !== null && info.minor > r.lastMinor)) return false;
  if (r.roles && !r.roles.includes(role)) return false;
  if (r.notStaticPods && staticPod) return false;
  if (r.gate) {
    const on = {
      SidecarContainers: gates.sidecars,
      InPlacePodVerticalScaling: gates.inPlaceResize,
      ContainerRestartRules: gates.containerRestartRules,
      RestartAllContainersOnContainerExits: gates.restartAllContainers,
      InPlacePodLevelResourcesVerticalScaling: gates.podLevelResize,
      PodLevelResources: gates.podLevelResize,
      ChangeContainerStatusOnKubeletRestart: gates.statusOnRestart,
      LegacySidecarContainers: gates.legacySidecars,
    }[r.gate.name];
    if (on !== r.gate.on) return false;
  }
  return true;
}

/** `1.27–1.30`, `1.32+`: the releases of a rule, for messages and README. */
export function ruleReleases(r: RestartRule): string {
  return r.lastMinor === null ? `1.${r.firstMinor}+` : `1.${r.firstMinor}–1.${r.lastMinor}`;
}
