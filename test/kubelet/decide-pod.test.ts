/**
 * The kubelet's whole-pod decision (computePodActions) as a table: every case of 1.20.2's
 * TestComputePodActions, TestComputePodActionsWithInitContainers and
 * TestComputePodActionsWithInitAndEphemeralContainers, restated in our own words as data, plus rows
 * for the forms of 1.13.0, the sidecar path of 1.29.6 and 1.31.14 and the restart rules of 1.37.2.
 * Each row cites the upstream test (or source) file:line and tag, and is run through predictRestarts
 * with the same runtime facts the kubelet's test gives it.
 *
 * The kubelet's podActions are read into our words so:
 * - pod: KillPod with CreateSandbox is `kill-and-recreate` (`create-sandbox` when no sandbox
 *   existed), KillPod alone `kill`, neither `none`;
 * - a container in ContainersToStart / NextInitContainerToStart / InitContainersToStart /
 *   EphemeralContainersToStart is `start`, or `restart` when it was running (killed first);
 * - one in ContainersToKill and not started, or running in a pod that is killed, is `kill`;
 * - otherwise a running regular container is `keep`; a regular container not running `stays-stopped`,
 *   or `deferred` while the pod initialises; init and ephemeral containers `keep` (left as they are);
 * - `kills` lists every container the kubelet kills (ContainersToKill, or running under KillPod).
 */
import { describe, expect, it } from 'vitest';
import { predictRestarts, RESTART_RULES, supportedReleases } from '../../src/index.js';
import type { PredictedAction, PodAction, SandboxInput } from '../../src/index.js';

type State = 'running' | 'absent' | 'unknown' | 'created' | number; // a number: exited with that code
type Probe = { livenessProbe?: 'success' | 'failure'; startupProbe?: 'success' | 'failure' };

interface Row {
  id: string;
  /** `file:line` of the case (or the source line for rows without an upstream case) and the tag read. */
  upstream: string;
  /** A list, or `1.20+`: that release and every later one modelled. */
  releases: string[] | string;
  featureGates?: Record<string, boolean>;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  init?: string[];
  /** Init containers with restartPolicy Always. */
  sidecars?: string[];
  regular?: string[];
  ephemeral?: string[];
  /** Extra fields of a container of the new spec (probes, its own restartPolicy). */
  extra?: Record<string, Record<string, unknown>>;
  states: Record<string, State>;
  /** Containers whose stored hash differs from the spec's (their spec changed). */
  changed?: string[];
  /** Containers only in the new spec (the runtime has none of them). */
  added?: string[];
  probes?: Record<string, Probe>;
  /** Pod conditions of the status given (AllContainersRestarting). */
  conditions?: { type: string; status: 'True' | 'False' }[];
  sandbox: SandboxInput;
  pod: PodAction;
  expect: Record<string, PredictedAction>;
  kills?: string[];
}

const FOO = ['foo1', 'foo2', 'foo3'];
const INIT = ['init1', 'init2', 'init3'];
const READY: SandboxInput = { exists: true, ready: true, hasIp: true };
const NOT_READY: SandboxInput = { exists: true, ready: false, hasIp: true };
const T120 = 'pkg/kubelet/kuberuntime/kuberuntime_manager_test.go';
const T129 = 'pkg/kubelet/kuberuntime/kuberuntime_manager_test.go';
const T131 = T129;
const M113 = 'pkg/kubelet/kuberuntime/kuberuntime_manager.go';
const C113 = 'pkg/kubelet/kuberuntime/kuberuntime_container.go';
const C121 = C113;
const M137 = M113;
const T135 = T120;
const C128 = C113;
const C131 = C113;
const C137 = C113;
const M131 = M113;
const H135 = 'pkg/kubelet/container/helpers.go';
const U137 = 'pkg/api/v1/pod/util.go';
/** RestartAllContainersOnContainerExits is alpha (off) in 1.35; the 1.35.0 test turns it on. */
const RESET_GATES = { RestartAllContainersOnContainerExits: true };
const MARKED = [{ type: 'AllContainersRestarting', status: 'True' as const }];
const RESET_RULE = {
  restartPolicy: 'Never',
  restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [1] } }],
};
/** Sidecar names (restartable-init-1…3 upstream) and the base of the 1.29.6 sidecar table. */
const SC = ['sc1', 'sc2', 'sc3'];
const PROBED = { livenessProbe: {}, startupProbe: {} };
const SUCCEEDED: Probe = { livenessProbe: 'success', startupProbe: 'success' };
const SIDECARS = { sidecars: SC, extra: { sc2: PROBED, sc3: PROBED }, probes: { sc2: SUCCEEDED, sc3: SUCCEEDED } };
/** Read: 1.29.6 and 1.31.14; 1.30 is taken to be as 1.29 (not read). */
const SIDECAR_RELEASES = ['1.29', '1.30', '1.31'];
const all = (names: string[], action: PredictedAction) => Object.fromEntries(names.map((n) => [n, action]));
const states = (names: string[], s: State) => Object.fromEntries(names.map((n) => [n, s]));

const ROWS: Row[] = [
  // TestComputePodActions (1.20.2): three running busybox containers in a ready sandbox with an IP.
  {
    id: 'steady',
    upstream: `${T120}:741@v1.20.2`,
    releases: '1.8+',
    states: states(FOO, 'running'),
    sandbox: READY,
    pod: 'none',
    expect: all(FOO, 'keep'),
  },
  {
    id: 'new-pod',
    upstream: `${T120}:744@v1.20.2`,
    releases: '1.8+',
    states: states(FOO, 'absent'),
    sandbox: { exists: false },
    pod: 'create-sandbox',
    expect: all(FOO, 'start'),
  },
  {
    id: 'exited-always',
    upstream: `${T120}:758@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    states: { foo1: 0, foo2: 111, foo3: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'start', foo2: 'start', foo3: 'keep' },
  },
  {
    id: 'exited-onfailure',
    upstream: `${T120}:775@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'OnFailure',
    states: { foo1: 0, foo2: 111, foo3: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'stays-stopped', foo2: 'start', foo3: 'keep' },
  },
  {
    id: 'exited-never',
    upstream: `${T120}:792@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Never',
    states: { foo1: 0, foo2: 111, foo3: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'stays-stopped', foo2: 'stays-stopped', foo3: 'keep' },
  },
  {
    id: 'sandbox-dead-always',
    upstream: `${T120}:803@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    states: states(FOO, 'running'),
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: all(FOO, 'restart'),
    kills: FOO,
  },
  {
    id: 'sandbox-dead-onfailure',
    upstream: `${T120}:817@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'OnFailure',
    states: { foo1: 'running', foo2: 0, foo3: 'running' },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { foo1: 'restart', foo2: 'stays-stopped', foo3: 'restart' },
    kills: ['foo1', 'foo3'],
  },
  {
    id: 'sandbox-no-ip',
    upstream: `${T120}:833@v1.20.2`,
    releases: '1.8+',
    states: states(FOO, 'running'),
    sandbox: { exists: true, ready: true, hasIp: false },
    pod: 'kill-and-recreate',
    expect: all(FOO, 'restart'),
    kills: FOO,
  },
  {
    id: 'spec-changed',
    upstream: `${T120}:846@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    states: states(FOO, 'running'),
    changed: ['foo2'],
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'restart', foo3: 'keep' },
    kills: ['foo2'],
  },
  {
    id: 'liveness-failed',
    upstream: `${T120}:859@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    states: states(FOO, 'running'),
    probes: { foo2: { livenessProbe: 'failure' } },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'restart', foo3: 'keep' },
    kills: ['foo2'],
  },
  {
    id: 'startup-failed',
    upstream: `${T120}:875@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'Always',
    states: states(FOO, 'running'),
    probes: { foo2: { startupProbe: 'failure' } },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'restart', foo3: 'keep' },
    kills: ['foo2'],
  },
  {
    id: 'never-done-no-sandbox',
    upstream: `${T120}:891@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Never',
    states: states(FOO, 0),
    sandbox: NOT_READY,
    pod: 'kill',
    expect: all(FOO, 'stays-stopped'),
  },
  {
    id: 'onfailure-done-no-sandbox',
    upstream: `${T120}:914@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'OnFailure',
    states: states(FOO, 0),
    sandbox: NOT_READY,
    pod: 'kill',
    expect: all(FOO, 'stays-stopped'),
  },
  {
    id: 'never-nothing-created',
    upstream: `${T120}:937@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Never',
    states: states(FOO, 'absent'),
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: all(FOO, 'start'),
  },
  {
    id: 'unknown-state',
    upstream: `${T120}:957@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Never',
    states: { foo1: 'running', foo2: 'unknown', foo3: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'start', foo3: 'keep' },
    kills: ['foo2'],
  },

  // TestComputePodActionsWithInitContainers (1.20.2): init1–3 exited 0, the regular containers not created.
  {
    id: 'init-done',
    upstream: `${T120}:1035@v1.20.2`,
    releases: '1.8+',
    init: INIT,
    states: { ...states(INIT, 0), ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'start') },
  },
  {
    id: 'init-running',
    upstream: `${T120}:1042@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 'running', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'deferred') },
  },
  {
    id: 'init-sandbox-dead',
    upstream: `${T120}:1049@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    init: INIT,
    states: { ...states(INIT, 0), ...states(FOO, 'absent') },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { init1: 'start', init2: 'keep', init3: 'keep', ...all(FOO, 'deferred') },
  },
  {
    id: 'init-failed-always',
    upstream: `${T120}:1064@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Always',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 137, ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', init2: 'keep', init3: 'start', ...all(FOO, 'deferred') },
  },
  {
    id: 'init-failed-onfailure',
    upstream: `${T120}:1076@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'OnFailure',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 137, ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', init2: 'keep', init3: 'start', ...all(FOO, 'deferred') },
  },
  {
    id: 'init-failed-never',
    upstream: `${T120}:1088@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Never',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 137, ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'kill',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'stays-stopped') },
  },
  {
    id: 'init-unknown-always',
    upstream: `${T120}:1100@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Always',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 'unknown', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', init2: 'keep', init3: 'start', ...all(FOO, 'deferred') },
    kills: ['init3'],
  },
  {
    id: 'init-unknown-onfailure',
    upstream: `${T120}:1112@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'OnFailure',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 'unknown', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', init2: 'keep', init3: 'start', ...all(FOO, 'deferred') },
    kills: ['init3'],
  },
  {
    id: 'init-unknown-never',
    upstream: `${T120}:1124@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Never',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 'unknown', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'kill',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'stays-stopped') },
  },
  {
    id: 'init-sandbox-dead-never',
    upstream: `${T120}:1136@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Never',
    init: INIT,
    states: { ...states(INIT, 0), ...states(FOO, 'absent') },
    sandbox: NOT_READY,
    pod: 'kill',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'stays-stopped') },
  },
  {
    id: 'init-sandbox-dead-never-nothing-created',
    upstream: `${T120}:1150@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Never',
    init: INIT,
    states: { ...states(INIT, 'absent'), ...states(FOO, 'absent') },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { init1: 'start', init2: 'keep', init3: 'keep', ...all(FOO, 'deferred') },
  },
  {
    id: 'init-sandbox-dead-failed-onfailure',
    upstream: `${T120}:1166@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'OnFailure',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 137, ...states(FOO, 'absent') },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { init1: 'start', init2: 'keep', init3: 'keep', ...all(FOO, 'deferred') },
  },

  // TestComputePodActionsWithInitAndEphemeralContainers (1.20.2): foo1–3 running, init1 exited 0, debug running.
  {
    id: 'ephemeral-steady',
    upstream: `${T120}:1254@v1.20.2`,
    releases: '1.16+',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'keep' },
  },
  {
    id: 'ephemeral-start',
    upstream: `${T120}:1257@v1.20.2`,
    releases: '1.16+',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 'absent' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'start' },
  },
  {
    id: 'ephemeral-second',
    upstream: `${T120}:1268@v1.20.2`,
    releases: '1.16+',
    init: ['init1'],
    ephemeral: ['debug', 'debug2'],
    added: ['debug2'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'keep', debug2: 'start' },
  },
  {
    id: 'ephemeral-exited',
    upstream: `${T120}:1284@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'Always',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 0 },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'keep' },
  },
  {
    id: 'ephemeral-while-initialising',
    upstream: `${T120}:1295@v1.20.2`,
    releases: '1.16-1.20',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 'running', debug: 'absent' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'deferred'), init1: 'keep', debug: 'start' },
  },
  {
    id: 'ephemeral-sandbox-dead-init-failed',
    upstream: `${T120}:1307@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'OnFailure',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'absent'), init1: 137, debug: 'running' },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { ...all(FOO, 'deferred'), init1: 'start', debug: 'kill' },
    kills: ['debug'],
  },
  {
    id: 'ephemeral-sandbox-dead',
    upstream: `${T120}:1324@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'Always',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 'running' },
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: { ...all(FOO, 'kill'), init1: 'start', debug: 'kill' },
    kills: [...FOO, 'debug'],
  },
  {
    id: 'ephemeral-pod-done',
    upstream: `${T120}:1339@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'Never',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 0), init1: 0, debug: 'running' },
    sandbox: READY,
    pod: 'kill',
    expect: { ...all(FOO, 'stays-stopped'), init1: 'keep', debug: 'kill' },
    kills: ['debug'],
  },
  {
    id: 'ephemeral-unknown',
    upstream: `${T120}:1358@v1.20.2`,
    releases: '1.16+',
    restartPolicy: 'Never',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 0, debug: 'unknown' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'keep' },
  },
  // From 1.21 findNextInitContainerToRun takes a running regular container as a pod that has
  // initialised (its init containers may have been removed since): the regular containers are kept.
  {
    id: 'ephemeral-while-initialising-1.21',
    upstream: `${C121}:776@v1.21.0`,
    releases: '1.21-1.28',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 'running', debug: 'absent' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'start' },
  },
  // The same case where SidecarContainers is on (1.29+ by default): computeInitContainerActions
  // takes a running regular container as a pod that has initialised, so the regular containers are
  // looked at, and kept (the kubelet's podActions are the same; 1.29.6's test runs it both ways).
  {
    id: 'ephemeral-while-initialising-sidecar-path',
    upstream: `${T129}:1961@v1.29.6`,
    releases: '1.29+',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 'running', debug: 'absent' },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'start' },
  },
  {
    id: 'ephemeral-while-initialising-gate-off',
    upstream: `${T129}:1961@v1.29.6`,
    releases: ['1.29', '1.30', '1.31', '1.32'],
    featureGates: { SidecarContainers: false },
    init: ['init1'],
    ephemeral: ['debug'],
    states: { ...states(FOO, 'running'), init1: 'running', debug: 'absent' },
    sandbox: READY,
    pod: 'none',
    // findNextInitContainerToRun (1.21+): a running regular container means the pod has initialised.
    expect: { ...all(FOO, 'keep'), init1: 'keep', debug: 'start' },
  },

  // 1.13.0's computePodActions (applied to 1.8–1.19, of which only 1.13 was read): no check for a
  // done pod before a new sandbox, an init container in unknown state is not failed, and a regular
  // one in unknown state is started without a kill first.
  {
    id: 'onfailure-done-no-sandbox-1.13',
    upstream: `${M113}:468@v1.13.0`,
    releases: '1.8-1.19',
    restartPolicy: 'OnFailure',
    states: states(FOO, 0),
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: all(FOO, 'stays-stopped'),
  },
  {
    id: 'never-nothing-created-1.13',
    upstream: `${M113}:468@v1.13.0`,
    releases: '1.8-1.19',
    restartPolicy: 'Never',
    states: states(FOO, 'absent'),
    sandbox: NOT_READY,
    pod: 'kill',
    expect: all(FOO, 'stays-stopped'),
  },
  {
    id: 'unknown-state-1.13',
    upstream: `${M113}:527@v1.13.0`,
    releases: '1.8-1.19',
    restartPolicy: 'Never',
    states: { foo1: 'running', foo2: 'unknown', foo3: 'running' },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'start', foo3: 'keep' },
  },
  {
    // 1.13.0 asks only the liveness manager: a startup result has no effect before 1.16.
    id: 'startup-failed-1.13',
    upstream: `${M113}:542@v1.13.0`,
    releases: '1.8-1.15',
    restartPolicy: 'Always',
    states: states(FOO, 'running'),
    probes: { foo2: { startupProbe: 'failure' } },
    sandbox: READY,
    pod: 'none',
    expect: all(FOO, 'keep'),
  },
  {
    // Under restartPolicy Never a failed liveness probe kills the container for good (1.20.2: the probe at line 631, no start unless restart at line 646).
    id: 'liveness-failed-never',
    upstream: `${M113}:631@v1.20.2`,
    releases: '1.8+',
    restartPolicy: 'Never',
    states: states(FOO, 'running'),
    probes: { foo2: { livenessProbe: 'failure' } },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'kill', foo3: 'keep' },
    kills: ['foo2'],
  },
  {
    id: 'init-unknown-never-1.13',
    upstream: `${C113}:731@v1.13.0`,
    releases: '1.8-1.19',
    restartPolicy: 'Never',
    init: INIT,
    states: { init1: 0, init2: 0, init3: 'unknown', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', init2: 'keep', init3: 'start', ...all(FOO, 'deferred') },
  },
  {
    id: 'init-sandbox-dead-never-nothing-created-1.13',
    upstream: `${M113}:468@v1.13.0`,
    releases: '1.8-1.19',
    restartPolicy: 'Never',
    init: INIT,
    states: { ...states(INIT, 'absent'), ...states(FOO, 'absent') },
    sandbox: NOT_READY,
    pod: 'kill',
    expect: { ...all(INIT, 'keep'), ...all(FOO, 'stays-stopped') },
  },

  // TestComputePodActionsWithRestartableInitContainers (1.29.6; 1.30 not read): three sidecars,
  // the 2nd and 3rd with liveness and startup probes that succeeded; the regular containers not created.
  {
    id: 'sidecars-initialised',
    upstream: `${T129}:1511@v1.29.6`,
    releases: SIDECAR_RELEASES,
    ...SIDECARS,
    states: { ...states(SC, 'running'), ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(SC, 'keep'), ...all(FOO, 'start') },
  },
  {
    id: 'sidecar-created-waits',
    upstream: `${T129}:1529@v1.29.6`,
    releases: ['1.29', '1.30'],
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'running', sc3: 'created', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { ...all(SC, 'keep'), ...all(FOO, 'deferred') },
  },
  {
    id: 'sidecar-created-restarted',
    upstream: `${T131}:1559@v1.31.14`,
    releases: ['1.31'],
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'running', sc3: 'created', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'keep', sc3: 'start', ...all(FOO, 'deferred') },
  },
  {
    id: 'sidecar-started-next',
    upstream: `${T129}:1536@v1.29.6`,
    releases: SIDECAR_RELEASES,
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'absent', sc3: 'absent', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'start', sc3: 'keep', ...all(FOO, 'deferred') },
  },
  {
    id: 'sidecar-liveness-failed',
    upstream: `${T129}:1589@v1.29.6`,
    releases: SIDECAR_RELEASES,
    ...SIDECARS,
    probes: { ...SIDECARS.probes, sc3: { startupProbe: 'success', livenessProbe: 'failure' } },
    states: { ...states(SC, 'running'), ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'keep', sc3: 'restart', ...all(FOO, 'start') },
    kills: ['sc3'],
  },
  {
    id: 'sidecar-failed-never',
    upstream: `${T129}:1744@v1.29.6`,
    releases: SIDECAR_RELEASES,
    restartPolicy: 'Never',
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'running', sc3: 137, ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'keep', sc3: 'start', ...all(FOO, 'deferred') },
  },
  {
    id: 'sidecar-unknown-never',
    upstream: `${T129}:1757@v1.29.6`,
    releases: SIDECAR_RELEASES,
    restartPolicy: 'Never',
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'running', sc3: 'unknown', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'keep', sc3: 'start', ...all(FOO, 'deferred') },
    kills: ['sc3'],
  },
  {
    id: 'sidecar-regulars-running-never',
    upstream: `${T129}:1769@v1.29.6`,
    releases: SIDECAR_RELEASES,
    restartPolicy: 'Never',
    ...SIDECARS,
    states: { sc1: 'running', sc2: 'running', sc3: 137, ...states(FOO, 'running') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'keep', sc2: 'keep', sc3: 'start', ...all(FOO, 'keep') },
  },
  {
    id: 'sidecar-pod-done-never',
    upstream: `${T129}:1791@v1.29.6`,
    releases: SIDECAR_RELEASES,
    restartPolicy: 'Never',
    ...SIDECARS,
    states: { ...states(SC, 'running'), ...states(FOO, 0) },
    sandbox: READY,
    pod: 'kill',
    expect: { ...all(SC, 'kill'), ...all(FOO, 'stays-stopped') },
    kills: SC,
  },
  {
    id: 'sidecar-statuses-missing',
    upstream: `${T129}:1812@v1.29.6`,
    releases: SIDECAR_RELEASES,
    ...SIDECARS,
    states: { sc1: 'absent', sc2: 'absent', sc3: 'running', ...states(FOO, 'absent') },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'start', sc2: 'start', sc3: 'keep', ...all(FOO, 'start') },
  },

  // 1.37.2 with ContainerRestartRules (beta, on): a container's own restartPolicy Never decides after a failed probe.
  {
    id: 'own-policy-never-liveness',
    upstream: `${M137}:1439@v1.37.2`,
    releases: ['1.37'],
    restartPolicy: 'Always',
    extra: { foo2: { restartPolicy: 'Never' } },
    states: states(FOO, 'running'),
    probes: { foo2: { livenessProbe: 'failure' } },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'kill', foo3: 'keep' },
    kills: ['foo2'],
  },

  // Found by the Go differential (test/real/pod-actions-judges…), each checked in the source cited.
  {
    // computePodActions judges ephemeral containers before initialisation and keeps them when it kills the pod.
    id: 'init-failed-never-ephemeral-start',
    upstream: `${M113}:549@v1.20.2`,
    releases: '1.20+',
    restartPolicy: 'Never',
    init: ['init1'],
    ephemeral: ['debug'],
    states: { init1: 137, ...states(FOO, 'absent'), debug: 'absent' },
    sandbox: READY,
    pod: 'kill',
    expect: { init1: 'keep', ...all(FOO, 'stays-stopped'), debug: 'start' },
  },
  {
    // containerSucceeded: before 1.32 any container not running with exit code 0 (unknown too).
    id: 'unknown-counts-as-succeeded',
    upstream: `${M113}:485@v1.20.2`,
    releases: '1.20-1.31',
    restartPolicy: 'OnFailure',
    states: states(FOO, 'unknown'),
    sandbox: NOT_READY,
    pod: 'kill',
    expect: all(FOO, 'stays-stopped'),
  },
  {
    // From 1.32 only an exited container has succeeded: unknown ones are started in the new sandbox.
    id: 'unknown-not-succeeded',
    upstream: `${M113}:542@v1.32.0`,
    releases: '1.32+',
    restartPolicy: 'OnFailure',
    states: states(FOO, 'unknown'),
    sandbox: NOT_READY,
    pod: 'kill-and-recreate',
    expect: all(FOO, 'start'),
  },
  {
    // 1.29–1.32 take the sidecar path only for a pod with a sidecar (1.29.9, 1.30.5, 1.31.1 on).
    id: 'no-sidecar-legacy-path',
    upstream: `${M131}:836@v1.31.14`,
    releases: ['1.29', '1.30', '1.31', '1.32'],
    init: ['init1'],
    states: { init1: 'running', ...states(FOO, 'created') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', ...all(FOO, 'deferred') },
  },
  {
    // 1.33 takes the sidecar path for every pod unless LegacySidecarContainers (deprecated, off) is on
    // for a pod without a sidecar (handleRestartableInitContainers); the gate is gone at 1.34.
    id: 'no-sidecar-1.33',
    upstream: `${M113}:914@v1.33.13`,
    releases: ['1.33', '1.34'],
    init: ['init1'],
    states: { init1: 'running', ...states(FOO, 'created') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', ...all(FOO, 'start') },
  },
  {
    id: 'no-sidecar-legacy-gate-1.33',
    upstream: `${M113}:914@v1.33.13`,
    releases: ['1.33'],
    featureGates: { LegacySidecarContainers: true },
    init: ['init1'],
    states: { init1: 'running', ...states(FOO, 'created') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', ...all(FOO, 'deferred') },
  },
  {
    // 1.28 takes the sidecar path whenever the gate is on: created regular containers mean initialised.
    id: 'no-sidecar-sidecar-path-1.28',
    upstream: `${C128}:951@v1.28.15`,
    releases: ['1.28'],
    featureGates: { SidecarContainers: true },
    init: ['init1'],
    states: { init1: 'running', ...states(FOO, 'created') },
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'keep', ...all(FOO, 'start') },
  },
  {
    // An exited regular container marks the pod initialised in 1.28 (hasAnyRegularContainerCreated) and 1.37
    // (HasAnyActiveRegularContainerStarted): the missing sidecar is started and so is the regular container.
    id: 'exited-regular-initialised',
    upstream: `${C137}:1078@v1.37.2`,
    releases: ['1.37'],
    sidecars: ['sc1'],
    regular: ['foo1'],
    states: { sc1: 'absent', foo1: 1 },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'start', foo1: 'start' },
  },
  {
    id: 'exited-regular-initialised-1.28',
    upstream: `${C128}:951@v1.28.15`,
    releases: ['1.28'],
    featureGates: { SidecarContainers: true },
    sidecars: ['sc1'],
    regular: ['foo1'],
    states: { sc1: 'absent', foo1: 1 },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'start', foo1: 'start' },
  },
  {
    // 1.29–1.36 do not count an exited one (it may be from a sandbox before a reboot): the pod initialises.
    id: 'exited-regular-not-initialised',
    upstream: `${C131}:1027@v1.31.14`,
    releases: ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35', '1.36'],
    sidecars: ['sc1'],
    regular: ['foo1'],
    states: { sc1: 'absent', foo1: 1 },
    sandbox: READY,
    pod: 'none',
    expect: { sc1: 'start', foo1: 'deferred' },
  },
  {
    // A done pod's sidecar in unknown state stays in ContainersToKill: only InitContainersToStart is cleared.
    id: 'pod-done-unknown-sidecar-killed',
    upstream: `${M137}:1488@v1.37.2`,
    releases: '1.29+',
    restartPolicy: 'Never',
    sidecars: ['sc1', 'sc2'],
    regular: ['foo1'],
    states: { sc1: 'unknown', sc2: 'running', foo1: 0 },
    sandbox: READY,
    pod: 'kill',
    expect: { sc1: 'kill', sc2: 'kill', foo1: 'stays-stopped' },
    kills: ['sc1', 'sc2'],
  },

  // TestComputePodActionsForRestartAllContainers (1.35.0) and the rules around it.
  {
    id: 'restart-all-marked',
    upstream: `${T135}:1412@v1.35.0`,
    releases: '1.35+',
    featureGates: RESET_GATES,
    states: states(FOO, 'running'),
    conditions: MARKED,
    sandbox: READY,
    pod: 'restart-all',
    expect: all(FOO, 'restart'),
    kills: FOO,
  },
  {
    id: 'restart-all-marked-init',
    upstream: `${T135}:1429@v1.35.0`,
    releases: '1.35+',
    featureGates: RESET_GATES,
    init: INIT,
    states: { ...states(INIT, 0), ...states(FOO, 'absent') },
    conditions: MARKED,
    sandbox: READY,
    pod: 'restart-all',
    expect: { ...all(INIT, 'start'), ...all(FOO, 'deferred') },
  },
  {
    // The exit itself starts the reset (ShouldAllContainersRestart), before any condition is written.
    id: 'restart-all-regular-exit',
    upstream: `${H135}:124@v1.35.0`,
    releases: '1.35+',
    featureGates: RESET_GATES,
    ...SIDECARS,
    extra: { ...SIDECARS.extra, foo3: RESET_RULE },
    states: { ...states(SC, 'running'), foo1: 'running', foo2: 'running', foo3: 1 },
    sandbox: READY,
    pod: 'restart-all',
    expect: { ...all(SC, 'restart'), foo1: 'restart', foo2: 'restart', foo3: 'start' },
    kills: [...SC, 'foo1', 'foo2'],
  },
  {
    // Every init and regular container removed: the condition goes False and the pod starts again.
    id: 'restart-all-cleaned-up',
    upstream: `${H135}:176@v1.35.0`,
    releases: '1.35+',
    featureGates: RESET_GATES,
    init: ['init1'],
    ephemeral: ['debug'],
    states: { init1: 'absent', ...states(FOO, 'absent'), debug: 'running' },
    conditions: MARKED,
    sandbox: READY,
    pod: 'none',
    expect: { init1: 'start', ...all(FOO, 'deferred'), debug: 'keep' },
  },
  {
    // Gate off (1.35's default): the rule's action falls back to the container's own restartPolicy.
    id: 'restart-all-gate-off',
    upstream: `${U137}:427@v1.37.2`,
    releases: ['1.35'],
    extra: { foo3: RESET_RULE },
    states: { foo1: 'running', foo2: 'running', foo3: 1 },
    sandbox: READY,
    pod: 'none',
    expect: { foo1: 'keep', foo2: 'keep', foo3: 'stays-stopped' },
  },
];

/** The 1.20.2 cases: all three tests' cases, 15 + 12 + 9. */
const UPSTREAM_120 = ROWS.filter((r) => r.upstream.startsWith(`${T120}:`) && r.upstream.endsWith('@v1.20.2'));

/** A list, `1.N+` (that release and every later one modelled), or `1.N-1.M`. */
function expandReleases(releases: string[] | string): string[] {
  if (Array.isArray(releases)) return releases;
  const list = supportedReleases();
  const [first, last] = releases.endsWith('+') ? [releases.slice(0, -1), undefined] : releases.split('-');
  const from = list.indexOf(first);
  const to = last === undefined ? list.length - 1 : list.indexOf(last);
  if (from < 0 || to < from) throw new Error(`no releases ${releases}`);
  return list.slice(from, to + 1);
}

function containerOf(row: Row, name: string, image: string, sidecar = false) {
  return { name, image, ...(sidecar ? { restartPolicy: 'Always' } : {}), ...(row.extra?.[name] ?? {}) };
}

/** The pod before (what the running containers were made from) and after (what the kubelet syncs to). */
function pods(row: Row) {
  const make = (when: 'before' | 'after') => {
    const image = (n: string) => (when === 'before' && row.changed?.includes(n) ? 'busybox:old' : 'busybox');
    const keep = (n: string) => when === 'after' || !row.added?.includes(n);
    const inits = [
      ...(row.init ?? []).map((n) => containerOf(row, n, image(n))),
      ...(row.sidecars ?? []).map((n) => containerOf(row, n, image(n), true)),
    ];
    const spec: Record<string, unknown> = {
      containers: (row.regular ?? FOO).filter(keep).map((n) => containerOf(row, n, image(n))),
    };
    if (row.restartPolicy) spec['restartPolicy'] = row.restartPolicy;
    if (inits.length > 0) spec['initContainers'] = inits.filter((c) => keep(c.name));
    if (row.ephemeral)
      spec['ephemeralContainers'] = row.ephemeral.filter(keep).map((n) => containerOf(row, n, image(n)));
    return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', namespace: 'foo-ns', uid: '12345678' }, spec };
  };
  return { before: make('before'), after: make('after') };
}

function statusEntry(name: string, s: State) {
  if (typeof s === 'number') return { name, state: { terminated: { exitCode: s } } };
  if (s === 'running') return { name, state: { running: {} } };
  return { name, state: s };
}

function podStatus(row: Row) {
  const list = (names: string[] | undefined) =>
    (names ?? []).filter((n) => n in row.states).map((n) => statusEntry(n, row.states[n]!));
  return {
    initContainerStatuses: list([...(row.init ?? []), ...(row.sidecars ?? [])]),
    containerStatuses: list(row.regular ?? FOO),
    ephemeralContainerStatuses: list(row.ephemeral),
    ...(row.conditions ? { conditions: row.conditions } : {}),
  };
}

function run(row: Row, release: string) {
  const { before, after } = pods(row);
  return predictRestarts(before, after, {
    kubeletVersion: release,
    podStatus: podStatus(row),
    sandbox: row.sandbox,
    ...(row.probes ? { probes: row.probes } : {}),
    ...(row.featureGates ? { featureGates: row.featureGates } : {}),
  });
}

/** Whether the prediction agrees with the row as a whole: pod action, every container's action and kill. */
function disagreements(row: Row, release: string): string[] {
  const p = run(row, release);
  const out: string[] = [];
  if (p.pod.action !== row.pod) out.push(`pod: ${p.pod.action} (${p.pod.reason}), expected ${row.pod}`);
  for (const [name, action] of Object.entries(row.expect)) {
    const c = p.containers.find((x) => x.name === name);
    if (!c) out.push(`${name}: missing`);
    else if (c.action !== action) out.push(`${name}: ${c.action} (${c.reason}), expected ${action}`);
  }
  const kills = p.containers
    .filter((c) => c.kills === true)
    .map((c) => c.name)
    .sort();
  const want = [...(row.kills ?? [])].sort();
  if (JSON.stringify(kills) !== JSON.stringify(want)) out.push(`kills: ${kills.join(',')}, expected ${want.join(',')}`);
  return out;
}

describe('computePodActions table', () => {
  it('holds all 36 cases of 1.20.2, one row each, with unique ids', () => {
    expect(UPSTREAM_120).toHaveLength(36);
    expect(new Set(UPSTREAM_120.map((r) => r.upstream)).size).toBe(36);
    expect(new Set(ROWS.map((r) => r.id)).size).toBe(ROWS.length);
  });

  it('covers every pod-level rule of RESTART_RULES', () => {
    const used = new Set<string>();
    for (const row of ROWS) {
      const p = run(row, expandReleases(row.releases)[0]!);
      if (p.pod.ruleId) used.add(p.pod.ruleId);
      for (const c of p.containers) if (c.ruleId) used.add(c.ruleId);
    }
    for (const id of [
      'pod-sandbox-changed',
      'sandbox-not-recreated',
      'init-failed-pod-killed',
      'pod-done',
      'killed-with-pod',
      'ephemeral-start',
      'init-start',
      'probe-failed',
      'restart-all-containers',
    ])
      expect(used.has(id), id).toBe(true);
    expect(RESTART_RULES.map((r) => r.id)).toEqual(expect.arrayContaining([...used]));
  });

  for (const row of ROWS) {
    it(`${row.id} (${row.upstream})`, () => {
      for (const release of expandReleases(row.releases))
        expect(disagreements(row, release), `${row.id} @${release}`).toEqual([]);
    });
  }
});
