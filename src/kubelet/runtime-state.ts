/**
 * What the kubelet knows about a container besides its hash: whether it runs, how it exited,
 * whether its startup probe succeeded, which resources it runs with, and whether the pod has
 * initialised. Callers give these as a container state or as a Pod's `status`; whatever is not
 * given is assumed, and the verdict says what was assumed.
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import { describeOptionValue, readOptionFields, type OptionFields } from '../option-fields.js';
import { isPlainObject } from '../decode/input.js';

/**
 * A container's runtime state as the kubelet's runtime cache holds it; `absent` when the runtime
 * has no container of that name for the pod (never created, or removed): the kubelet starts it.
 *
 * @example
 * ```ts
 * import { containerChanged, type RuntimeStateName } from 'kubelet-hash';
 * const c = { name: 'web', image: 'nginx:2' };
 * const actionWhen = (state: RuntimeStateName) => containerChanged(c, { hash: '1' }, { kubeletVersion: '1.33', state: { state } }).action;
 * [actionWhen('running'), actionWhen('unknown')]; // → ['restart', 'start']
 * ```
 *
 * @group Kubelet decisions
 */
export type RuntimeStateName = 'running' | 'exited' | 'created' | 'unknown' | 'absent';

/**
 * One container's state: a runtime state name, or a Kubernetes `ContainerStatus` fragment
 * (`state: { running: {} }`, `{ terminated: { exitCode } }`, `{ waiting: {} }` with `lastState`).
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerStateInput } from 'kubelet-hash';
 * const web = { name: 'web', image: 'nginx', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }], resources: { limits: { memory: '512Mi' } } };
 * // The running container still has 256Mi (its ContainerStatus.resources): the resize needs a restart.
 * const state: ContainerStateInput = { state: { running: {} }, started: true, resources: { limits: { memory: '256Mi' } } };
 * const stored = { 'io.kubernetes.container.hash': '1' };
 * containerChanged(web, stored, { kubeletVersion: '1.33', state, storedHashReading: 'kubelet' }).ruleId; // → 'hash'
 * const same = containerChanged(web, { hash: containerChanged(web, stored, { kubeletVersion: '1.33', storedHashReading: 'kubelet' }).expected }, { kubeletVersion: '1.33', state });
 * [same.action, same.ruleId]; // → ['restart', 'resize-policy']
 * ```
 *
 * @group Kubelet decisions
 */
export interface ContainerStateInput {
  // `object`, not a record type: client-node's V1ContainerState (a class) has no index signature.
  /** `running`, `exited`, `created`, `unknown`, or a Kubernetes `ContainerState` object. */
  state?: RuntimeStateName | object;
  /** The exit code of an exited container (decides `OnFailure`). */
  exitCode?: number;
  /** The last termination of a waiting (crash-looping) container, as in `ContainerStatus.lastState`. */
  lastState?: object;
  /** `ContainerStatus.started`: the startup probe has succeeded (or there is none). */
  started?: boolean;
  /** The resources the running container has (`ContainerStatus.resources`, 1.27+): the resize rule compares the spec with them. */
  resources?: object;
  /**
   * The kubelet's latest liveness probe result for the running container (its prober's cache: the
   * API status does not show it). `failure` kills the container; absent: no failure is assumed
   * when the container has a liveness probe, and said.
   */
  livenessProbe?: ProbeResult;
  /** The kubelet's latest startup probe result (1.16+), as `livenessProbe`. */
  startupProbe?: ProbeResult;
}

/**
 * A probe result as the kubelet's prober holds it for a running container.
 *
 * @example
 * ```ts
 * import { containerChanged, type ProbeResult } from 'kubelet-hash';
 * const web = { name: 'web', image: 'nginx', livenessProbe: { httpGet: { path: '/', port: 80 } } };
 * const hash = containerChanged(web, { hash: '1' }, { kubeletVersion: '1.30' }).expected;
 * const after = (livenessProbe: ProbeResult) =>
 *   containerChanged(web, { hash }, { kubeletVersion: '1.30', state: { state: 'running', livenessProbe } }).action;
 * [after('success'), after('failure')]; // → ['keep', 'restart']
 * ```
 *
 * @group Kubelet decisions
 */
export type ProbeResult = 'success' | 'failure';

/** The state as the rules use it; `undefined` members were not given. */
export interface RuntimeFacts {
  state?: RuntimeStateName;
  exitCode?: number;
  started?: boolean;
  resources?: unknown;
  livenessProbe?: ProbeResult;
  startupProbe?: ProbeResult;
}

/** The pod-level facts. */
export interface PodFacts {
  /** The pod's `Initialized` condition; undefined when not given. */
  initialized?: boolean;
  /**
   * The pod's `PodReadyToStartContainers` condition (`PodHasNetwork` before 1.28), which a kubelet
   * publishes (when its gate is on) as "the sandbox is ready and has its network"; undefined when absent.
   */
  sandboxReady?: boolean;
  /**
   * The pod's `AllContainersRestarting` condition (1.35+): True while a RestartAllContainers rule's
   * reset is under way, which carries it across a kubelet restart; undefined when absent.
   */
  allContainersRestarting?: boolean;
  /** Container facts by container name. */
  containers: Map<string, RuntimeFacts>;
}

/**
 * A container state's fields; others (a `ContainerStatus`'s name, image, ready…) are passed over.
 * Objects may be class instances (`@kubernetes/client-node`'s V1ContainerState with its Dates).
 */
const STATE_FIELDS = {
  state: {
    test: (v: unknown) => (typeof v === 'string' && RUNTIME_STATE_NAMES.includes(v)) || isPlainObject(v),
    expected:
      'one of "running", "exited", "created", "unknown", "absent", or a ContainerState object ({ running | terminated | waiting })',
  },
  exitCode: { test: (v: unknown) => Number.isInteger(v), expected: 'a whole number' },
  lastState: 'object',
  started: 'boolean',
  resources: 'object',
  livenessProbe: ['success', 'failure'],
  startupProbe: ['success', 'failure'],
} as const satisfies OptionFields;
const RUNTIME_STATE_NAMES: readonly unknown[] = ['running', 'exited', 'created', 'unknown', 'absent'];

/** Waiting reasons that mean the runtime has no container (yet) for it. */
const NO_CONTAINER_REASONS = new Set([
  'ContainerCreating',
  'PodInitializing',
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
]);

function exitCodeOf(terminated: unknown): number | undefined {
  if (!isPlainObject(terminated)) return undefined;
  const code = terminated['exitCode'];
  return typeof code === 'number' ? code : undefined;
}

/** Reads one container state (either form). */
export function readContainerState(input: unknown, path: JsonPathSegment[]): RuntimeFacts {
  const s = readOptionFields<{
    state?: RuntimeStateName | Record<string, unknown>;
    exitCode?: number;
    lastState?: Record<string, unknown>;
    started?: boolean;
    resources?: Record<string, unknown>;
    livenessProbe?: ProbeResult;
    startupProbe?: ProbeResult;
  }>(input, path, {
    fields: STATE_FIELDS,
    expected:
      'a container state: { state: "running" | "exited" | "created" | "unknown" | "absent" | { running | terminated | waiting }, exitCode?, started?, resources?, livenessProbe?, startupProbe? }',
    allowOthers: true,
  });
  const out: RuntimeFacts = {};
  if (typeof s.state === 'string') {
    out.state = s.state;
  } else if (s.state) {
    if (isPlainObject(s.state['running'])) out.state = 'running';
    else if (isPlainObject(s.state['terminated'])) {
      out.state = 'exited';
      const code = exitCodeOf(s.state['terminated']);
      if (code !== undefined) out.exitCode = code;
    } else if (isPlainObject(s.state['waiting'])) {
      // Waiting after a termination (crash loop): the runtime holds the exited container.
      const last = s.lastState && isPlainObject(s.lastState['terminated']) ? s.lastState['terminated'] : undefined;
      const reason = s.state['waiting']['reason'];
      // The kubelet writes a created container as waiting without a reason, and a container it has
      // none of with its default reasons (kubelet_pods.go@v1.29.6:2036-2038) or an image not pulled yet.
      const none = typeof reason === 'string' && NO_CONTAINER_REASONS.has(reason);
      out.state = last ? 'exited' : none ? 'absent' : 'created';
      const code = exitCodeOf(last);
      if (code !== undefined) out.exitCode = code;
    } else {
      throw new OptionError(
        'INVALID_OPTION',
        [...path, 'state'],
        'a ContainerState with running, terminated or waiting',
        `found keys ${JSON.stringify(Object.keys(s.state))}`,
      );
    }
  }
  if (s.exitCode !== undefined) out.exitCode = s.exitCode;
  if (s.started !== undefined) out.started = s.started;
  if (s.resources !== undefined) out.resources = s.resources;
  if (s.livenessProbe !== undefined) out.livenessProbe = s.livenessProbe;
  if (s.startupProbe !== undefined) out.startupProbe = s.startupProbe;
  return out;
}

/** Reads a Pod's `status` (`containerStatuses`, `initContainerStatuses`, the `Initialized` condition). */
export function readPodStatus(status: unknown, path: JsonPathSegment[]): PodFacts {
  if (!isPlainObject(status)) {
    throw new OptionError(
      'INVALID_OPTION',
      path,
      "a Pod's status object ({ containerStatuses, initContainerStatuses, conditions })",
      `found ${describeOptionValue(status)}`,
    );
  }
  const out: PodFacts = { containers: new Map() };
  const conditions = status['conditions'];
  if (Array.isArray(conditions)) {
    const init: unknown = conditions.find((c: unknown) => isPlainObject(c) && c['type'] === 'Initialized');
    if (isPlainObject(init)) out.initialized = init['status'] === 'True';
    // Renamed in 1.28 (KEP-3085); a status carries the one its kubelet publishes.
    const sandbox: unknown = conditions.find(
      (c: unknown) => isPlainObject(c) && (c['type'] === 'PodReadyToStartContainers' || c['type'] === 'PodHasNetwork'),
    );
    if (isPlainObject(sandbox) && (sandbox['status'] === 'True' || sandbox['status'] === 'False'))
      out.sandboxReady = sandbox['status'] === 'True';
    const restarting: unknown = conditions.find(
      (c: unknown) => isPlainObject(c) && c['type'] === 'AllContainersRestarting',
    );
    if (isPlainObject(restarting)) out.allContainersRestarting = restarting['status'] === 'True';
  }
  for (const list of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const) {
    const arr = status[list];
    if (arr === undefined || arr === null) continue;
    if (!Array.isArray(arr)) throw new OptionError('INVALID_OPTION', [...path, list], 'an array of container statuses');
    arr.forEach((cs: unknown, i: number) => {
      if (!isPlainObject(cs) || typeof cs['name'] !== 'string') {
        throw new OptionError('INVALID_OPTION', [...path, list, i], 'a container status with a name');
      }
      const { name, ...rest } = cs;
      out.containers.set(name, readContainerState(rest, [...path, list, i]));
    });
  }
  return out;
}
