/**
 * `containerChanged`: whether a kubelet of a given release kills and recreates a container of a
 * pod it syncs, with the exact rules of that release (restart-rules.ts), and why.
 */
import { RecordError } from '../errors.js';
import { formatHash } from '../hash/format.js';
import type { ChangedRule } from './changed-rule.js';
import { decide, type ContainerAction, type PodRestartPolicy } from './decide.js';
import { resolveRuleOptionFields, type FeatureGates, type KubeletChoice, type StoredHashReading } from './options.js';
import { containerRole, type ContainerRole } from './container-role.js';
import type { ContainerInput } from '../hash/hashes-for.js';
import { CONTAINER_CHECKS, hashesFor } from '../hash/hashes-for.js';
import type { ContainerList } from '../pod/locate.js';
import { mirroredPodUid } from '../pod/mirror-pod.js';
import { readStoredHashes, recordIdentity, type ContainerStatusInput } from './stored-status.js';
import type { RestartRuleId } from './restart-rules.js';
import { readContainerState, type ContainerStateInput } from './runtime-state.js';
import { isPlainObject, memberOf } from '../decode/input.js';

/**
 * Options of {@link containerChanged}: the kubelet to reproduce and how it runs the container.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerChangedOptions } from 'kubelet-hash';
 *
 * const options: ContainerChangedOptions = { kubeletVersion: 'v1.29.4', featureGates: { InPlacePodVerticalScaling: true }, staticPod: true };
 * const resized = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '1' } } };
 * // Static pods are never resized in place: a resources change restarts them.
 * containerChanged(resized, { hash: '590c88e0', hashWithoutResources: '371a981f' }, options).changed; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export interface ContainerChangedOptions extends KubeletChoice {
  /** The kubelet's feature gates (booleans or Go's bool text); unset gates take the release's default. */
  featureGates?: FeatureGates;
  /** A static (file/http) pod: in-place resize never applies to it. */
  staticPod?: boolean;
  /** Which list of the pod spec the container is in (default `containers`). */
  containerList?: ContainerList;
  /**
   * How to read the stored hash: `strict` (default) refuses non-hex text and a status without a
   * hash; `kubelet` reads them as 0, as the kubelet reads its own labels (the container restarts).
   */
  storedHashReading?: StoredHashReading;
  /** The container's runtime state (or its Kubernetes `ContainerStatus`); without it, running is assumed. */
  state?: ContainerStateInput;
  /** Whether the pod has initialised (its `Initialized` condition); assumed when absent. */
  podInitialized?: boolean;
  /** The pod's `spec.restartPolicy` (decides what happens to a container that is not running). */
  restartPolicy?: PodRestartPolicy;
  /**
   * The pod being checked (`metadata` is enough). When `status` is a runtime record, its pod uid
   * (a mirror pod's `kubernetes.io/config.mirror` for static pods), name and namespace must match.
   */
  pod?: unknown;
}

/**
 * What {@link containerChanged} found; hashes are lowercase hex text as the kubelet stores them.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerChangedResult } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const result: ContainerChangedResult = containerChanged({ ...web, image: 'nginx:1.28' }, { hash: '590c88e0' }, { kubeletVersion: '1.29' });
 * [result.changed, result.rule, result.expected, result.actual]; // → [true, 'hash', 'dc15f387', '590c88e0']
 * ```
 *
 * @group Kubelet decisions
 */
export interface ContainerChangedResult {
  /** The kubelet minor release the decision is for (`1.29`). */
  release: string;
  /** The hash this kubelet computes for the spec (lowercase hex, as stored). */
  expected: string;
  /** The stored hash as read (`0` only with the kubelet's reading of a missing or malformed hash). */
  actual: string;
  /** Whether the kubelet kills and recreates the container (`action === 'restart'`). */
  changed: boolean;
  /** What the kubelet does with the container. */
  action: ContainerAction;
  /** `expected !== actual`, whether or not the rule acts on it. */
  hashDiffers: boolean;
  /** Set when the 1.27–1.30 in-place resize rule consulted them. */
  expectedWithoutResources?: string;
  /** The stored hash without resources (`0` when missing); set with `expectedWithoutResources`. */
  actualWithoutResources?: string;
  /** How the kubelet treats the container (`container`, `sidecar`, `init`, `ephemeral`). */
  role: ContainerRole;
  /** Which hash comparison the kubelet applied, or `not-compared`. */
  rule: ChangedRule;
  /** The rule (a row of the restart-rule table) that decided. */
  ruleId: RestartRuleId;
  /** That rule's kubelet source, `path@tag (function)`. */
  ruleSource: string;
  /** One line for people explaining the decision, with the hashes involved. */
  reason: string;
  /** What was assumed for facts not given (running state, initialisation, resources…). */
  assumptions: string[];
}

/** containerChanged's options beside the rule options; `state` is read by readContainerState. */
const CHANGED_OPTION_FIELDS = {
  containerList: ['containers', 'initContainers', 'ephemeralContainers'],
  state: 'unknown',
  podInitialized: 'boolean',
  restartPolicy: ['Always', 'OnFailure', 'Never'],
  pod: 'unknown',
} as const;

/**
 * What a kubelet of `options.kubeletVersion` decides for a container whose runtime status stores
 * `status` (the annotation map, docker-style `annotation.` labels, `{ hash, hashWithoutResources }`
 * or a runtime record). A status without a hash, or with non-hex text, is refused unless
 * `storedHashReading: 'kubelet'`. Throws the errors of {@link hashContainer}, {@link OptionError}
 * for a status that is not an object or feature gates the kubelet would refuse, `HashFormatError`
 * (`MISSING_HASH`, `INVALID_HASH`) and `RecordError` (`RECORD_MISMATCH`).
 *
 * @example
 * ```ts
 * import { containerChanged } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The runtime's annotations for the running container (crictl inspect: status.annotations).
 * const annotations = { 'io.kubernetes.container.hash': '590c88e0' };
 * containerChanged(web, annotations, { kubeletVersion: '1.29' }).changed; // → false
 * const patched = containerChanged({ ...web, image: 'nginx:1.28' }, annotations, { kubeletVersion: '1.29' });
 * patched.changed; // → true
[patched.action, patched.ruleId]; // → ['restart', 'hash']
 * patched.reason.startsWith('container definition changed (stored 590c88e0, computed'); // → true
 * ```
 *
 * @group Kubelet decisions
 */
export function containerChanged(
  container: ContainerInput,
  status: ContainerStatusInput,
  options: ContainerChangedOptions,
): ContainerChangedResult {
  const { opts, info, gates, toolchain } = resolveRuleOptionFields(
    CHANGED_OPTION_FIELDS,
    options,
    '{ kubeletVersion: "1.29" }',
  );
  // The state's fields are options: checked with them, before the container.
  const runtime = opts.state ? readContainerState(opts.state, ['options', 'state']) : {};
  // Decode, shape and name checks first (as every function does), the status and options after.
  const computed = hashesFor(container, info, opts.jsonEscapes, CONTAINER_CHECKS);
  const stored = readStoredHashes(status, ['status'], opts.storedHashReading ?? 'strict');
  // Text input is parsed only when a rule reads the container itself (its role, identity, resources).
  const role = containerRole(opts.containerList, opts.containerList === 'initContainers' ? computed.json : undefined);
  checkIdentity(() => computed.json, status, opts.pod);
  const v = decide({
    info,
    role,
    gates,
    staticPod: opts.staticPod ?? false,
    expected: computed.hash,
    stored: stored.hash,
    expectedWithoutResources: () => computed.withoutResources(),
    storedWithoutResources: stored.hashWithoutResources,
    get container() {
      return computed.json;
    },
    path: [],
    runtime,
    ...(opts.podInitialized !== undefined ? { podInitialized: opts.podInitialized } : {}),
    ...(opts.restartPolicy !== undefined ? { restartPolicy: opts.restartPolicy } : {}),
  });
  const result: ContainerChangedResult = {
    release: info.release,
    expected: formatHash(computed.hash),
    actual: formatHash(stored.hash),
    changed: v.action === 'restart',
    action: v.action,
    hashDiffers: v.hashDiffers,
    role,
    rule: v.comparison,
    ruleId: v.ruleId,
    ruleSource: v.ruleSource,
    reason: v.reason,
    assumptions: toolchain === undefined ? v.assumptions : [...v.assumptions, toolchain],
  };
  if (v.withoutResources) {
    result.expectedWithoutResources = formatHash(v.withoutResources.expected);
    result.actualWithoutResources = formatHash(v.withoutResources.stored);
  }
  return result;
}

/** A record of another container or pod must not decide for this one. */
function checkIdentity(containerOf: () => unknown, status: unknown, pod: unknown): void {
  const id = recordIdentity(status);
  const container = id.containerName !== undefined ? containerOf() : undefined;
  const name = isPlainObject(container) ? memberOf(container, 'name') : undefined;
  if (id.containerName !== undefined && typeof name === 'string' && id.containerName !== name) {
    throw new RecordError(
      'RECORD_MISMATCH',
      ['status', 'containerName'],
      `a record of container ${JSON.stringify(name)}`,
      `the record is of container ${JSON.stringify(id.containerName)}`,
    );
  }
  if (pod === undefined) return;
  const meta = isPlainObject(pod) ? memberOf(pod, 'metadata') : undefined;
  if (!isPlainObject(meta)) {
    throw new RecordError(
      'RECORD_MISMATCH',
      ['options', 'pod', 'metadata'],
      'the pod being checked, with metadata (uid, name, namespace)',
    );
  }
  const want = {
    podUid: mirroredPodUid(meta) ?? memberOf(meta, 'uid'),
    podName: memberOf(meta, 'name'),
    podNamespace: memberOf(meta, 'namespace'),
  };
  for (const key of ['podUid', 'podName', 'podNamespace'] as const) {
    const have = id[key];
    const expected = want[key];
    if (have !== undefined && typeof expected === 'string' && have !== expected) {
      throw new RecordError(
        'RECORD_MISMATCH',
        ['status', key],
        `a record of the pod being checked (${key} ${JSON.stringify(expected)})`,
        `the record has ${key} ${JSON.stringify(have)}`,
      );
    }
  }
}
