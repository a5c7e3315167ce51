/**
 * The apiserver's checks of a cpu/memory change of a running Pod, per release: in the Pod update
 * itself on 1.27–1.31 (ValidatePodUpdate's resource munging), through the resize subresource
 * from 1.32 (ValidatePodResize). Read at v1.29.6, v1.30.14, v1.31.14 (update) and v1.32.13,
 * v1.33.13, v1.34.4, v1.35.4, v1.36.3, v1.37.2 (ValidatePodResize); the release boundaries are
 * the rows' (RESIZE_* ids in ROLLOUT_RULES).
 */
import { isPlainObject } from '../decode/input.js';
import { deepEqual } from '../go/value-diff.js';
import type { ReleaseInfo } from '../releases/index.js';
import { parseQuantity, type QuantityValue } from '../quantity/quantity.js';
import { JsonNumber } from '../json/number.js';
import { qosClass } from './qos.js';
import { rolloutRule, type RolloutRuleId } from './rollout-rules.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const within = (id: RolloutRuleId, minor: number): boolean => {
  const r = rolloutRule(id);
  return minor >= r.firstMinor && (r.lastMinor === null || minor <= r.lastMinor);
};

/** A refused resize: the rule, the path the apiserver prints and why. */
export interface ResizeRefusal {
  ruleId: RolloutRuleId;
  reportedField: string;
  reason: string;
}

/** A resource list as Go decodes it: absent or null is a nil map (an empty `{}` is not nil). */
const isNil = (v: unknown): boolean => v === undefined || v === null;

/** The entries other than cpu and memory, which no resize may change. */
const others = (list: unknown): Obj =>
  Object.fromEntries(Object.entries(obj(list)).filter(([k]) => k !== 'cpu' && k !== 'memory'));

/**
 * The munge both paths share (mungeCpuMemResources, dropCPUMemoryUpdates): a nil old list
 * admits any new list; otherwise only cpu and memory may differ.
 */
function onlyCpuMemory(newRes: Obj, oldRes: Obj): boolean {
  return ['limits', 'requests'].every((k) => isNil(oldRes[k]) || deepEqual(others(newRes[k]), others(oldRes[k])));
}

/** A quantity as n × 10^exp (the int64 amount, or the inf.Dec one when the value outgrew it). */
function decimal(v: unknown): { n: bigint; exp: number } | null {
  const text = typeof v === 'string' || typeof v === 'number' ? String(v) : v instanceof JsonNumber ? v.text : null;
  if (text === null) return null;
  let q: QuantityValue;
  try {
    q = parseQuantity(text);
  } catch {
    return null;
  }
  const dec = q.d.Dec;
  if (dec === null) return { n: q.i.value, exp: q.i.scale };
  const abs = (dec.unscaled.abs ?? []).reduceRight((acc, w) => (acc << 64n) + w, 0n);
  return { n: dec.unscaled.neg ? -abs : abs, exp: -dec.scale };
}

/** Quantity.Cmp: negative, zero or positive; null when either side is no quantity. */
function compareQuantities(a: unknown, b: unknown): number | null {
  const [x, y] = [decimal(a), decimal(b)];
  if (x === null || y === null) return null;
  const e = Math.min(x.exp, y.exp);
  const l = x.n * 10n ** BigInt(x.exp - e);
  const r = y.n * 10n ** BigInt(y.exp - e);
  return l === r ? 0 : l < r ? -1 : 1;
}

const restartable = (c: unknown): boolean => obj(c)['restartPolicy'] === 'Always';

/** A container's resources change, judged per container list and release. */
function containerRefusal(
  list: 'containers' | 'initContainers',
  i: number,
  oldC: Obj,
  newC: Obj,
  info: ReleaseInfo,
): ResizeRefusal | null {
  const at = `spec.${list}[${i}].resources`;
  const oldRes = obj(oldC['resources']);
  const newRes = obj(newC['resources']);
  for (const k of ['requests', 'limits'] as const) {
    const before = Object.keys(obj(oldRes[k]));
    // SetDefaults_Pod (pkg/apis/core/v1/defaults.go, every release) gives a request its limit
    // when the request is missing: a request removed beside its limit is not removed.
    const after = k === 'requests' ? { ...obj(newRes['limits']), ...obj(newRes[k]) } : obj(newRes[k]);
    if (before.some((name) => !(name in after))) {
      return { ruleId: 'pod-resize-removal', reportedField: `${at}.${k}`, reason: `resource ${k} cannot be removed` };
    }
  }
  if (within('pod-resize-memory-limit-decrease', info.minor)) {
    const policy = arr(newC['resizePolicy']).find((p) => obj(p)['resourceName'] === 'memory');
    const restart = obj(policy)['restartPolicy'];
    if (restart === undefined || restart === 'NotRequired') {
      const was = obj(oldRes['limits'])['memory'];
      const now = obj(newRes['limits'])['memory'];
      const cmp = compareQuantities(now, was);
      if (now !== undefined && (was === undefined || (cmp !== null && cmp < 0))) {
        return {
          ruleId: 'pod-resize-memory-limit-decrease',
          reportedField: `${at}.limits[memory]`,
          reason: `memory limits cannot be ${was === undefined ? 'added' : 'decreased'} unless resizePolicy is RestartContainer`,
        };
      }
    }
  }
  if (!onlyCpuMemory(newRes, oldRes)) {
    return {
      ruleId: 'pod-spec-immutable',
      reportedField: 'spec',
      reason: 'only cpu and memory resources are mutable',
    };
  }
  return null;
}

/**
 * The refusal of a resources change from `oldPod` to `newPod` through the resize subresource
 * (1.32+), in ValidatePodResize's order, or null when it is admitted.
 */
export function resizeSubresourceRefusal(oldPod: unknown, newPod: unknown, info: ReleaseInfo): ResizeRefusal | null {
  const oldSpec = obj(obj(oldPod)['spec']);
  const newSpec = obj(obj(newPod)['spec']);
  const podLevel = (s: Obj) =>
    Object.keys(obj(obj(s['resources'])['requests'])).length + Object.keys(obj(obj(s['resources'])['limits'])).length >
    0;
  if (within('pod-resize-pod-level-resources', info.minor) && (podLevel(oldSpec) || podLevel(newSpec))) {
    return {
      ruleId: 'pod-resize-pod-level-resources',
      reportedField: '[]',
      reason:
        info.minor >= 35
          ? 'resize of pods with pod-level resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled'
          : 'pods with pod-level resources cannot be resized',
    };
  }
  if (obj(obj(oldPod)['metadata'])['annotations'] !== undefined) {
    const mirror = obj(obj(obj(oldPod)['metadata'])['annotations'])['kubernetes.io/config.mirror'];
    if (mirror !== undefined) {
      return { ruleId: 'pod-resize-static-or-windows', reportedField: '[]', reason: 'static pods cannot be resized' };
    }
  }
  if (obj(oldSpec['os'])['name'] === 'windows') {
    return { ruleId: 'pod-resize-static-or-windows', reportedField: '[]', reason: 'windows pods cannot be resized' };
  }
  if (qosClass(oldSpec) !== qosClass(newSpec)) {
    return {
      ruleId: 'pod-resize-qos',
      reportedField: 'spec',
      reason: `Pod QOS Class may not change as a result of resizing (${qosClass(oldSpec)} → ${qosClass(newSpec)})`,
    };
  }
  // isPodResizeRequestSupported: the first running container's status must carry resources.
  const running = arr(obj(obj(oldPod)['status'])['containerStatuses']).find(
    (s) => !isNil(obj(obj(s)['state'])['running']),
  );
  if (running !== undefined && isNil(obj(running)['resources'])) {
    return {
      ruleId: 'pod-resize-node-support',
      reportedField: 'spec',
      reason: 'Pod running on node without support for resize',
    };
  }
  for (const list of ['initContainers', 'containers'] as const) {
    const olds = arr(oldSpec[list]);
    const news = arr(newSpec[list]);
    for (let i = 0; i < olds.length; i++) {
      const [o, n] = [obj(olds[i]), obj(news[i])];
      if (deepEqual(o['resources'], n['resources'])) continue;
      if (list === 'initContainers') {
        const sidecar = restartable(o);
        const allowed = sidecar
          ? info.minor >= rolloutRule('pod-resize-sidecar').firstMinor
          : info.minor >= rolloutRule('pod-resize-init').firstMinor;
        if (!allowed) {
          // 1.32 checks a sidecar's removals before its catch-all; non-sidecars only meet the catch-all.
          const removal = sidecar ? containerRefusal(list, i, o, n, info) : null;
          if (removal?.ruleId === 'pod-resize-removal') return removal;
          return {
            ruleId: 'pod-spec-immutable',
            reportedField: 'spec',
            reason: sidecar
              ? 'only cpu and memory resources are mutable (sidecars are not resized before 1.33)'
              : 'resources for non-sidecar init containers are immutable',
          };
        }
      }
      const refusal = containerRefusal(list, i, o, n, info);
      if (refusal) return refusal;
    }
  }
  return null;
}

/**
 * The refusal of a resources change in the Pod update itself (1.27–1.31 with the gate): the
 * QoS class may not change (reported at `metadata`), and only regular containers' cpu and memory
 * may differ once munged; removals are not refused on these releases.
 */
export function resizeInUpdateRefusal(oldPod: unknown, newPod: unknown): ResizeRefusal | null {
  const oldSpec = obj(obj(oldPod)['spec']);
  const newSpec = obj(obj(newPod)['spec']);
  if (qosClass(oldSpec) !== qosClass(newSpec)) {
    return {
      ruleId: 'pod-resize-qos',
      reportedField: 'metadata',
      reason: `Pod QoS is immutable (${qosClass(oldSpec)} → ${qosClass(newSpec)})`,
    };
  }
  const olds = arr(oldSpec['initContainers']);
  const news = arr(newSpec['initContainers']);
  if (olds.some((o, i) => !deepEqual(obj(o)['resources'], obj(news[i])['resources']))) {
    return { ruleId: 'pod-spec-immutable', reportedField: 'spec', reason: 'init container resources are immutable' };
  }
  const containers = arr(newSpec['containers']);
  const mismatch = arr(oldSpec['containers']).some(
    (o, i) => !onlyCpuMemory(obj(obj(containers[i])['resources']), obj(obj(o)['resources'])),
  );
  return mismatch
    ? { ruleId: 'pod-spec-immutable', reportedField: 'spec', reason: 'only cpu and memory resources are mutable' }
    : null;
}
