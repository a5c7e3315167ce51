/**
 * The apiserver's update rules for a running Pod (ValidatePodUpdate and the resize and
 * ephemeralcontainers subresources), per release: which changes it admits and through which
 * request, and the first change it refuses with its field.
 */
import type { JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { deepEqual } from '../go/value-diff.js';
import type { ReleaseInfo } from '../releases/index.js';
import { fieldPath, isAbsent, valueAt, type TemplateChange } from './template-diff.js';
import { rolloutRule, type RolloutRuleId } from './rollout-rules.js';
import { invalidPodValue } from './pod-values.js';
import { gatedDirectivesRefusal } from './gated-directives.js';
import { resizeInUpdateRefusal, resizeSubresourceRefusal } from './pod-resize.js';

/** What the apiserver does with a Pod edit. */
export type PodUpdateVerdict =
  | {
      accepted: true;
      /** The requests that carry it: the Pod update, the resize or ephemeralcontainers subresource. */
      requests: ('update' | 'resize' | 'ephemeralcontainers')[];
      /** The rules that admitted a change (in the order of the changes). */
      ruleIds: RolloutRuleId[];
    }
  | {
      accepted: false;
      ruleId: RolloutRuleId;
      /** The first refused change, as a field path (`spec.containers[0].env`). */
      field: string;
      /** The field the apiserver's error names (`spec` for the catch-all refusal). */
      reportedField: string;
      reason: string;
    };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const MIRROR = 'kubernetes.io/config.mirror';
/** The mirror annotation as the apiserver prints its path (field.Path Key: no quotes). */
const MIRROR_PATH = `metadata.annotations[${MIRROR}]`;

/** The first release of a rule row (the rows carry the boundaries and their sources). */
const since = (id: RolloutRuleId): number => rolloutRule(id).firstMinor;

/** Whether resize requests are admitted in this release (1.27–1.31 in the update, 1.32+ by subresource). */
function resizeRule(info: ReleaseInfo, inPlaceResize: boolean): RolloutRuleId | null {
  if (!inPlaceResize || info.minor < since('pod-resources-update')) return null;
  return info.minor >= since('pod-resize-subresource') ? 'pod-resize-subresource' : 'pod-resources-update';
}

/**
 * How a cpu/memory change reaches a running pod on this release: `update` (the Pod update itself,
 * 1.27–1.31 with InPlacePodVerticalScaling), `resize` (the pods/resize subresource, 1.32+ with the
 * gate), or null (no resize: the Pod update refuses it).
 */
export function resizeRequest(info: ReleaseInfo, inPlaceResize: boolean): 'update' | 'resize' | null {
  const rule = resizeRule(info, inPlaceResize);
  return rule === null ? null : rule === 'pod-resources-update' ? 'update' : 'resize';
}

/**
 * The apiserver's verdict on patching `oldPod` into `newPod` (both Pods), given the changes
 * between their metadata and spec. `inPlaceResize` is the InPlacePodVerticalScaling gate.
 */
export function checkPodUpdate(
  oldPod: unknown,
  newPod: unknown,
  changes: readonly TemplateChange[],
  info: ReleaseInfo,
  inPlaceResize: boolean,
): PodUpdateVerdict {
  const refuse = (ruleId: RolloutRuleId, path: readonly JsonPathSegment[], reason: string, reported?: string) => ({
    accepted: false as const,
    ruleId,
    field: fieldPath(path),
    reportedField: reported ?? fieldPath(path),
    reason,
  });
  const oldMeta = obj(obj(oldPod)['metadata']);
  const newMeta = obj(obj(newPod)['metadata']);
  const oldSpec = obj(obj(oldPod)['spec']);
  const newSpec = obj(obj(newPod)['spec']);

  // ValidateObjectMetaUpdate: identity fields, when both sides give them.
  for (const k of ['name', 'namespace', 'uid']) {
    const a = oldMeta[k];
    const b = newMeta[k];
    if (a !== undefined && b !== undefined && a !== b) {
      return refuse('pod-metadata-immutable', ['metadata', k], 'field is immutable');
    }
  }
  const serverSet = serverSetRefusal(oldMeta, newMeta);
  if (serverSet) return refuse('pod-metadata-server-set', serverSet.path, serverSet.reason);
  const oldSpecValues = obj(obj(oldPod)['spec']);
  // The whole new pod is validated (validatePodMetadataAndSpec) before the update rules.
  const invalid = invalidPodValue(oldSpecValues, obj(obj(newPod)['spec']), info);
  if (invalid) {
    return {
      accepted: false,
      ruleId: invalid.ruleId,
      field: invalid.reportedField,
      reportedField: invalid.reportedField,
      reason: invalid.reason,
    };
  }
  const oldMirror = obj(oldMeta['annotations'])[MIRROR];
  const newMirror = obj(newMeta['annotations'])[MIRROR];
  if (oldMirror !== newMirror) {
    return refuse(
      'pod-mirror-annotation',
      ['metadata', 'annotations', MIRROR],
      oldMirror === undefined ? 'may not add mirror pod annotation' : 'may not remove or update mirror pod annotation',
      MIRROR_PATH,
    );
  }

  // ValidateContainerUpdates: same number of containers and init containers, images non-empty.
  for (const list of ['containers', 'initContainers'] as const) {
    const a = Array.isArray(oldSpec[list]) ? (oldSpec[list] as unknown[]) : [];
    const b = Array.isArray(newSpec[list]) ? (newSpec[list] as unknown[]) : [];
    if (a.length !== b.length) {
      return refuse(
        'pod-containers-added-or-removed',
        ['spec', list],
        `pod updates may not add or remove containers (${a.length} → ${b.length} ${list})`,
      );
    }
  }

  const requests = new Set<'update' | 'resize' | 'ephemeralcontainers'>();
  const ruleIds: RolloutRuleId[] = [];
  const admit = (id: RolloutRuleId, via: 'update' | 'resize' | 'ephemeralcontainers') => {
    requests.add(via);
    if (!ruleIds.includes(id)) ruleIds.push(id);
  };
  const resize = resizeRule(info, inPlaceResize);
  let resized: TemplateChange | undefined;
  const forbidden = `pod updates may not change fields other than ${updatableFields(info, resize).join(', ')}`;

  for (const c of changes) {
    const [top, key, index] = c.path;
    if (top === 'metadata') {
      if (key === 'labels' || key === 'annotations') admit('pod-metadata-mutable', 'update');
      // Other metadata (ownerReferences, finalizers, server-set fields) does not reach the kubelet.
      continue;
    }
    if (key === 'containers' || key === 'initContainers') {
      const field = c.path.slice(3);
      if (field.length === 1 && field[0] === 'image' && c.op === 'replace') {
        // ValidateContainerUpdates: the new image must be non-empty and carry no surrounding whitespace.
        const image = valueAt(newSpec, [key, index ?? -1, 'image']);
        if (image === '') return refuse('pod-image', c.path, 'Required value');
        if (typeof image === 'string' && image.trim() !== image) {
          return refuse('pod-image', c.path, 'must not have leading or trailing whitespace');
        }
        admit('pod-image', 'update');
        continue;
      }
      if (field[0] === 'image') return refuse('pod-image', c.path, 'Required value: the image may not be removed');
      // Which resource changes a release admits is judged on the whole pods after the loop.
      if (field[0] === 'resources' && resize) {
        resized ??= c;
        admit(resize, resize === 'pod-resize-subresource' ? 'resize' : 'update');
        // An init container's resize is a rule of its own (sidecars 1.33+, others 1.36+), checked after the loop.
        if (key === 'initContainers' && resize === 'pod-resize-subresource') {
          const sidecar = obj(valueAt(newSpec, [key, index ?? -1]))['restartPolicy'] === 'Always';
          admit(sidecar ? 'pod-resize-sidecar' : 'pod-resize-init', 'resize');
        }
        continue;
      }
      return refuse('pod-spec-immutable', c.path, forbidden, 'spec');
    }
    if (key === 'ephemeralContainers') {
      // Before 1.23 only the Pod update itself could carry them: the catch-all refuses at spec.
      if (info.minor < since('pod-ephemeral-subresource'))
        return refuse('pod-spec-immutable', c.path, forbidden, 'spec');
      // The subresource takes ephemeral containers alone: with anything else it is one Pod update.
      if (changes.some((x) => !(x.path[0] === 'spec' && x.path[1] === 'ephemeralContainers')))
        return refuse('pod-ephemeral-alone', c.path, forbidden, 'spec');
      if (oldMirror !== undefined && info.minor >= since('pod-static-no-ephemeral')) {
        // field.NewPath("") prints as `[]`.
        return refuse('pod-static-no-ephemeral', c.path, 'static pods do not support ephemeral containers', '[]');
      }
      const verdict = ephemeralVerdict(oldSpec, newSpec);
      if (verdict) {
        return refuse(
          'pod-ephemeral-immutable',
          verdict.path,
          `existing ephemeral containers ${JSON.stringify(verdict.name)} may not be ${verdict.removed ? 'removed' : 'changed'}`,
          'spec.ephemeralContainers',
        );
      }
      admit('pod-ephemeral-subresource', 'ephemeralcontainers');
      continue;
    }
    if ((key === 'nodeSelector' || key === 'affinity') && gated(oldSpec, info)) {
      const refusal = gatedDirectivesRefusal(oldSpec, newSpec);
      if (refusal?.catchAll) return refuse('pod-spec-immutable', c.path, forbidden, 'spec');
      if (refusal) return refuse('pod-gated-scheduling-directives', c.path, refusal.reason, refusal.reportedField);
      admit('pod-gated-scheduling-directives', 'update');
      continue;
    }
    if (key === 'activeDeadlineSeconds') {
      const before = oldSpec['activeDeadlineSeconds'];
      const after = newSpec['activeDeadlineSeconds'];
      if (isAbsent(after))
        return refuse('pod-active-deadline', c.path, 'must not update from a positive integer to nil value');
      if (!isAbsent(before) && Number(after) > Number(before)) {
        return refuse('pod-active-deadline', c.path, 'must be less than or equal to previous value');
      }
      admit('pod-active-deadline', 'update');
      continue;
    }
    if (key === 'tolerations') {
      const admitted = withDefaultTolerations(newSpec['tolerations']);
      const missing = onlyAddedTolerations(oldSpec['tolerations'], admitted);
      if (missing !== null) {
        return refuse(
          'pod-tolerations-added',
          ['spec', 'tolerations'],
          `existing toleration can not be modified except its tolerationSeconds (spec.tolerations[${missing}] of the old pod)`,
        );
      }
      admit('pod-tolerations-added', 'update');
      const given = Array.isArray(newSpec['tolerations']) ? (newSpec['tolerations'] as unknown[]).length : 0;
      if (admitted.length > given) admit('pod-default-tolerations', 'update');
      const used = Array.isArray(newSpec['tolerations']) ? (newSpec['tolerations'] as unknown[]) : [];
      if (used.some((t) => ['Lt', 'Gt'].includes(String(obj(t)['operator']))))
        admit('pod-toleration-comparison', 'update');
      continue;
    }
    if (key === 'schedulingGates' && info.minor >= since('pod-scheduling-gates-removed')) {
      const before = Array.isArray(oldSpec['schedulingGates']) ? (oldSpec['schedulingGates'] as unknown[]) : [];
      const after = Array.isArray(newSpec['schedulingGates']) ? (newSpec['schedulingGates'] as unknown[]) : [];
      // validateOnlyDeletedSchedulingGates compares names and names the new gate by its index.
      const names = new Set(before.map((o) => obj(o)['name']));
      const added = after.findIndex((g) => !names.has(obj(g)['name']));
      if (added >= 0) {
        const at = ['spec', 'schedulingGates', added, 'name'];
        return refuse(
          'pod-scheduling-gates-removed',
          at,
          `only deletion is allowed, but found new scheduling gate ${JSON.stringify(obj(after[added])['name'])}`,
        );
      }
      admit('pod-scheduling-gates-removed', 'update');
      continue;
    }
    if (key === 'terminationGracePeriodSeconds' && info.minor >= since('pod-termination-grace-negative')) {
      const before = oldSpec['terminationGracePeriodSeconds'];
      if (Number(before) < 0 && Number(newSpec['terminationGracePeriodSeconds']) === 1) {
        admit('pod-termination-grace-negative', 'update');
        continue;
      }
    }
    return refuse('pod-spec-immutable', c.path, forbidden, 'spec');
  }

  if (resized) {
    const refusal =
      resize === 'pod-resize-subresource'
        ? resizeSubresourceRefusal(oldPod, newPod, info)
        : resizeInUpdateRefusal(oldPod, newPod);
    if (refusal) return refuse(refusal.ruleId, resized.path, refusal.reason, refusal.reportedField);
  }
  // From 1.33 a resize is its own request, which changes nothing else.
  if (requests.has('resize') && requests.has('update') && resized) {
    // Sent together, it is one Pod update, whose catch-all refuses the resources at spec.
    return refuse(
      'pod-resize-subresource',
      resized.path,
      'resources change only through the resize subresource, in a request that changes nothing else (send the other changes apart)',
      'spec',
    );
  }
  return { accepted: true, requests: requests.size > 0 ? [...requests] : ['update'], ruleIds };
}

/** The fields the release's ValidatePodUpdate message lists as updatable. */
function updatableFields(info: ReleaseInfo, resize: RolloutRuleId | null): string[] {
  const out = ['spec.containers[*].image', 'spec.initContainers[*].image', 'spec.activeDeadlineSeconds'];
  out.push('spec.tolerations (only additions to existing tolerations)');
  if (info.minor >= since('pod-termination-grace-negative'))
    out.push('spec.terminationGracePeriodSeconds (allow it to be set to 1 if it was previously negative)');
  if (resize === 'pod-resources-update') out.push('spec.containers[*].resources (for CPU/memory only)');
  if (info.minor >= since('pod-scheduling-gates-removed')) out.push('spec.schedulingGates (only deletions)');
  return out;
}

/**
 * null when `after` keeps every ephemeral container of `before` unchanged (and only adds); else
 * the first one removed or changed (matched by name, as patches do not keep the order).
 */
function ephemeralVerdict(
  before: Obj,
  after: Obj,
): { path: JsonPathSegment[]; name: unknown; removed: boolean } | null {
  const a = Array.isArray(before['ephemeralContainers']) ? (before['ephemeralContainers'] as unknown[]) : [];
  const b = Array.isArray(after['ephemeralContainers']) ? (after['ephemeralContainers'] as unknown[]) : [];
  for (let i = 0; i < a.length; i++) {
    const name = obj(a[i])['name'];
    const j = b.findIndex((x) => obj(x)['name'] === name);
    if (j < 0 || !deepEqual(a[i], b[j])) {
      return { path: ['spec', 'ephemeralContainers', j < 0 ? i : j], name, removed: j < 0 };
    }
  }
  return null;
}

/** A pod still held by scheduling gates, in a release where its scheduling directives are mutable. */
function gated(spec: Obj, info: ReleaseInfo): boolean {
  const gates = spec['schedulingGates'];
  return Array.isArray(gates) && gates.length > 0 && info.minor >= since('pod-gated-scheduling-directives');
}

/**
 * ValidateObjectMetaAccessorUpdate's server-set fields, after BeforeUpdate has put back what an
 * update may not change (a set deletionTimestamp, a removed deletionGracePeriodSeconds).
 */
function serverSetRefusal(oldMeta: Obj, newMeta: Obj): { path: JsonPathSegment[]; reason: string } | null {
  const deleting = !isAbsent(oldMeta['deletionTimestamp']);
  if (!deleting && !isAbsent(newMeta['deletionTimestamp'])) {
    return { path: ['metadata', 'deletionTimestamp'], reason: 'field is immutable' };
  }
  const before = oldMeta['deletionGracePeriodSeconds'];
  const after = newMeta['deletionGracePeriodSeconds'];
  if (!isAbsent(after) && (isAbsent(before) || !deepEqual(before, after))) {
    return { path: ['metadata', 'deletionGracePeriodSeconds'], reason: 'field is immutable' };
  }
  if (deleting) {
    const list = (m: Obj) => (Array.isArray(m['finalizers']) ? (m['finalizers'] as unknown[]) : []);
    const old = list(oldMeta);
    if (list(newMeta).some((f) => !old.includes(f))) {
      return {
        path: ['metadata', 'finalizers'],
        reason: 'no new finalizers can be added if the object is being deleted',
      };
    }
  }
  return null;
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/**
 * The DefaultTolerationSeconds admission plugin (on by default, before validation): a pod left
 * without a NoExecute toleration of not-ready or unreachable gets one back, with 300 s.
 */
function withDefaultTolerations(list: unknown): unknown[] {
  const out = Array.isArray(list) ? [...(list as unknown[])] : [];
  const tolerates = (key: string) =>
    out.some((t) => {
      const k = obj(t)['key'] ?? '';
      const e = obj(t)['effect'] ?? '';
      return (k === key || k === '') && (e === 'NoExecute' || e === '');
    });
  for (const key of [NOT_READY, UNREACHABLE])
    if (!tolerates(key)) out.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  return out;
}

/** The index of an old toleration the new list lacks (compared without tolerationSeconds), or null. */
function onlyAddedTolerations(before: unknown, after: unknown): number | null {
  const a = Array.isArray(before) ? (before as unknown[]) : [];
  const b = Array.isArray(after) ? (after as unknown[]) : [];
  const strip = (t: unknown) => Object.fromEntries(Object.entries(obj(t)).filter(([k]) => k !== 'tolerationSeconds'));
  const i = a.findIndex((t) => !b.some((n) => deepEqual(strip(t), strip(n))));
  return i < 0 ? null : i;
}
