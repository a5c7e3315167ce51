/**
 * `predictRollout`: what happens to the running pods when an object is edited from `oldObject`
 * to `newObject`, answered by whoever applies the change. A Pod edit goes through the apiserver's
 * update rules first (refused, or admitted and then decided per container by the kubelet); a
 * native workload's through its controller (pods replaced, on delete, later pods only, or
 * nothing); an OpenKruise workload's through OpenKruise's in-place rules (recreated, refused, or
 * patched in place and then decided by the kubelet).
 */
import { DecodeError, OptionError } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { releaseInfo } from '../releases/index.js';
import { findPodSpec, locateContainers } from '../pod/locate.js';
import {
  predictRestarts,
  resolveGates,
  type PredictRestartsOptions,
  type RestartPrediction,
} from '../kubelet/index.js';
import { checkPodUpdate, resizeRequest } from './pod-update.js';
import { diffTemplates, fieldPath, type PodTemplateParts } from './template-diff.js';
import { NATIVE_KINDS, nativeRollout, type NativeKind } from './native-rollout.js';
import { kruiseRollout, type KruiseKind } from './openkruise.js';
import { resolveOpenKruise, type OpenKruiseOptions } from './openkruise-release.js';
import { rolloutRule, type RolloutDecider, type RolloutRuleId } from './rollout-rules.js';
import { kruiseDeletion, nativeDeletion, podDeletion, type PodDeletion } from './pod-deletions.js';
import { kruiseReadiness, type KruiseReadiness } from './openkruise-readiness.js';
import type { Decision, RolloutVerdict } from './verdict.js';

/**
 * Options of {@link predictRollout}: the kubelet (and apiserver) release as for
 * {@link predictRestarts}, and the OpenKruise release for OpenKruise workloads.
 *
 * @example
 * ```ts
 * import type { PredictRolloutOptions } from 'kubelet-hash';
 * const options: PredictRolloutOptions = { kubeletVersion: '1.31', openKruise: { version: 'v1.8' } };
 * options.openKruise?.version; // → 'v1.8'
 * ```
 *
 * @group Kubelet decisions
 */
export interface PredictRolloutOptions extends PredictRestartsOptions {
  /** The OpenKruise release and gates; required for `apps.kruise.io` workloads. */
  openKruise?: OpenKruiseOptions;
  /**
   * The time the edit is applied, to weigh an active deadline against `status.startTime` (a
   * `Date` or RFC 3339 text); the current time when absent.
   */
  now?: Date | string;
}

/**
 * A container OpenKruise itself restarts during an in-place update (to take env from changed
 * metadata), where the kubelet alone would keep it.
 *
 * @example
 * ```ts
 * import { predictRollout, type ControllerRestart } from 'kubelet-hash';
 * const env = [{ name: 'VER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['ver']" } } }];
 * const cs = (ver: string) => ({
 *   apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' },
 *   spec: { updateStrategy: { type: 'InPlaceIfPossible' }, template: { metadata: { labels: { ver } }, spec: { containers: [{ name: 'web', image: 'nginx', env }] } } },
 * });
 * const restarted: ControllerRestart[] = predictRollout(cs('1'), cs('2'), { kubeletVersion: '1.31', openKruise: { version: 'v1.8' } }).controllerRestarts;
 * restarted.map((r) => r.name); // → ['web']
 * ```
 *
 * @group Kubelet decisions
 */
export interface ControllerRestart {
  /** The container's name. */
  name: string;
  /** Why the controller restarts it (the changed label or annotation its env reads). */
  reason: string;
}

/**
 * What {@link predictRollout} found.
 *
 * @example
 * ```ts
 * import { predictRollout, type RolloutPrediction } from 'kubelet-hash';
 * const pod = (env: string) => ({ kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx', env: [{ name: 'A', value: env }] }] } });
 * const p: RolloutPrediction = predictRollout(pod('1'), pod('2'), { kubeletVersion: '1.31' });
 * [p.verdict, p.decidedBy, p.field, p.exitCode]; // → ['refused', 'apiserver', 'spec.containers[0].env[0].value', 2]
 * ```
 *
 * @group Kubelet decisions
 */
export interface RolloutPrediction {
  /** The kind of the new object (`Pod`, `Deployment`, `CloneSet`, …; `''` for one without a kind). */
  kind: string;
  /** The Kubernetes minor release (kubelet and apiserver) the prediction is for. */
  release: string;
  /** The OpenKruise release, for OpenKruise workloads (`v1.8`). */
  openKruise?: string;
  /** What happens to the running pods (`unpredictable` for a kind no rule models). */
  verdict: RolloutVerdict | 'unpredictable';
  /** Who decides what happens to the running pods. */
  decidedBy: RolloutDecider;
  /** The rule that decided (null for an object without a kind, taken as a pod patched in place). */
  ruleId: RolloutRuleId | null;
  /** Where that rule is decided upstream: `path@tag (function)`. */
  ruleSource: string | null;
  /** The verdict in one sentence, for people. */
  reason: string;
  /** Which pods it concerns, for people (`every pod`, `ordinals 2–4 (partition 2)`, `none`). */
  pods: string;
  /** A `delete` verdict's pods by name, where the objects say which (a StatefulSet's ordinals, podsToDelete, the Pod). */
  podNames?: string[];
  /** A refusal's field: the first refused change (`spec.containers[0].env`). */
  field?: string;
  /** The field the refusing component names in its error (`spec` for the Pod catch-all). */
  reportedField?: string;
  /** The template (or pod) changes, as field paths from the template root. */
  changes: string[];
  /** Rules that admitted the change before the kubelet decided (apiserver rules for a Pod, OpenKruise's for in place). */
  admittedBy: RolloutRuleId[];
  /** For an admitted Pod edit: the requests that carry it (`update`, `resize`, `ephemeralcontainers`). */
  requests?: string[];
  /** The kubelet's per-container verdicts, when the pod is patched in place. */
  kubelet?: RestartPrediction;
  /** Containers OpenKruise restarts itself (in place, env from metadata). */
  controllerRestarts: ControllerRestart[];
  /**
   * For an OpenKruise in-place update (v1.8 and v1.9 modelled): per container the kubelet
   * restarts, whether OpenKruise's readiness check will see it as updated.
   */
  kruiseReadiness?: KruiseReadiness[];
  /** Running containers restarted in place (kubelet and controller). */
  restarts: number;
  /** 0 nothing restarts, is replaced or deleted now; 1 something restarts, is replaced or deleted; 2 refused or not predictable. */
  exitCode: 0 | 1 | 2;
}

const KRUISE_KINDS: readonly string[] = ['CloneSet', 'StatefulSet', 'DaemonSet'];
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/**
 * Predicts what an edit of `oldObject` into `newObject` does to running pods, and who decides
 * it. Throws the errors of {@link predictRestarts} (options, decoding, container shape), and an
 * OptionError for an OpenKruise workload without `openKruise`.
 *
 * @example
 * ```ts
 * import { predictRollout } from 'kubelet-hash';
 * const deployment = (image: string) => ({
 *   apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
 *   spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
 * });
 * const p = predictRollout(deployment('nginx:1.27'), deployment('nginx:1.28'), { kubeletVersion: '1.31' });
 * [p.verdict, p.decidedBy, p.pods, p.exitCode]; // → ['replaced', 'controller', 'every pod', 1]
 * ```
 *
 * @group Kubelet decisions
 */
export function predictRollout(
  oldObject: unknown,
  newObject: unknown,
  options: PredictRolloutOptions,
): RolloutPrediction {
  if (!isPlainObject(options)) throw new OptionError('INVALID_OPTION', [], '{ kubeletVersion: "1.31" }');
  const { openKruise, now: nowOption, ...kubeletOptions } = options;
  const info = releaseInfo(kubeletOptions.kubeletVersion);
  const now = readNow(nowOption);
  const gates = resolveGates(info, kubeletOptions.featureGates, ['featureGates']);
  // Shape and names first, for both sides, as predictRestarts checks them.
  locateContainers(oldObject);
  locateContainers(newObject);
  const oldKind = typeof obj(oldObject)['kind'] === 'string' ? (obj(oldObject)['kind'] as string) : '';
  const kind = typeof obj(newObject)['kind'] === 'string' ? (obj(newObject)['kind'] as string) : '';
  if (oldKind !== '' && kind !== '' && oldKind !== kind) {
    throw new DecodeError('INVALID_TYPE', ['kind'], `the kind of the old object (${oldKind})`, `found ${kind}`);
  }
  const apiVersion = obj(newObject)['apiVersion'];
  const base = { kind, release: info.release, controllerRestarts: [] as ControllerRestart[] };
  const kubelet = () => predictRestarts(oldObject as object, newObject as object, kubeletOptions);

  if (kind === '' || kubeletOptions.staticPod === true) {
    // No kind (a pod spec or container), or a static pod's manifest: no apiserver or controller in between.
    const k = kubelet();
    return inPlace(base, k, {
      ruleId: null,
      reason:
        kind === ''
          ? 'no kind: taken as a pod patched in place that the apiserver admits; the kubelet decides per container'
          : 'a static pod: the kubelet reads the manifest itself; no apiserver rule applies',
      pods: 'the pod',
      changes: [],
      admittedBy: [],
    });
  }
  if (kind === 'Pod') {
    const dropped = droppedEphemeral(oldObject, newObject, info.minor);
    if (dropped) {
      const r = predictRollout(oldObject, dropped, options);
      return {
        ...r,
        reason: `${r.reason}; the ephemeral containers it adds are dropped (the EphemeralContainers gate is off before 1.23)`,
        admittedBy: ['pod-ephemeral-dropped', ...r.admittedBy],
      };
    }
    const parts = (o: unknown): PodTemplateParts => ({ metadata: obj(o)['metadata'], spec: obj(o)['spec'] });
    const changes = diffTemplates(parts(oldObject), parts(newObject), info);
    const verdict = checkPodUpdate(oldObject, newObject, changes, info, gates.inPlaceResize);
    const names = changes.map((c) => fieldPath(c.path));
    if (!verdict.accepted) {
      return finish(
        base,
        {
          verdict: 'refused',
          decidedBy: 'apiserver',
          ruleId: verdict.ruleId,
          reason: `the apiserver refuses the edit at ${verdict.reportedField}: ${verdict.reason} (${verdict.field} changed)`,
          pods: 'none',
          field: verdict.field,
          reportedField: verdict.reportedField,
        },
        names,
      );
    }
    const deletion = podDeletion(oldObject, newObject, now);
    if (deletion) {
      return { ...deleted(base, deletion, null, names), admittedBy: verdict.ruleIds, requests: verdict.requests };
    }
    const k = kubelet();
    return {
      ...inPlace(base, k, {
        ruleId: verdict.ruleIds[0] ?? null,
        reason:
          changes.length === 0
            ? 'the Pod is unchanged once decoded: nothing for the apiserver to refuse; the kubelet decides per container'
            : `the apiserver admits it (${verdict.requests.join(' + ')}); the kubelet decides per container`,
        pods: 'the pod',
        changes: names,
        admittedBy: verdict.ruleIds,
      }),
      requests: verdict.requests,
    };
  }
  const isKruise = typeof apiVersion === 'string' && apiVersion.startsWith('apps.kruise.io/');
  if (isKruise && KRUISE_KINDS.includes(kind)) {
    const kruise = resolveOpenKruise(openKruise, ['openKruise']);
    const [oldT, newT] = [templateOf(oldObject, kind), templateOf(newObject, kind)];
    const changes = diffTemplates(oldT, newT, info, templateRoot(kind));
    const d = kruiseRollout(kind as KruiseKind, newObject, oldT, newT, changes, kruise, {
      release: info.release,
      minor: info.minor,
      takes: resizeRequest(info, gates.inPlaceResize),
    });
    const names = changes.map((c) => fieldPath(c.path));
    const withKruise = { ...base, openKruise: kruise.release };
    const deletion = d.verdict === 'refused' ? null : kruiseDeletion(kind, oldObject, newObject);
    if (deletion) return deleted(withKruise, deletion, d, names);
    if (d.verdict !== 'in-place') return finish(withKruise, d, names);
    const k = kubelet();
    const restarts = [...(d.envRestarts ?? new Map<string, string>())]
      .filter(([name]) => k.containers.some((c) => c.name === name && c.action === 'keep'))
      .map(([name, reason]) => ({ name, reason: `restarted by OpenKruise (InPlaceUpdateEnvFromMetadata): ${reason}` }));
    const specs = new Map(
      (Array.isArray(obj(newT.spec)['containers']) ? (obj(newT.spec)['containers'] as unknown[]) : []).map((c) => [
        String(obj(c)['name']),
        c,
      ]),
    );
    const readiness = kruiseReadiness(kruise.minor, k, specs);
    const prediction = inPlace({ ...withKruise, controllerRestarts: restarts }, k, {
      ruleId: d.ruleId,
      reason: d.reason,
      pods: d.pods,
      changes: names,
      admittedBy: [
        ...(d.inPlaceRules ?? []),
        ...(restarts.length > 0 ? (['kruise-env-from-metadata'] as const) : []),
        ...(readiness && readiness.length > 0 ? (['kruise-readiness-hash'] as const) : []),
      ],
    });
    return readiness ? { ...prediction, kruiseReadiness: readiness } : prediction;
  }
  if (!isKruise && (NATIVE_KINDS as readonly string[]).includes(kind)) {
    const changes = diffTemplates(
      templateOf(oldObject, kind),
      templateOf(newObject, kind),
      info,
      templateRoot(kind),
    ).filter(
      (c) =>
        !(
          kind === 'Deployment' &&
          c.path[0] === 'metadata' &&
          c.path[1] === 'labels' &&
          c.path[2] === 'pod-template-hash'
        ),
    );
    const d = nativeRollout(kind as NativeKind, oldObject, newObject, changes, info);
    const names = changes.map((c) => fieldPath(c.path));
    const deletion = d.verdict === 'refused' ? null : nativeDeletion(kind, oldObject, newObject, info, now);
    return deletion ? deleted(base, deletion, d, names) : finish(base, d, names);
  }
  return {
    ...base,
    verdict: 'unpredictable',
    decidedBy: 'controller',
    ruleId: null,
    ruleSource: null,
    reason: `no model of the controller of ${typeof apiVersion === 'string' ? `${apiVersion} ` : ''}${kind}: whether it replaces or patches its pods is unknown`,
    pods: 'unknown',
    changes: [],
    admittedBy: [],
    restarts: 0,
    exitCode: 2,
  };
}

/**
 * Before 1.23 (EphemeralContainers off by default) a Pod update's ephemeral containers are dropped
 * when the old pod has none (pod-ephemeral-dropped): NEW without them, or null when nothing is dropped.
 */
function droppedEphemeral(oldObject: unknown, newObject: unknown, minor: number): Obj | null {
  const rule = rolloutRule('pod-ephemeral-dropped');
  const has = (o: unknown) => {
    const list = obj(obj(o)['spec'])['ephemeralContainers'];
    return Array.isArray(list) && list.length > 0;
  };
  if (minor > (rule.lastMinor ?? 0) || has(oldObject) || !has(newObject)) return null;
  const { ephemeralContainers: _dropped, ...spec } = obj(obj(newObject)['spec']);
  return { ...obj(newObject), spec };
}

/** Where a workload's pod template sits in its document. */
function templateRoot(kind: string): string[] {
  return kind === 'CronJob' ? ['spec', 'jobTemplate', 'spec', 'template'] : ['spec', 'template'];
}

/** A workload's pod template as metadata and spec (a CronJob's through its job template). */
function templateOf(o: unknown, kind: string): PodTemplateParts {
  const found = isPlainObject(o) ? findPodSpec(o) : null;
  const spec = obj(obj(o)['spec']);
  const template = kind === 'CronJob' ? obj(obj(obj(spec['jobTemplate'])['spec'])['template']) : obj(spec['template']);
  return { metadata: template['metadata'], spec: template['spec'] ?? found?.spec };
}

type Base = Pick<RolloutPrediction, 'kind' | 'release' | 'controllerRestarts'> & { openKruise?: string };

/** `now` as epoch milliseconds: the option's time, or the clock's. */
function readNow(now: unknown): number {
  if (now === undefined) return Date.now();
  const t = now instanceof Date ? now.getTime() : typeof now === 'string' ? Date.parse(now) : NaN;
  if (Number.isNaN(t)) {
    const found = typeof now === 'string' ? JSON.stringify(now) : now instanceof Date ? 'an invalid Date' : typeof now;
    throw new OptionError('INVALID_OPTION', ['now'], 'a Date or an RFC 3339 time', `found ${found}`);
  }
  return t;
}

/**
 * Pods removed outright. The template's own verdict (`also`), when it would roll something,
 * is kept in the reason: the pods left are then replaced or patched by it.
 */
function deleted(base: Base, del: PodDeletion, also: Decision | null, changes: string[]): RolloutPrediction {
  const rest = also && also.verdict !== 'unchanged' ? `; the template change besides: ${also.reason}` : '';
  return {
    ...finish(
      base,
      {
        verdict: 'delete',
        decidedBy: del.decidedBy,
        ruleId: del.ruleId,
        reason: `${del.reason}${rest}`,
        pods: del.pods,
        podNames: del.podNames,
      },
      changes,
    ),
  };
}

function finish(base: Base, d: Decision, changes: string[]): RolloutPrediction {
  const exitCode = d.verdict === 'refused' ? 2 : d.verdict === 'replaced' || d.verdict === 'delete' ? 1 : 0;
  return {
    ...base,
    verdict: d.verdict,
    decidedBy: d.decidedBy,
    ruleId: d.ruleId,
    ruleSource: rolloutRule(d.ruleId).source,
    reason: d.reason,
    pods: d.pods,
    ...(d.podNames !== undefined ? { podNames: d.podNames } : {}),
    ...(d.field !== undefined ? { field: d.field } : {}),
    ...(d.reportedField !== undefined ? { reportedField: d.reportedField } : {}),
    changes,
    admittedBy: [],
    restarts: 0,
    exitCode,
  };
}

function inPlace(
  base: Base,
  k: RestartPrediction,
  how: { ruleId: RolloutRuleId | null; reason: string; pods: string; changes: string[]; admittedBy: RolloutRuleId[] },
): RolloutPrediction {
  const restarts = k.restarts + base.controllerRestarts.length;
  // A static pod recreated by a manifest edit replaces every container.
  const replaced = k.podRecreated;
  return {
    ...base,
    verdict: 'in-place',
    decidedBy: 'kubelet',
    ruleId: how.ruleId,
    ruleSource: how.ruleId === null ? null : rolloutRule(how.ruleId).source,
    reason: replaced && k.podReason ? `${how.reason}; ${k.podReason}` : how.reason,
    pods: how.pods,
    changes: how.changes,
    admittedBy: how.admittedBy,
    kubelet: k,
    restarts,
    exitCode: restarts > 0 || replaced ? 1 : 0,
  };
}
