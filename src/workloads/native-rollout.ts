/**
 * The native controllers' answer to a workload edit: Deployment, ReplicaSet,
 * ReplicationController, StatefulSet, DaemonSet, Job and CronJob. Which pods are replaced, when,
 * or whether the apiserver refuses the edit first; never a per-container verdict, since a
 * replaced pod's containers are all new.
 */
import { isPlainObject } from '../decode/input.js';
import { deepEqual } from '../go/value-diff.js';
import type { ReleaseInfo } from '../releases/index.js';
import { fieldPath, isAbsent, type TemplateChange } from './template-diff.js';
import { rolloutRule } from './rollout-rules.js';
import type { Decision } from './verdict.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** The kinds this module decides for (the built-in API groups). */
export const NATIVE_KINDS = [
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
] as const;
export type NativeKind = (typeof NATIVE_KINDS)[number];

/** What the template changes amount to, from `changes` (empty when the decoded templates are equal). */
export function nativeRollout(
  kind: NativeKind,
  oldObj: unknown,
  newObj: unknown,
  changes: readonly TemplateChange[],
  info: ReleaseInfo,
): Decision {
  const before = obj(obj(oldObj)['spec']);
  const after = obj(obj(newObj)['spec']);
  const immutable = refusedSpecField(kind, obj(newObj)['apiVersion'], before, after, info);
  if (immutable) return immutable;
  const first = changes[0];
  if (kind === 'Job' && first) {
    return {
      verdict: 'refused',
      decidedBy: 'apiserver',
      ruleId: 'job-template-immutable',
      reason: `a Job's pod template is immutable (first change: spec.template.${fieldPath(first.path)})`,
      pods: 'none',
      field: `spec.template.${fieldPath(first.path)}`,
      reportedField: 'spec.template',
    };
  }
  if (!first) {
    return {
      verdict: 'unchanged',
      decidedBy: 'controller',
      ruleId: 'template-unchanged',
      reason: `the ${kind === 'CronJob' ? 'job template' : 'pod template'} is unchanged once decoded: no new revision, no pod replaced`,
      pods: 'none',
    };
  }
  const what = changes.map((c) => fieldPath(c.path)).join(', ');
  switch (kind) {
    case 'Deployment': {
      if (after['paused'] === true) {
        return {
          verdict: 'held',
          decidedBy: 'controller',
          ruleId: 'deployment-paused',
          reason: `the Deployment is paused: the template change (${what}) rolls out when it is resumed, replacing every pod`,
          pods: 'none until resumed, then every pod',
        };
      }
      const strategy = obj(after['strategy'])['type'] === 'Recreate' ? 'Recreate' : 'RollingUpdate';
      return {
        verdict: 'replaced',
        decidedBy: 'controller',
        ruleId: 'deployment-rollout',
        reason: `the template changed (${what}): a new ReplicaSet replaces every pod (${strategy})`,
        pods: 'every pod',
      };
    }
    case 'ReplicaSet':
    case 'ReplicationController':
      return {
        verdict: 'future-pods',
        decidedBy: 'controller',
        ruleId: 'replicaset-future-pods',
        reason: `the template changed (${what}): running pods are kept; only pods created later use it`,
        pods: 'none (new pods only)',
      };
    case 'StatefulSet':
      return statefulSet(after, what);
    case 'DaemonSet':
      if (obj(after['updateStrategy'])['type'] === 'OnDelete') {
        return {
          verdict: 'on-delete',
          decidedBy: 'controller',
          ruleId: 'daemonset-on-delete',
          reason: `OnDelete: the template change (${what}) reaches a node when its pod is deleted`,
          pods: 'none until deleted',
        };
      }
      return {
        verdict: 'replaced',
        decidedBy: 'controller',
        ruleId: 'daemonset-rolling-update',
        reason: `the template changed (${what}): RollingUpdate replaces the pod on every node`,
        pods: 'every pod',
      };
    case 'CronJob':
      return {
        verdict: 'future-pods',
        decidedBy: 'controller',
        ruleId: 'cronjob-future-jobs',
        reason: `the job template changed (${what}): Jobs created from now on use it; running Jobs are left alone`,
        pods: 'none (future Jobs only)',
      };
    case 'Job':
      throw new Error('unreachable: a Job template change is refused above');
  }
}

function statefulSet(spec: Obj, what: string): Decision {
  const strategy = obj(spec['updateStrategy']);
  if (strategy['type'] === 'OnDelete') {
    return {
      verdict: 'on-delete',
      decidedBy: 'controller',
      ruleId: 'statefulset-on-delete',
      reason: `OnDelete: the template change (${what}) reaches a pod when it is deleted`,
      pods: 'none until deleted',
    };
  }
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : Number(spec['replicas'] ?? 1);
  const partitionRaw = obj(strategy['rollingUpdate'])['partition'];
  const partition = isAbsent(partitionRaw) ? 0 : Number(partitionRaw);
  if (partition >= replicas) {
    return {
      verdict: 'held',
      decidedBy: 'controller',
      ruleId: 'statefulset-rolling-update',
      reason: `partition ${partition} ≥ replicas ${replicas}: no pod is replaced until the partition is lowered`,
      pods: 'none (partition)',
    };
  }
  const pods = partition === 0 ? 'every pod' : `ordinals ${partition}–${replicas - 1} (partition ${partition})`;
  return {
    verdict: 'replaced',
    decidedBy: 'controller',
    ruleId: 'statefulset-rolling-update',
    reason: `the template changed (${what}): RollingUpdate deletes and recreates ${pods}, highest ordinal first`,
    pods,
  };
}

const STATEFULSET_IMMUTABLE = ['selector', 'serviceName', 'volumeClaimTemplates', 'podManagementPolicy'];
const STATEFULSET_FIELDS_1_37 = ['selector', 'volumeClaimTemplates', 'serviceName', 'podManagementPolicy'];
const SELECTOR_IMMUTABLE: readonly string[] = ['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet'];

/** The apiserver's refusal of a workload spec field outside the template, or null. */
function refusedSpecField(
  kind: NativeKind,
  apiVersion: unknown,
  before: Obj,
  after: Obj,
  info: ReleaseInfo,
): Decision | null {
  const changed = (k: string) => !(isAbsent(before[k]) && isAbsent(after[k])) && !deepEqual(before[k], after[k]);
  const appsV1 = apiVersion === undefined || apiVersion === 'apps/v1' || apiVersion === 'apps/v1beta2';
  if (SELECTOR_IMMUTABLE.includes(kind) && appsV1 && info.minor >= rolloutRule('apps-selector-immutable').firstMinor) {
    if (changed('selector')) {
      return {
        verdict: 'refused',
        decidedBy: 'apiserver',
        ruleId: 'apps-selector-immutable',
        reason: 'field is immutable',
        pods: 'none',
        field: 'spec.selector',
        reportedField: 'spec.selector',
      };
    }
  }
  if (kind === 'StatefulSet') {
    // From 1.37 each immutable field is refused at its own path, in ValidateStatefulSetUpdate's order.
    const perField = info.minor >= rolloutRule('statefulset-field-immutable').firstMinor;
    const k = (perField ? STATEFULSET_FIELDS_1_37 : STATEFULSET_IMMUTABLE).find(changed);
    if (k && perField) {
      return {
        verdict: 'refused',
        decidedBy: 'apiserver',
        ruleId: 'statefulset-field-immutable',
        reason: `field is immutable (spec.${k} changed)`,
        pods: 'none',
        field: `spec.${k}`,
        reportedField: `spec.${k}`,
      };
    }
    if (k) {
      return {
        verdict: 'refused',
        decidedBy: 'apiserver',
        ruleId: 'statefulset-spec-immutable',
        reason: `updates to statefulset spec for fields other than the mutable ones are forbidden (spec.${k} changed)`,
        pods: 'none',
        field: `spec.${k}`,
        reportedField: 'spec',
      };
    }
  }
  return null;
}
