/**
 * OpenKruise's answer to a CloneSet, Advanced StatefulSet or Advanced DaemonSet edit, per
 * OpenKruise release: recreate the pods, patch them in place (then the kubelet decides per
 * container), or refuse (InPlaceOnly). The in-place test restates defaultCalculateInPlaceUpdateSpec
 * (pkg/util/inplaceupdate/inplace_update_defaults.go) over the template changes: only replaces of
 * `spec.containers[N].image`, metadata, and (v1.8+, InPlaceWorkloadVerticalScaling) replaces of
 * cpu/memory requests and limits that keep the QoS class.
 */
import { isPlainObject } from '../decode/input.js';
import { fieldPath, isAbsent, valueAt, type TemplateChange } from './template-diff.js';
import type { OpenKruiseRelease } from './openkruise-release.js';
import { qosClass } from './qos.js';
import type { RolloutRuleId } from './rollout-rules.js';
import type { Decision } from './verdict.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** The OpenKruise workloads modelled. */
export type KruiseKind = 'CloneSet' | 'StatefulSet' | 'DaemonSet';

/** An in-place decision also names the rules that admitted it and the containers OpenKruise restarts itself. */
export interface KruiseDecision extends Decision {
  inPlaceRules?: RolloutRuleId[];
  /** Containers restarted by OpenKruise to take env from changed metadata, with the reason. */
  envRestarts?: Map<string, string>;
}

interface Strategy {
  policy: 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly';
  onDelete: boolean;
  paused: boolean;
  pods: string;
}

/** The update strategy of a kruise workload, with its defaults (apis/apps/defaults/v1alpha1.go, v1beta1.go). */
function strategyOf(kind: KruiseKind, spec: Obj): Strategy {
  const s = obj(spec['updateStrategy']);
  const ru = obj(s['rollingUpdate']);
  const partition = kind === 'CloneSet' ? s['partition'] : ru['partition'];
  const keep =
    isAbsent(partition) || String(partition) === '0' || String(partition) === '0%' ? null : String(partition);
  const pods =
    keep === null
      ? 'every pod'
      : kind === 'StatefulSet'
        ? `ordinals ≥ ${keep} (partition)`
        : `all but ${keep} pods (partition)`;
  if (kind === 'CloneSet') {
    const t = s['type'];
    const policy = t === 'InPlaceIfPossible' || t === 'InPlaceOnly' ? t : 'ReCreate';
    return { policy, onDelete: false, paused: s['paused'] === true, pods };
  }
  const onDelete = s['type'] === 'OnDelete';
  if (kind === 'StatefulSet') {
    const p = ru['podUpdatePolicy'];
    const policy = p === 'InPlaceIfPossible' || p === 'InPlaceOnly' ? p : 'ReCreate';
    return { policy, onDelete, paused: ru['paused'] === true, pods };
  }
  // Advanced DaemonSet: rollingUpdate.type Standard (or the deprecated Surging) recreates.
  const policy = ru['type'] === 'InPlaceIfPossible' ? 'InPlaceIfPossible' : 'ReCreate';
  return { policy, onDelete, paused: ru['paused'] === true, pods };
}

/** The cluster's side of a resize: its release, and how it takes a cpu/memory change of a running pod. */
export interface KubernetesResize {
  release: string;
  minor: number;
  /** `update`: in the Pod update (1.27–1.31 with the gate); `resize`: pods/resize (1.32+); null: not at all. */
  takes: 'update' | 'resize' | null;
}

/** OpenKruise's decision for a template change of a kruise workload. */
export function kruiseRollout(
  kind: KruiseKind,
  newObj: unknown,
  oldTemplate: unknown,
  newTemplate: unknown,
  changes: readonly TemplateChange[],
  kruise: OpenKruiseRelease,
  kube: KubernetesResize,
): KruiseDecision {
  const at = `OpenKruise ${kruise.release}`;
  if (changes.length === 0) {
    return {
      verdict: 'unchanged',
      decidedBy: 'controller',
      ruleId: 'template-unchanged',
      reason: `the pod template is unchanged once decoded: no new revision (${at})`,
      pods: 'none',
    };
  }
  const s = strategyOf(kind, obj(obj(newObj)['spec']));
  const what = changes.map((c) => fieldPath(c.path)).join(', ');
  // InPlaceOnly: the validating webhook admits only image replaces in the template spec.
  if (s.policy === 'InPlaceOnly') {
    const bad = changes.find((c) => c.path[0] === 'spec' && !isImageReplace(c));
    if (bad) {
      return {
        verdict: 'refused',
        decidedBy: 'controller',
        ruleId: 'kruise-in-place-only-refused',
        reason: `InPlaceOnly: ${at}'s webhook only allows image updates in the template spec, found ${bad.op} ${fieldPath(bad.path)}`,
        pods: 'none',
        field: `spec.template.${fieldPath(bad.path)}`,
        reportedField: `spec.template.${fieldPath(bad.path)}`,
      };
    }
  }
  if (s.onDelete) {
    return {
      verdict: 'on-delete',
      decidedBy: 'controller',
      ruleId: 'kruise-on-delete',
      reason: `OnDelete: the template change (${what}) reaches a pod when it is deleted`,
      pods: 'none until deleted',
    };
  }
  if (s.paused) {
    return {
      verdict: 'held',
      decidedBy: 'controller',
      ruleId: 'kruise-paused',
      reason: `the update is paused: no pod is updated until it is unpaused (${what})`,
      pods: 'none until unpaused',
    };
  }
  if (s.policy === 'ReCreate') {
    return {
      verdict: 'replaced',
      decidedBy: 'controller',
      ruleId: 'kruise-recreate',
      reason: `ReCreate: the template changed (${what}); ${at} deletes and recreates ${s.pods}`,
      pods: s.pods,
    };
  }
  const inPlace = inPlaceRules(changes, kruise, oldTemplate, newTemplate);
  if (typeof inPlace === 'string') {
    return {
      verdict: 'replaced',
      decidedBy: 'controller',
      ruleId: 'kruise-recreate-fallback',
      reason: `InPlaceIfPossible, but ${inPlace}: ${at} deletes and recreates ${s.pods}`,
      pods: s.pods,
    };
  }
  if (inPlace.includes('kruise-in-place-resources')) {
    const refused = resizeRefused(kruise, kube, changes);
    if (refused) return refused;
  }
  const envRestarts = kruise.envFromMetadata ? envReaders(changes, newTemplate, kruise) : new Map<string, string>();
  return {
    verdict: 'in-place',
    decidedBy: 'kubelet',
    ruleId: inPlace[0] ?? 'kruise-in-place-metadata',
    reason: `${s.policy}: ${at} patches ${s.pods} in place (${what}); the kubelet decides per container`,
    pods: s.pods,
    inPlaceRules: inPlace,
    envRestarts,
  };
}

/**
 * Kruise's request that writes new resources into a pod, when the cluster refuses it: v1.8 sends
 * a Pod update (updatePodInPlace, pkg/util/inplaceupdate/inplace_update.go:361 (v1.8.2)); v1.9
 * patches pods/resize once the apiserver is 1.32+ (inplace_update.go:397, pkg/client/registry.go:57
 * (v1.9.0)). A Pod update carrying resources is refused at spec outside 1.27–1.31 with the gate
 * (ValidatePodUpdate, pkg/apis/core/validation/validation.go:5331 (v1.33.13)).
 */
function resizeRefused(
  kruise: OpenKruiseRelease,
  kube: KubernetesResize,
  changes: readonly TemplateChange[],
): KruiseDecision | null {
  const sends = kruise.minor >= 9 && kube.minor >= 32 ? 'resize' : 'update';
  if (kube.takes === sends) return null;
  const first = changes.find((c) => c.path[0] === 'spec' && c.path[3] === 'resources')!;
  const why =
    kube.takes === null
      ? 'InPlacePodVerticalScaling is off'
      : kube.takes === 'resize'
        ? 'a running pod takes new resources only through pods/resize'
        : 'it serves no pods/resize before 1.32';
  return {
    verdict: 'refused',
    decidedBy: 'apiserver',
    ruleId: 'kruise-resources-not-resizable',
    reason: `OpenKruise ${kruise.release} writes the new resources with ${sends === 'update' ? 'a Pod update' : 'a pods/resize patch'}, which the Kubernetes ${kube.release} apiserver refuses (${why}): the pods run on unchanged while OpenKruise retries (FailedUpdatePodInPlace)`,
    pods: 'none',
    field: `spec.template.${fieldPath(first.path)}`,
    ...(sends === 'update' ? { reportedField: 'spec' } : {}),
  };
}

function isImageReplace(c: TemplateChange): boolean {
  const p = c.path;
  return c.op === 'replace' && p.length === 4 && p[0] === 'spec' && p[1] === 'containers' && p[3] === 'image';
}

/** The rules that admit every change in place, or why one is not applied in place. */
function inPlaceRules(
  changes: readonly TemplateChange[],
  kruise: OpenKruiseRelease,
  oldTemplate: unknown,
  newTemplate: unknown,
): RolloutRuleId[] | string {
  const ids = new Set<RolloutRuleId>();
  let resources = false;
  for (const c of changes) {
    const p = c.path;
    if (p[0] === 'metadata') {
      ids.add('kruise-in-place-metadata');
      continue;
    }
    if (isImageReplace(c)) {
      ids.add('kruise-in-place-image');
      continue;
    }
    const resource =
      p.length === 6 &&
      p[1] === 'containers' &&
      p[3] === 'resources' &&
      (p[4] === 'limits' || p[4] === 'requests') &&
      (p[5] === 'cpu' || p[5] === 'memory');
    if (kruise.verticalScaling && resource && c.op === 'replace') {
      ids.add('kruise-in-place-resources');
      resources = true;
      continue;
    }
    const hint = kruise.verticalScaling
      ? ' (resources in place: a replace of cpu/memory requests or limits only)'
      : kruise.minor >= 8 && p[3] === 'resources'
        ? ' (resources need InPlaceWorkloadVerticalScaling)'
        : '';
    return `${c.op} ${fieldPath(p)} is not an in-place change${hint}`;
  }
  if (resources) {
    const before = qosClass(obj(obj(oldTemplate)['spec']));
    const after = qosClass(obj(obj(newTemplate)['spec']));
    if (before !== after) return `the QoS class changes (${before} → ${after})`;
  }
  return [...ids];
}

const EXCLUDED_ENV = new Set(['SIDECARSET_VERSION', 'SIDECARSET_VERSION_ALT']);

/** Containers whose env reads, through fieldRef, a label or annotation the change adds or sets (v1.0: or removes). */
function envReaders(
  changes: readonly TemplateChange[],
  newTemplate: unknown,
  kruise: OpenKruiseRelease,
): Map<string, string> {
  const keys: { where: 'labels' | 'annotations'; key: string }[] = [];
  for (const c of changes) {
    const [top, where, key] = c.path;
    if (top !== 'metadata' || (where !== 'labels' && where !== 'annotations')) continue;
    if (c.op === 'remove' && kruise.minor >= 1) continue;
    if (typeof key === 'string') keys.push({ where, key });
    else {
      // A whole map added or removed: every key of the new map.
      for (const k of Object.keys(obj(valueAt(newTemplate, ['metadata', where])))) keys.push({ where, key: k });
    }
  }
  const out = new Map<string, string>();
  const containers = valueAt(newTemplate, ['spec', 'containers']);
  for (const c of Array.isArray(containers) ? (containers as unknown[]) : []) {
    const name = obj(c)['name'];
    const env = obj(c)['env'];
    for (const e of Array.isArray(env) ? (env as unknown[]) : []) {
      const ev = obj(e);
      if (!isAbsent(ev['value']) || typeof ev['name'] !== 'string' || EXCLUDED_ENV.has(ev['name'])) continue;
      const path = obj(obj(ev['valueFrom'])['fieldRef'])['fieldPath'];
      const hit = keys.find((k) => path === `metadata.${k.where}['${k.key}']`);
      if (hit && typeof name === 'string' && !out.has(name)) {
        out.set(name, `env ${ev['name']} reads metadata.${hit.where}['${hit.key}'], which changed`);
      }
    }
  }
  return out;
}
