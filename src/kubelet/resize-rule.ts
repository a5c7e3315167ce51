/**
 * `computePodResizeAction` (kuberuntime_manager.go, 1.27+): with InPlacePodVerticalScaling on, a
 * running container whose CPU limit, CPU request or memory limit differs from what it runs with is
 * resized in place, unless the resizePolicy of a changed resource is `RestartContainer`: then it is
 * restarted ("Container … resize requires restart"). Through 1.32 memory requests never restart a
 * container (cgroups have no memory request); from 1.33 they are compared too. Values compare as Go's `Value()` / `MilliValue()` (rounded up).
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import { JsonNumber } from '../json/number.js';
import { bigIntFromValue } from '../quantity/bignat.js';
import { parseQuantity, type QuantityValue } from '../quantity/quantity.js';
import type { ReleaseInfo } from '../releases/index.js';

/** The values the kubelet compares, in its units (millicores, bytes). */
interface ResizeValues {
  cpuLimit: bigint;
  cpuRequest: bigint;
  memoryLimit: bigint;
  memoryRequest: bigint;
  /** Whether `requests.memory` is set (a running container's status without it says nothing of it). */
  hasMemoryRequest: boolean;
  /** Whether `limits` has any member (1.27–1.32 take no resize action without limits). */
  hasLimits: boolean;
}

/**
 * cm.MinShares and cm.MinMilliCPULimit: CPU requests at or below 2m, and CPU limits at or below 10m,
 * are equal to the kubelet — in 1.32 only, which compares the spec with what the runtime reports
 * (kuberuntime_manager.go:604 and :610 at v1.32.0 and v1.32.13). 1.27–1.31 compare the two raw
 * (no cm.Min* in computePodResizeAction at v1.30.14, v1.31.14); from 1.33 the current values are
 * the actuated checkpoint's, written from the spec, and compared raw (none at v1.33.13 … v1.37.2).
 */
const MIN_SHARES_MILLI = 2n;
const MIN_CPU_LIMIT_MILLI = 10n;
const MINOR_WITH_MIN_CPU_EQUALITY = 32;
/** Last minor where a container without limits takes no resize action (`Limits == nil` early return). */
const LAST_MINOR_SKIPPING_NO_LIMITS = 32;
/**
 * First minor that compares memory requests too: from 1.33 computePodResizeAction compares the
 * actuated resources with the spec, memory requests included (determineContainerResize of
 * memoryRequest, kuberuntime_manager.go at v1.33.13 … v1.37.2; TestComputePodActionsForPodResize
 * "Update container memory (requests only) with RestartContainer policy for memory"); 1.32 took the
 * running container's memory request as the desired one (the runtime does not report it).
 */
const FIRST_MINOR_MEMORY_REQUEST = 33;

/** Go `q.ScaledValue(scale)`: the value in units of 10^scale, rounded away from zero. */
function scaledValue(q: QuantityValue, scale: number): bigint {
  let num: bigint;
  let den = 1n;
  if (q.d.Dec === null) {
    num = q.i.value;
    if (q.i.scale >= 0) num *= 10n ** BigInt(q.i.scale);
    else den = 10n ** BigInt(-q.i.scale);
  } else {
    num = bigIntFromValue(q.d.Dec.unscaled);
    if (q.d.Dec.scale <= 0) num *= 10n ** BigInt(-q.d.Dec.scale);
    else den = 10n ** BigInt(q.d.Dec.scale);
  }
  if (scale >= 0) den *= 10n ** BigInt(scale);
  else num *= 10n ** BigInt(-scale);
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const out = (abs + den - 1n) / den;
  return neg ? -out : out;
}

function quantityText(v: unknown, path: JsonPathSegment[]): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  throw new OptionError('INVALID_OPTION', path, 'a quantity like "500m" or "256Mi"', `found ${typeof v}`);
}

function member(list: unknown, name: string, path: JsonPathSegment[], scale: number): bigint {
  if (!isPlainObject(list)) return 0n;
  const text = quantityText(memberOf(list, name), [...path, name]);
  return text === null ? 0n : scaledValue(parseQuantity(text.trim(), [...path, name]), scale);
}

/** The compared values of a `resources` object (`container.resources` or a status's `resources`). */
function resizeValues(resources: unknown, path: JsonPathSegment[]): ResizeValues {
  const r = isPlainObject(resources) ? resources : {};
  const limits = memberOf(r, 'limits');
  const requests = memberOf(r, 'requests');
  return {
    cpuLimit: member(limits, 'cpu', [...path, 'limits'], -3),
    cpuRequest: member(requests, 'cpu', [...path, 'requests'], -3),
    memoryLimit: member(limits, 'memory', [...path, 'limits'], 0),
    memoryRequest: member(requests, 'memory', [...path, 'requests'], 0),
    hasMemoryRequest: isPlainObject(requests) && memberOf(requests, 'memory') !== undefined,
    hasLimits: isPlainObject(limits) && Object.keys(limits).some((k) => memberOf(limits, k) !== undefined),
  };
}

/**
 * kubeutil.GetLimits (pkg/kubelet/util/util.go@v1.35.4): a container's CPU or memory limit that is
 * unset or zero takes the pod-level one, when the pod sets pod-level limits. From 1.35 with
 * InPlacePodLevelResourcesVerticalScaling, computePodResizeAction compares these limits
 * (containerResourcesFromRequirements), so a container without its own limit follows the pod's.
 */
function withPodLimits(values: ResizeValues, podResources: unknown, path: JsonPathSegment[]): ResizeValues {
  const pod = resizeValues(podResources, path);
  return {
    ...values,
    cpuLimit: values.cpuLimit === 0n ? pod.cpuLimit : values.cpuLimit,
    memoryLimit: values.memoryLimit === 0n ? pod.memoryLimit : values.memoryLimit,
  };
}

/** The container's `resizePolicy` per resource (`NotRequired` when unset). */
function restartPolicyFor(container: unknown, resource: 'cpu' | 'memory'): string {
  const list = isPlainObject(container) ? memberOf(container, 'resizePolicy') : undefined;
  if (!Array.isArray(list)) return 'NotRequired';
  for (const p of list) {
    if (isPlainObject(p) && memberOf(p, 'resourceName') === resource) {
      const policy = memberOf(p, 'restartPolicy');
      return typeof policy === 'string' ? policy : 'NotRequired';
    }
  }
  return 'NotRequired';
}

/** What the resize step decided for one container. */
export interface ResizeOutcome {
  /** The kubelet restarts the container for the resize. */
  restart: boolean;
  /** One phrase per changed value: `memory limit 268435456 → 536870912 (RestartContainer)`. */
  changes: string[];
  /** Why no resize action was taken at all, when that is the case. */
  skipped?: string;
}

/**
 * The resize decision for a running container of `info`'s kubelet: `desired` is the spec's
 * container, `current` the resources the running container has.
 */
export function resizeOutcome(
  info: ReleaseInfo,
  desired: unknown,
  current: unknown,
  path: JsonPathSegment[],
  podLevel?: { desired: unknown; current?: unknown },
): ResizeOutcome {
  let want = resizeValues(isPlainObject(desired) ? memberOf(desired, 'resources') : undefined, [...path, 'resources']);
  let have = resizeValues(current, ['currentResources']);
  if (podLevel) {
    // `path` ends at the container: the pod's spec.resources sits three levels up (spec.containers[i]).
    want = withPodLimits(want, podLevel.desired, [...path.slice(0, -2), 'resources']);
    // The running container's status reports its limits as applied (the pod's included); only the
    // old spec taken as running needs the old pod-level limits.
    if (podLevel.current !== undefined) have = withPodLimits(have, podLevel.current, ['currentPodResources']);
  }
  if (info.minor <= LAST_MINOR_SKIPPING_NO_LIMITS && !want.hasLimits) {
    return {
      restart: false,
      changes: [],
      skipped: `the container sets no limits: kubelet ${info.release} takes no resize action for it`,
    };
  }
  if (info.minor === MINOR_WITH_MIN_CPU_EQUALITY) {
    if (want.cpuRequest <= MIN_SHARES_MILLI && have.cpuRequest <= MIN_SHARES_MILLI) want.cpuRequest = have.cpuRequest;
    if (want.cpuLimit <= MIN_CPU_LIMIT_MILLI && have.cpuLimit <= MIN_CPU_LIMIT_MILLI) want.cpuLimit = have.cpuLimit;
  }
  const rows: [string, 'cpu' | 'memory', bigint, bigint, string][] = [
    ['memory limit', 'memory', have.memoryLimit, want.memoryLimit, 'bytes'],
    // Only when the running container's memory request is known (a status without it says nothing).
    ...(info.minor >= FIRST_MINOR_MEMORY_REQUEST && have.hasMemoryRequest
      ? [
          ['memory request', 'memory', have.memoryRequest, want.memoryRequest, 'bytes'] as [
            string,
            'cpu' | 'memory',
            bigint,
            bigint,
            string,
          ],
        ]
      : []),
    ['CPU limit', 'cpu', have.cpuLimit, want.cpuLimit, 'm'],
    ['CPU request', 'cpu', have.cpuRequest, want.cpuRequest, 'm'],
  ];
  let restart = false;
  const changes: string[] = [];
  for (const [label, resource, from, to, unit] of rows) {
    if (from === to) continue;
    const policy = restartPolicyFor(desired, resource);
    if (policy === 'RestartContainer') restart = true;
    const u = unit === 'm' ? 'm' : ' bytes';
    changes.push(`${label} ${from}${u} → ${to}${u} (${resource} resizePolicy ${policy})`);
  }
  return { restart, changes };
}
