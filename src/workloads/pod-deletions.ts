/**
 * Edits that remove running pods outright, whatever the template says: a Pod's active deadline
 * brought below its age (the kubelet kills it), a Job suspended, its parallelism lowered or its
 * active deadline brought below its age (the Job controller deletes active pods), a workload
 * scaled down, and an OpenKruise CloneSet told which pods to delete. Each answer names the pods
 * when the objects say which (a StatefulSet's ordinals, podsToDelete, the Pod itself) and counts
 * them when the status says how many run.
 */
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { JsonNumber } from '../json/number.js';
import type { ReleaseInfo } from '../releases/index.js';
import { isAbsent } from './template-diff.js';
import { rolloutRule, type RolloutRuleId } from './rollout-rules.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** Running pods an edit removes. */
export interface PodDeletion {
  ruleId: RolloutRuleId;
  decidedBy: 'kubelet' | 'controller';
  reason: string;
  /** Which pods, for people (`web-3, web-4`, `every active pod`). */
  pods: string;
  /** The pods' names, where the objects say which (empty when only a count or nothing is known). */
  podNames: string[];
}

/**
 * A whole number from a JSON value (numbers may arrive as JsonNumber text); null when absent.
 * Anything else is refused as the apiserver's decoder refuses it, naming the field.
 */
function int(v: unknown, path: readonly JsonPathSegment[]): number | null {
  if (isAbsent(v)) return null;
  const n = v instanceof JsonNumber ? Number(v.text) : typeof v === 'number' ? v : NaN;
  if (Number.isInteger(n)) return n;
  if (v instanceof JsonNumber || typeof v === 'number') {
    throw new DecodeError('NOT_AN_INTEGER', path, 'an integer', `found ${v instanceof JsonNumber ? v.text : v}`);
  }
  throw new DecodeError('INVALID_TYPE', path, 'an integer', `found ${JSON.stringify(v)}`);
}

/** Seconds from an RFC 3339 time (status.startTime) to `now`, or null when there is no time to read. */
function ageSeconds(start: unknown, now: number): number | null {
  if (typeof start !== 'string') return null;
  const t = Date.parse(start);
  return Number.isNaN(t) ? null : (now - t) / 1000;
}

/**
 * A deadline newly set or lowered, compared with the object's age. The kubelet and the Job
 * controller both end the object when `now − status.startTime ≥ activeDeadlineSeconds`; without
 * a startTime in either side's status the age is unknown, and the edit is taken as killing (an
 * operator's OLD often carries no status), saying so.
 */
function deadlineKills(
  before: Obj,
  after: Obj,
  statuses: Obj[],
  now: number,
): { kills: boolean; deadline: number; age: number | null } | null {
  const deadline = int(after['activeDeadlineSeconds'], ['spec', 'activeDeadlineSeconds']);
  if (deadline === null) return null;
  const previous = int(before['activeDeadlineSeconds'], ['spec', 'activeDeadlineSeconds']);
  // An unchanged or raised deadline ends nothing the old one would not have ended.
  if (previous !== null && deadline >= previous) return null;
  const start = statuses.map((s) => s['startTime']).find((t) => typeof t === 'string');
  const age = ageSeconds(start, now);
  return { kills: age === null || age >= deadline, deadline, age };
}

const ageText = (d: { deadline: number; age: number | null }, what: string): string =>
  d.age === null
    ? `no status.startTime given: ${what} is taken to have run at least ${d.deadline}s`
    : `${what} has run ${Math.floor(d.age)}s ≥ ${d.deadline}s`;

/** The Pod's own removal by its active deadline (after the apiserver admitted the edit). */
export function podDeletion(oldPod: unknown, newPod: unknown, now: number): PodDeletion | null {
  const d = deadlineKills(
    obj(obj(oldPod)['spec']),
    obj(obj(newPod)['spec']),
    [obj(obj(oldPod)['status']), obj(obj(newPod)['status'])],
    now,
  );
  if (!d?.kills) return null;
  const name = obj(obj(newPod)['metadata'])['name'];
  return {
    ruleId: 'pod-active-deadline-exceeded',
    decidedBy: 'kubelet',
    reason: `activeDeadlineSeconds ${d.deadline} is past (${ageText(d, 'the pod')}): the kubelet kills the pod (DeadlineExceeded)`,
    pods: typeof name === 'string' ? name : 'the pod',
    podNames: typeof name === 'string' ? [name] : [],
  };
}

/** `replicas` of a workload spec, defaulting to 1 as every workload API does. */
const replicasOf = (spec: Obj): number => int(spec['replicas'], ['spec', 'replicas']) ?? 1;

/** Pods a native workload edit deletes, or null. `kind` is one of the native kinds. */
export function nativeDeletion(
  kind: string,
  oldObj: unknown,
  newObj: unknown,
  info: ReleaseInfo,
  now: number,
): PodDeletion | null {
  const before = obj(obj(oldObj)['spec']);
  const after = obj(obj(newObj)['spec']);
  const status = obj(obj(oldObj)['status']);
  if (kind === 'Job') return jobDeletion(before, after, status, info, now);
  if (!['Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet'].includes(kind)) return null;
  const name = obj(obj(newObj)['metadata'])['name'];
  const start = kind === 'StatefulSet' ? (int(obj(after['ordinals'])['start'], ['spec', 'ordinals', 'start']) ?? 0) : 0;
  return scaledDown('workload-scaled-down', kind, before, after, kind === 'StatefulSet' ? name : undefined, start);
}

/** Lower replicas: the count, and a StatefulSet's condemned ordinals by name (highest first). */
function scaledDown(
  ruleId: RolloutRuleId,
  kind: string,
  before: Obj,
  after: Obj,
  ordinalsOf: unknown,
  start: number,
): PodDeletion | null {
  const [from, to] = [replicasOf(before), replicasOf(after)];
  if (!(to < from)) return null;
  const names: string[] = [];
  if (typeof ordinalsOf === 'string') {
    for (let i = from - 1; i >= to; i--) names.push(`${ordinalsOf}-${start + i}`);
  }
  return {
    ruleId,
    decidedBy: 'controller',
    reason: `replicas ${from} → ${to}: the ${kind} controller deletes ${from - to} running pod${from - to === 1 ? '' : 's'}${names.length > 0 ? ', highest ordinal first' : ''}`,
    pods:
      names.length > 0 ? names.join(', ') : `${from - to} pod${from - to === 1 ? '' : 's'} (the controller's choice)`,
    podNames: names,
  };
}

function jobDeletion(before: Obj, after: Obj, status: Obj, info: ReleaseInfo, now: number): PodDeletion | null {
  const active = int(status['active'], ['status', 'active']);
  // A Job whose status says nothing runs loses nothing.
  if (active === 0) return null;
  const activeText = active === null ? 'every active pod' : `${active} active pod${active === 1 ? '' : 's'}`;
  if (
    after['suspend'] === true &&
    before['suspend'] !== true &&
    info.minor >= rolloutRule('job-suspended').firstMinor
  ) {
    return {
      ruleId: 'job-suspended',
      decidedBy: 'controller',
      reason: `suspend: true: the Job controller deletes ${activeText} of the Job`,
      pods: activeText,
      podNames: [],
    };
  }
  const d = deadlineKills(before, after, [status], now);
  if (d?.kills) {
    return {
      ruleId: 'job-active-deadline-exceeded',
      decidedBy: 'controller',
      reason: `activeDeadlineSeconds ${d.deadline} is past (${ageText(d, 'the Job')}): the Job controller fails the Job and deletes ${activeText}`,
      pods: activeText,
      podNames: [],
    };
  }
  // Parallelism defaults to 1; the controller deletes the active pods beyond the new value.
  const from = int(before['parallelism'], ['spec', 'parallelism']) ?? 1;
  const to = int(after['parallelism'], ['spec', 'parallelism']) ?? 1;
  if (!(to < from) || (active !== null && active <= to)) return null;
  const pods =
    to === 0
      ? activeText
      : active === null
        ? `the active pods beyond ${to}`
        : `${active - to} of ${active} active pods`;
  return {
    ruleId: 'job-parallelism-lowered',
    decidedBy: 'controller',
    reason: `parallelism ${from} → ${to}: the Job controller deletes ${pods}`,
    pods,
    podNames: [],
  };
}

/** Pods an OpenKruise CloneSet or Advanced StatefulSet edit deletes, or null. */
export function kruiseDeletion(kind: string, oldObj: unknown, newObj: unknown): PodDeletion | null {
  const before = obj(obj(oldObj)['spec']);
  const after = obj(obj(newObj)['spec']);
  if (kind === 'CloneSet') {
    const listed = (s: Obj): string[] => {
      const v = obj(s['scaleStrategy'])['podsToDelete'];
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    };
    const added = listed(after).filter((n) => !listed(before).includes(n));
    if (added.length > 0) {
      const lower = replicasOf(after) < replicasOf(before);
      return {
        ruleId: 'kruise-pods-to-delete',
        decidedBy: 'controller',
        reason: `scaleStrategy.podsToDelete names ${added.join(', ')}: OpenKruise deletes ${added.length === 1 ? 'it' : 'them'}${lower ? ' (and replicas are lowered)' : ', then creates replacements'}`,
        pods: added.join(', '),
        podNames: added,
      };
    }
    return scaledDown('kruise-scaled-down', 'CloneSet', before, after, undefined, 0);
  }
  if (kind === 'StatefulSet') {
    // reserveOrdinals skip ordinals: the condemned names are then not the top of a plain range.
    const reserved = Array.isArray(after['reserveOrdinals']) && after['reserveOrdinals'].length > 0;
    const name = obj(obj(newObj)['metadata'])['name'];
    const start = int(obj(after['ordinals'])['start'], ['spec', 'ordinals', 'start']) ?? 0;
    return scaledDown('kruise-scaled-down', 'Advanced StatefulSet', before, after, reserved ? undefined : name, start);
  }
  return null;
}
