/**
 * `applyApiserverDefaults`: a container as the user wrote it → the container as the apiserver of a
 * release stores and serves it (what the kubelet hashes). The facts are the rows of `table.ts`;
 * this module only knows how to apply each kind of rule to a copy of the input.
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import { decodeFor, containerJson, type ContainerInput } from '../hash/hashes-for.js';
import { KubeletRelease } from '../hash/release.js';
import { describeOptionValue, isObjectLike, readOptionFields } from '../option-fields.js';
import { JsonNumber } from '../json/number.js';
import { isPlainObject, hasToJson, memberOf } from '../decode/input.js';
import { quantityTokenOf } from '../decode/quantity-token.js';
import { unmarshalQuantity } from '../quantity/quantity.js';
import { releaseInfo, type ReleaseInfo } from '../releases/index.js';
import { CONTAINER_LISTS, type ContainerList } from '../pod/locate.js';
import { defaultPullPolicy } from './image-reference.js';
import { fieldAt } from './model-paths.js';
import { roundedUpToMilli } from './round-quantity.js';
import { storedForm } from './stored-form.js';
import { containerDefaultsOf, mergeLimitRanges, type LimitRangerSet } from './limit-ranges.js';
import { APISERVER_DEFAULTS, SERVICE_ACCOUNT_TOKEN_MOUNT_PATH, type ApiserverDefault } from './table.js';

/**
 * Options of {@link applyApiserverDefaults}.
 *
 * @example
 * ```ts
 * import { applyApiserverDefaults, type ApiserverDefaultsOptions } from 'kubelet-hash';
 *
 * const options: ApiserverDefaultsOptions = { kubeletVersion: '1.29', podSpec: { hostNetwork: true } };
 * const stored = applyApiserverDefaults({ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }, options);
 * stored.ports; // → [{ containerPort: 80, hostPort: 80, protocol: 'TCP' }]
 * ```
 */
export interface ApiserverDefaultsOptions {
  /** The release whose apiserver defaults apply (and whose kubelet hashes the result): `1.24`, `v1.24.3`; or give `kubelet`. */
  kubeletVersion?: string;
  /** A `kubelet()` handle for the release, instead of `kubeletVersion`. */
  kubelet?: KubeletRelease;
  /**
   * The pod spec the container belongs to. Read for `hostNetwork` (hostPort defaults to
   * containerPort) and `automountServiceAccountToken` (false: no token mount).
   */
  podSpec?: object;
  /**
   * Name of the service-account token volume the admission plugin mounts into every container
   * and init container (`kube-api-access-ab12c` from 1.21, the token secret's name such as
   * `default-token-ab12c` before): adds `{name, readOnly: true, mountPath:
   * "/var/run/secrets/kubernetes.io/serviceaccount"}` unless something is mounted there already.
   */
  tokenVolume?: string;
  /** The pod-spec list holding the container (default `containers`): some defaults apply to pods' containers only. */
  list?: ContainerList;
  /**
   * The apiserver's feature gates, by name. Only `InPlacePodVerticalScaling` (1.27–1.32: default
   * resizePolicy) and `ProcMountType` (1.12–1.14: procMount forced to Default while off) change
   * container defaults; unset gates take the release's default (both off).
   */
  featureGates?: Record<string, boolean>;
  /**
   * The LimitRanges of the pod's namespace (cluster state): a `LimitRange`, a `List` /
   * `LimitRangeList` of them (as `kubectl get limitranges -o json` prints), or an array. Their
   * Container items' `default` fill missing limits and `defaultRequest` missing requests, as the
   * LimitRanger admission plugin does on pod create (containers and init containers; after the
   * release's own defaults). An empty list says the namespace has none. Left out, a container whose
   * hash covers resources and that lacks cpu or memory limits or requests gets an assumption in
   * {@link applyApiserverDefaultsReport}.
   */
  limitRanges?: unknown;
}

/**
 * What {@link applyApiserverDefaultsReport} returns.
 *
 * @example
 * ```ts
 * import { applyApiserverDefaultsReport, type ApiserverDefaultsReport } from 'kubelet-hash';
 *
 * const report: ApiserverDefaultsReport = applyApiserverDefaultsReport({ name: 'c', image: 'i' }, { kubeletVersion: '1.20' });
 * report.assumptions.length; // → 1
 * ```
 */
export interface ApiserverDefaultsReport {
  /** The container as the apiserver stores it (what {@link applyApiserverDefaults} returns). */
  container: Record<string, unknown>;
  /** What the result takes for granted, in words: e.g. that no LimitRange defaulted its resources when none were given. */
  assumptions: string[];
  /** What each given LimitRange set (by index), for the pod's `kubernetes.io/limit-ranger` annotation. */
  limitRanger: LimitRangerSet[];
}

/** The fields of {@link ApiserverDefaultsOptions}, read without zod (names refused with a suggestion). */
const DEFAULTS_OPTION_FIELDS = {
  kubeletVersion: 'string',
  kubelet: { test: (v: unknown) => v instanceof KubeletRelease, expected: 'a kubelet() handle' },
  podSpec: 'object',
  tokenVolume: { test: (v: unknown) => typeof v === 'string' && v !== '', expected: 'a non-empty string' },
  list: CONTAINER_LISTS,
  featureGates: {
    test: (v: unknown) => isObjectLike(v) && Object.values(v).every((x) => typeof x === 'boolean'),
    expected: 'an object of gate names to booleans',
  },
  limitRanges: 'unknown',
} as const;

/** The release of checked options: the handle's, else `kubeletVersion`'s (one of the two, not both). */
function releaseOfDefaults(opts: ApiserverDefaultsOptions): ReleaseInfo {
  if (opts.kubelet === undefined) {
    if (opts.kubeletVersion === undefined)
      throw new OptionError(
        'INVALID_OPTION',
        ['options', 'kubeletVersion'],
        'a string (or a kubelet() handle as `kubelet`)',
        'found nothing',
      );
    return releaseInfo(opts.kubeletVersion, ['options', 'kubeletVersion']);
  }
  if (opts.kubeletVersion !== undefined)
    throw new OptionError(
      'INVALID_OPTION',
      ['options', 'kubeletVersion'],
      'no kubeletVersion beside a kubelet() handle',
      `found ${describeOptionValue(opts.kubeletVersion)}`,
    );
  return opts.kubelet.info;
}

/** A JSON object as the decoder reads it. */
type JsonObject = Record<string, unknown>;

/**
 * The container as the apiserver of `options.kubeletVersion` stores it: every container-level
 * default of that release filled in (imagePullPolicy, terminationMessagePath/Policy, port
 * protocol, probe timings, HTTP path and scheme, fieldRef apiVersion, requests from limits,
 * quantities rounded to milli, grpc service, and the rest of {@link apiserverDefaultsFor}), plus
 * the service-account token mount when `tokenVolume` is given. Fields the release does not have
 * are never added. Returns a new object; the input is not modified. The input is first checked
 * against the release (typed errors as from `validateContainer`).
 *
 * @example
 * ```ts
 * import { applyApiserverDefaults, hashContainer } from 'kubelet-hash';
 *
 * const stored = applyApiserverDefaults(
 *   { name: 'nginx', image: 'nginx' },
 *   { kubeletVersion: '1.24', tokenVolume: 'kube-api-access-75rfs' },
 * );
 * // as that kubelet stored it:
 * hashContainer(stored, { kubeletVersion: '1.24' }); // → '9624f5a5'
 * ```
 */
export function applyApiserverDefaults(
  container: ContainerInput,
  options: ApiserverDefaultsOptions,
): Record<string, unknown> {
  return applyApiserverDefaultsReport(container, options).container;
}

/**
 * {@link applyApiserverDefaults} with what the result assumes and what the given LimitRanges set.
 *
 * @example
 * ```ts
 * import { applyApiserverDefaultsReport } from 'kubelet-hash';
 *
 * const limitRanges = {
 *   kind: 'LimitRange',
 *   spec: { limits: [{ type: 'Container', default: { cpu: '0.5' }, defaultRequest: { cpu: '100m' } }] },
 * };
 * const report = applyApiserverDefaultsReport({ name: 'web', image: 'nginx:1.19' }, { kubeletVersion: '1.20', limitRanges });
 * report.container.resources; // → { limits: { cpu: '500m' }, requests: { cpu: '100m' } }
 * report.limitRanger; // → [{ limitRange: 0, limits: ['cpu'], requests: ['cpu'] }]
 * report.assumptions; // → []
 * ```
 */
export function applyApiserverDefaultsReport(
  container: ContainerInput,
  options: ApiserverDefaultsOptions,
): ApiserverDefaultsReport {
  const opts = readOptionFields<ApiserverDefaultsOptions>(options, ['options'], {
    fields: DEFAULTS_OPTION_FIELDS,
    expected: 'an options object such as { kubeletVersion: "1.24" }',
  });
  const info = releaseOfDefaults(opts);
  const json = containerJson(container);
  decodeFor(json, info, undefined, true); // typed errors for input the release's apiserver would refuse to decode
  const out = copyJson(json) as JsonObject;
  const context: RuleContext = {
    hostNetwork: opts.podSpec !== undefined && memberOf(opts.podSpec, 'hostNetwork') === true,
    automount: opts.podSpec === undefined || memberOf(opts.podSpec, 'automountServiceAccountToken') !== false,
    tokenVolume: opts.tokenVolume,
  };
  for (const row of activeDefaults(info.release, opts.list ?? 'containers', opts.featureGates ?? {})) {
    for (const path of row.paths) {
      const field = fieldAt(info.release, path);
      if (field === null) continue;
      applyRule(row, path, field.type.kind === 'ptr', out, context);
    }
  }
  const list = opts.list ?? 'containers';
  const admitted = list !== 'ephemeralContainers'; // the plugin defaults containers and init containers only
  let limitRanger: LimitRangerSet[] = [];
  if (opts.limitRanges !== undefined && admitted) {
    limitRanger = mergeLimitRanges(out, containerDefaultsOf(opts.limitRanges, ['options', 'limitRanges']), setMember);
  }
  const stored = storedForm(decodeFor(out, info, undefined, true));
  const assumptions: string[] = [];
  if (opts.limitRanges === undefined && admitted && info.algorithm !== 'name-image' && lacksCpuOrMemory(stored)) {
    assumptions.push(
      'no LimitRange of the namespace defaulted resources (none given; the hash covers resources and cpu or memory limits or requests are unset)',
    );
  }
  return { container: stored, assumptions, limitRanger };
}

function lacksCpuOrMemory(container: JsonObject): boolean {
  const resources = memberOf(container, 'resources');
  const limits = isJsonObject(resources) ? memberOf(resources, 'limits') : undefined;
  const requests = isJsonObject(resources) ? memberOf(resources, 'requests') : undefined;
  return ['cpu', 'memory'].some(
    (r) =>
      !isJsonObject(limits) ||
      memberOf(limits, r) === undefined ||
      !isJsonObject(requests) ||
      memberOf(requests, r) === undefined,
  );
}

/**
 * The apiserver defaults that apply to a container of `list` in `release`'s apiserver with
 * `featureGates`, in the order they are applied.
 */
export function activeDefaults(
  release: string,
  list: ContainerList,
  featureGates: Readonly<Record<string, boolean>>,
): ApiserverDefault[] {
  const minor = releaseInfo(release).minor;
  return APISERVER_DEFAULTS.filter((row) => {
    if (minor < row.first || (row.last !== null && minor > row.last)) return false;
    const from = row.lists[list];
    if (from === undefined || minor < from) return false;
    return row.gate === undefined || (featureGates[row.gate.name] ?? row.gate.default) === row.gate.when;
  });
}

interface RuleContext {
  hostNetwork: boolean;
  automount: boolean;
  tokenVolume: string | undefined;
}

function applyRule(
  row: ApiserverDefault,
  path: readonly string[],
  pointer: boolean,
  container: JsonObject,
  ctx: RuleContext,
): void {
  const { kind, value } = row.rule;
  switch (kind) {
    case 'zero':
      visit(container, path, (parent, key) => {
        if (isZero(memberOf(parent, key), pointer)) setMember(parent, key, value);
      });
      break;
    case 'force':
      visit(container, path, (parent, key) => {
        setMember(parent, key, value);
      });
      break;
    case 'image-pull-policy':
      if (isZero(memberOf(container, 'imagePullPolicy'), false)) {
        setMember(container, 'imagePullPolicy', defaultPullPolicy(memberOf(container, 'image') ?? ''));
      }
      break;
    case 'requests-from-limits':
      requestsFromLimits(container);
      break;
    case 'round-up-milli':
      visit(container, path, (parent, key) => {
        roundQuantities(memberOf(parent, key), [...path]);
      });
      break;
    case 'host-port':
      if (!ctx.hostNetwork) break;
      visit(container, path, (port, key) => {
        const containerPort = memberOf(port, 'containerPort');
        if (isZero(memberOf(port, key), false) && !isZero(containerPort, false)) setMember(port, key, containerPort);
      });
      break;
    case 'resize-policy':
      defaultResizePolicy(container);
      break;
    case 'token-mount':
      if (ctx.tokenVolume !== undefined && ctx.automount) mountToken(container, ctx.tokenVolume);
      break;
  }
}

/** Calls `fn(parent, key)` for every object the path reaches; never creates intermediate objects. */
function visit(node: unknown, path: readonly string[], fn: (parent: JsonObject, key: string) => void, at = 0): void {
  const step = path[at];
  if (step === undefined) return;
  if (step === '*') {
    if (Array.isArray(node)) for (const el of node) visit(el, path, fn, at + 1);
    return;
  }
  if (!isJsonObject(node)) return;
  if (at === path.length - 1) fn(node, step);
  else visit(memberOf(node, step), path, fn, at + 1);
}

/** Go's zero value as JSON gives it: absent or null, or for non-pointer fields also "" and 0. */
function isZero(v: unknown, pointer: boolean): boolean {
  if (v === undefined || v === null) return true;
  if (pointer) return false;
  if (v === '' || v === 0 || v === 0n) return true;
  return v instanceof JsonNumber && /^-?0$/.test(v.text);
}

function requestsFromLimits(container: JsonObject): void {
  const resources = memberOf(container, 'resources');
  if (!isJsonObject(resources)) return;
  const limits = memberOf(resources, 'limits');
  if (!isJsonObject(limits)) return;
  let requests = memberOf(resources, 'requests');
  for (const key of Object.keys(limits)) {
    const value = memberOf(limits, key);
    if (value === undefined) continue;
    if (!isJsonObject(requests)) {
      requests = newObject();
      setMember(resources, 'requests', requests);
    }
    const reqs = requests as JsonObject;
    if (memberOf(reqs, key) === undefined) setMember(reqs, key, value);
  }
}

function roundQuantities(list: unknown, path: JsonPathSegment[]): void {
  if (!isJsonObject(list)) return;
  for (const key of Object.keys(list)) {
    const value = memberOf(list, key);
    const token = quantityTokenOf(value, [...path, key]);
    if (token === null || token.kind === 'null') continue;
    const rounded = roundedUpToMilli(unmarshalQuantity(token, [...path, key]));
    if (rounded !== null) setMember(list, key, rounded);
  }
}

/** 1.27–1.32 with InPlacePodVerticalScaling: NotRequired for cpu and memory requests without a policy. */
function defaultResizePolicy(container: JsonObject): void {
  const resources = memberOf(container, 'resources');
  const requests = isJsonObject(resources) ? memberOf(resources, 'requests') : undefined;
  if (!isJsonObject(requests)) return;
  const existing = memberOf(container, 'resizePolicy');
  if (existing !== undefined && existing !== null && !Array.isArray(existing)) return;
  const policies: unknown[] = Array.isArray(existing) ? existing : [];
  const named = new Set(policies.map((p) => (isJsonObject(p) ? memberOf(p, 'resourceName') : undefined)));
  const added: unknown[] = [];
  for (const resourceName of ['cpu', 'memory']) {
    if (memberOf(requests, resourceName) === undefined || named.has(resourceName)) continue;
    const policy = newObject();
    setMember(policy, 'resourceName', resourceName);
    setMember(policy, 'restartPolicy', 'NotRequired');
    added.push(policy);
  }
  if (added.length > 0) setMember(container, 'resizePolicy', [...policies, ...added]);
}

function mountToken(container: JsonObject, volume: string): void {
  const mounts = memberOf(container, 'volumeMounts');
  if (mounts !== undefined && mounts !== null && !Array.isArray(mounts)) return;
  const list: unknown[] = Array.isArray(mounts) ? mounts : [];
  if (list.some((m) => isJsonObject(m) && memberOf(m, 'mountPath') === SERVICE_ACCOUNT_TOKEN_MOUNT_PATH)) return;
  setMember(container, 'volumeMounts', [...list, serviceAccountTokenMount(volume)]);
}

/**
 * The volume mount the service-account admission plugin appends to containers and init
 * containers (same shape in every supported release).
 *
 * @example
 * ```ts
 * import { serviceAccountTokenMount } from 'kubelet-hash';
 *
 * serviceAccountTokenMount('kube-api-access-75rfs').mountPath; // → '/var/run/secrets/kubernetes.io/serviceaccount'
 * ```
 */
export function serviceAccountTokenMount(volume: string): Record<string, unknown> {
  const mount = newObject();
  setMember(mount, 'name', volume);
  setMember(mount, 'readOnly', true);
  setMember(mount, 'mountPath', SERVICE_ACCOUNT_TOKEN_MOUNT_PATH);
  return mount;
}

/** A member the way JSON gives it: `__proto__` is an ordinary key, never the prototype. */
function setMember(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function newObject(): JsonObject {
  return {};
}

/** An object JSON.stringify would send as a JSON object (and the decoder reads as one). */
function isJsonObject(v: unknown): v is JsonObject {
  return isPlainObject(v) && !hasToJson(v);
}

/**
 * A deep copy of a JSON value as JSON.stringify would send it: own enumerable members,
 * `undefined` members left out, `undefined` array elements as null. Anything else (numbers kept as
 * `JsonNumber`, bigints, and values the decoder ignores) is kept as is.
 */
function copyJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((el) => (el === undefined ? null : copyJson(el)));
  if (!isJsonObject(v)) return v;
  const out = newObject();
  for (const key of Object.keys(v)) {
    const value = memberOf(v, key);
    if (value !== undefined) setMember(out, key, copyJson(value));
  }
  return out;
}
