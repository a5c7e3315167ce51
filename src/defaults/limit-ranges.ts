/**
 * The LimitRanger admission plugin's defaulting: a namespace's LimitRanges (cluster state, not a
 * release default) fill the resources a container leaves unset, on pod create. Upstream:
 *
 * | Step | Where (k8s.io/kubernetes) | Releases read |
 * | --- | --- | --- |
 * | LimitRange stored: `Default` ← `Max`, `DefaultRequest` ← `Default`, then ← `Min` (Container items only); every list `RoundUp(-3)` | `pkg/apis/core/v1/defaults.go` SetDefaults_LimitRangeItem; `zz_generated.defaults.go` SetObjectDefaults_LimitRange | 1.20.2 |
 * | Per LimitRange in list order: its Container items merged (a later item's key wins) into default limits (`default`) and requests (`defaultRequest`) | `plugin/pkg/admission/limitranger/admission.go` defaultContainerResourceRequirements | 1.20.2; a 1.32-era tree (same) |
 * | Each container, then each init container: a default is set only where the key is absent (after the apiserver's own defaults, so requests already copied from limits win) | same file, mergeContainerResources / mergePodResourceRequirements | 1.20.2; 1.32-era (same) |
 * | Ephemeral containers and pod updates are never defaulted (the plugin skips Update and subresources; from 1.27 it also admits the `resize` subresource, an update) | same file, SupportsAttributes | 1.20.2; 1.32-era |
 * | The pod annotation `kubernetes.io/limit-ranger`: `LimitRanger plugin set: cpu, memory request for container web; …`, rewritten by every LimitRange that set something | same file, mergePodResourceRequirements | 1.20.2; 1.32-era |
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import { quantityTokenOf } from '../decode/quantity-token.js';
import { quantityString, unmarshalQuantity } from '../quantity/quantity.js';
import { roundedUpToMilli } from './round-quantity.js';

/** One LimitRange's defaults for containers, as the plugin merges them. */
export interface ContainerDefaults {
  /** Resource name → quantity text (stored spelling). */
  readonly limits: ReadonlyMap<string, string>;
  readonly requests: ReadonlyMap<string, string>;
}

/**
 * What one LimitRange set in one container (sorted resource names, as the annotation lists them).
 *
 * @example
 * ```ts
 * import { applyApiserverDefaultsReport, type LimitRangerSet } from 'kubelet-hash';
 *
 * const limitRanges = [{ spec: { limits: [{ type: 'Container', max: { memory: '1Gi' } }] } }];
 * const set: LimitRangerSet[] = applyApiserverDefaultsReport({ name: 'c', image: 'i' }, { kubeletVersion: '1.20', limitRanges }).limitRanger;
 * set; // → [{ limitRange: 0, limits: ['memory'], requests: ['memory'] }]
 * ```
 */
export interface LimitRangerSet {
  /** Index of the LimitRange in the list given. */
  readonly limitRange: number;
  /** The resource names whose limits it set. */
  readonly limits: string[];
  /** The resource names whose requests it set. */
  readonly requests: string[];
}

const EXPECTED_LIST = 'a LimitRange, a List or LimitRangeList of them, or an array of LimitRanges';
const RESOURCE_LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
type ResourceListName = (typeof RESOURCE_LISTS)[number];

/**
 * The container defaults of each LimitRange in `input`, in order, after the LimitRange's own
 * apiserver defaulting (so manifests and stored objects give the same). Typed errors name the path.
 */
export function containerDefaultsOf(input: unknown, root: readonly JsonPathSegment[]): ContainerDefaults[] {
  return limitRangeItems(input, root).map(({ value, path }) => containerDefaults(value, path));
}

function limitRangeItems(
  input: unknown,
  root: readonly JsonPathSegment[],
): { value: unknown; path: JsonPathSegment[] }[] {
  if (Array.isArray(input)) return input.map((value, i) => ({ value, path: [...root, i] }));
  if (!isPlainObject(input)) throw new OptionError('INVALID_OPTION', root, EXPECTED_LIST);
  const kind = memberOf(input, 'kind');
  if (kind === 'List' || kind === 'LimitRangeList' || (kind === undefined && memberOf(input, 'items') !== undefined)) {
    const items = memberOf(input, 'items');
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) throw new OptionError('INVALID_OPTION', [...root, 'items'], 'an array of LimitRanges');
    return items.map((value, i) => ({ value, path: [...root, 'items', i] }));
  }
  return [{ value: input, path: [...root] }];
}

function containerDefaults(lr: unknown, path: JsonPathSegment[]): ContainerDefaults {
  if (!isPlainObject(lr)) throw new OptionError('INVALID_OPTION', path, 'a LimitRange object');
  const kind = memberOf(lr, 'kind');
  if (kind !== undefined && kind !== 'LimitRange') {
    throw new OptionError('INVALID_OPTION', [...path, 'kind'], '"LimitRange"', `got ${JSON.stringify(kind)}`);
  }
  const apiVersion = memberOf(lr, 'apiVersion');
  if (apiVersion !== undefined && apiVersion !== 'v1') {
    throw new OptionError('INVALID_OPTION', [...path, 'apiVersion'], '"v1"', `got ${JSON.stringify(apiVersion)}`);
  }
  const spec = memberOf(lr, 'spec');
  const limits = new Map<string, string>();
  const requests = new Map<string, string>();
  if (spec === undefined || spec === null) return { limits, requests };
  if (!isPlainObject(spec)) throw new OptionError('INVALID_OPTION', [...path, 'spec'], 'a LimitRangeSpec object');
  const items = memberOf(spec, 'limits');
  if (items === undefined || items === null) return { limits, requests };
  if (!Array.isArray(items))
    throw new OptionError('INVALID_OPTION', [...path, 'spec', 'limits'], 'an array of LimitRangeItems');
  items.forEach((item, j) => {
    const at = [...path, 'spec', 'limits', j];
    if (!isPlainObject(item)) throw new OptionError('INVALID_OPTION', at, 'a LimitRangeItem object');
    const type = memberOf(item, 'type');
    if (type !== undefined && type !== null && typeof type !== 'string') {
      throw new OptionError('INVALID_OPTION', [...at, 'type'], 'a limit type such as "Container"');
    }
    const lists = Object.fromEntries(
      RESOURCE_LISTS.map((name) => [name, resourceList(memberOf(item, name), [...at, name])]),
    ) as Record<ResourceListName, Map<string, string>>;
    if (type !== 'Container') return; // Pod and PersistentVolumeClaim items only validate
    const stored = storedItem(lists);
    for (const [k, v] of stored.defaultRequest) requests.set(k, v);
    for (const [k, v] of stored.default) limits.set(k, v);
  });
  return { limits, requests };
}

/** SetDefaults_LimitRangeItem for a Container item: default ← max, defaultRequest ← default, then ← min. */
function storedItem(lists: Record<ResourceListName, Map<string, string>>): {
  default: Map<string, string>;
  defaultRequest: Map<string, string>;
} {
  const def = new Map(lists.default);
  const req = new Map(lists.defaultRequest);
  for (const [k, v] of lists.max) if (!def.has(k)) def.set(k, v);
  for (const [k, v] of def) if (!req.has(k)) req.set(k, v);
  for (const [k, v] of lists.min) if (!req.has(k)) req.set(k, v);
  return { default: def, defaultRequest: req };
}

/** A ResourceList as the apiserver stores it: each quantity parsed, rounded up to milli, in String() form. */
function resourceList(json: unknown, path: JsonPathSegment[]): Map<string, string> {
  const out = new Map<string, string>();
  if (json === undefined || json === null) return out;
  if (!isPlainObject(json)) throw new OptionError('INVALID_OPTION', path, 'a map of resource names to quantities');
  for (const key of Object.keys(json)) {
    const at = [...path, key];
    const token = quantityTokenOf(memberOf(json, key), at);
    if (token === null) throw new OptionError('INVALID_OPTION', at, 'a quantity like "500m" or "1Gi"');
    const q = unmarshalQuantity(token, at);
    out.set(key, roundedUpToMilli(q) ?? quantityString(q));
  }
  return out;
}

/**
 * mergeContainerResources for one container (a JSON object, changed in place) against each
 * LimitRange's defaults in order: what each LimitRange set.
 */
export function mergeLimitRanges(
  container: Record<string, unknown>,
  defaults: readonly ContainerDefaults[],
  set: (obj: Record<string, unknown>, key: string, value: unknown) => void,
): LimitRangerSet[] {
  const out: LimitRangerSet[] = [];
  defaults.forEach((d, limitRange) => {
    const limits = fill(container, 'limits', d.limits, set);
    const requests = fill(container, 'requests', d.requests, set);
    if (limits.length > 0 || requests.length > 0) out.push({ limitRange, limits, requests });
  });
  return out;
}

function fill(
  container: Record<string, unknown>,
  listName: 'limits' | 'requests',
  defaults: ReadonlyMap<string, string>,
  set: (obj: Record<string, unknown>, key: string, value: unknown) => void,
): string[] {
  if (defaults.size === 0) return [];
  let resources = memberOf(container, 'resources');
  if (!isPlainObject(resources)) {
    resources = {};
    set(container, 'resources', resources);
  }
  const res = resources as Record<string, unknown>;
  let list = memberOf(res, listName);
  if (!isPlainObject(list)) {
    list = {};
    set(res, listName, list);
  }
  const target = list as Record<string, unknown>;
  const added: string[] = [];
  for (const [k, v] of defaults) {
    if (memberOf(target, k) !== undefined) continue;
    set(target, k, v);
    added.push(k);
  }
  return added.sort();
}

/**
 * The `kubernetes.io/limit-ranger` annotation text the plugin writes, from what each container
 * (containers first, then init containers, each in pod order) had set: every LimitRange that set
 * anything rewrites the annotation, so the last one's list is what the pod keeps. Null when none set anything.
 */
export function limitRangerAnnotationText(
  containers: readonly { name: string; initContainer: boolean; set: readonly LimitRangerSet[] }[],
): string | null {
  let last: string[] | null = null;
  const count = Math.max(0, ...containers.flatMap((c) => c.set.map((s) => s.limitRange + 1)));
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    for (const c of containers) {
      const s = c.set.find((e) => e.limitRange === i);
      if (!s) continue;
      const who = `${c.initContainer ? 'init container' : 'container'} ${c.name}`;
      if (s.requests.length > 0) parts.push(`${s.requests.join(', ')} request for ${who}`);
      if (s.limits.length > 0) parts.push(`${s.limits.join(', ')} limit for ${who}`);
    }
    if (parts.length > 0) last = parts;
  }
  return last === null ? null : `LimitRanger plugin set: ${last.join('; ')}`;
}
