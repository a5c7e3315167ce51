/**
 * Options shared by the controller-facing calls (containerChanged, translateHash, planUpgrade…):
 * zod at the edge, typed errors out, in the same style as `options.ts`.
 */
import type { z } from 'zod';
import type { GateName } from '../models/dsl.js';
import { OptionError, type JsonPathSegment } from '../errors.js';
import { modelledGates, releaseInfo, type ReleaseInfo } from '../releases/index.js';
import { MAX_UINT64 } from '../go/ints.js';
import { isPlainObject } from '../decode/input.js';
import { parseHash, storedHashValue } from '../hash/format.js';
import { patchTableNote } from '../hash/options.js';
import { lazySchema } from '../on-demand.js';
import { describeOptionValue, readOptionFields, type OptionFields } from '../option-fields.js';
import { KubeletRelease, type KubeletChoice, type ResolvedGates } from '../hash/release.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';

export type { KubeletChoice, ResolvedGates } from '../hash/release.js';

/**
 * A gate's value as the kubelet takes it: a boolean, or the text Go's `strconv.ParseBool` accepts
 * (`--feature-gates=SidecarContainers=True`): `1`, `t`, `T`, `TRUE`, `true`, `True`, `0`, `f`, `F`,
 * `FALSE`, `false`, `False`.
 *
 * @example
 * ```ts
 * import { containerChanged, type GateValue } from 'kubelet-hash';
 * const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
 * const r = containerChanged(sidecar, { hash: '1' }, {
 *   kubeletVersion: '1.32',
 *   containerList: 'initContainers',
 *   featureGates: { SidecarContainers: 'F' } satisfies Record<string, GateValue>,
 * });
 * r.ruleId; // → 'sidecar-as-init'
 * ```
 *
 * @group Kubelet decisions
 */
export type GateValue = boolean | string;

/**
 * Kubelet feature gates that change how the stored hashes are used. Only the gates in the
 * library's table are accepted (see docs/controllers.md "Feature gates"): a kubelet refuses a gate name it does
 * not know, and the library cannot tell whether a given release knows any other name, so it
 * refuses rather than guess (`UNKNOWN_FEATURE_GATE`). A setting the kubelet would refuse throws
 * {@link OptionError}.
 *
 * @example
 * ```ts
 * import { containerChanged, type FeatureGates } from 'kubelet-hash';
 *
 * const gates: FeatureGates = { InPlacePodVerticalScaling: true };
 * const resized = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '1' } } };
 * const stored = { hash: '590c88e0', hashWithoutResources: '371a981f' };
 * // 1.29 with in-place resize: a resources-only change is resized, not restarted.
 * containerChanged(resized, stored, { kubeletVersion: '1.29', featureGates: gates }).changed; // → false
 * containerChanged(resized, stored, { kubeletVersion: '1.29' }).changed; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export interface FeatureGates {
  /** A regular container's own restartPolicy and restartPolicyRules decide whether it starts again (1.34+); unset takes the release's default. */
  ContainerRestartRules?: GateValue;
  /** In-place pod resize (1.27+); unset takes the release's default. Setting it before 1.27, or to false from 1.35 (locked), is an error. */
  InPlacePodVerticalScaling?: GateValue;
  /** A restartPolicyRules action RestartAllContainers restarts the whole pod (1.35+; needs ContainerRestartRules); unset takes the release's default. */
  RestartAllContainersOnContainerExits?: GateValue;
  /** Restartable init containers (gate 1.28–1.36, always on from 1.37, where the gate is gone); unset takes the release's default. Setting it before 1.28, to false at 1.33–1.36 (locked), or at all from 1.37 is an error. */
  SidecarContainers?: GateValue;
  /** Any other name is refused at run time (`UNKNOWN_FEATURE_GATE`); typed loosely so a parsed `--feature-gates` map fits. */
  [gate: string]: GateValue | undefined;
}

export type { GateName } from '../models/dsl.js';

/**
 * Feature gates after they are read (each value through strconv.ParseBool, each name one the
 * library models): the one form a gate takes once options are resolved, and the form a plan file
 * records.
 *
 * @example
 * ```ts
 * import type { GateSettings } from 'kubelet-hash';
 * // `--feature-gates InPlacePodVerticalScaling=True` as a plan file records it:
 * const gates: GateSettings = { InPlacePodVerticalScaling: true };
 * gates.InPlacePodVerticalScaling; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export type GateSettings = Partial<Record<GateName, boolean>>;

/** {@link GateSettings} as a file holds them (a plan file's `featureGates`). */
export const gateSettingsSchema: () => z.ZodType<GateSettings> = /* @__PURE__ */ lazySchema((z) =>
  z.record(z.string(), z.boolean()),
);

/**
 * The options every restart-rule call takes (`containerChanged`, `predictRestarts`): the kubelet,
 * as a handle or as its version (with escapes and gates), and how it runs the pod.
 */
export interface RuleOptions extends KubeletChoice {
  featureGates?: FeatureGates;
  staticPod?: boolean;
  storedHashReading?: StoredHashReading;
}

/** `number 1.5`, `object`: what a refused value was, without printing objects. */
function describeValue(value: unknown): string {
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean'
  ) {
    return `${typeof value} ${String(value)}`;
  }
  return value === null ? 'null' : typeof value;
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A gate value as the kubelet parses it (strconv.ParseBool), or a typed error. */
export function parseGateValue(value: unknown, path: JsonPathSegment[]): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && GO_TRUE.has(value)) return true;
  if (typeof value === 'string' && GO_FALSE.has(value)) return false;
  throw new OptionError(
    'INVALID_OPTION',
    path,
    'a boolean, or one of 1 t T TRUE true True 0 f F FALSE false False (Go strconv.ParseBool, as the kubelet reads --feature-gates)',
    `found ${typeof value === 'string' ? JSON.stringify(value) : describeValue(value)}`,
  );
}

/**
 * The gates a caller set, each value read as the kubelet reads it (strconv.ParseBool), refusing a
 * name outside the library's table (`UNKNOWN_FEATURE_GATE`) and, given a release, a gate it does
 * not have (the kubelet refuses it: "unrecognized feature gate"). Without a release this is what can be checked before the kubelet is known (the CLI's
 * `--feature-gates`); the calls that take a release check the rest.
 */
export function readGateSettings(gates: unknown, path: JsonPathSegment[], info?: ReleaseInfo): GateSettings {
  const out: GateSettings = {};
  if (gates === undefined || gates === null) return out;
  if (!isPlainObject(gates)) {
    throw new OptionError(
      'INVALID_OPTION',
      path,
      'an object of gate names to booleans, such as { InPlacePodVerticalScaling: true }',
      `found ${describeValue(gates)}`,
    );
  }
  for (const [name, raw] of Object.entries(gates)) {
    const value = parseGateValue(raw, [...path, name]);
    if (value === undefined) continue;
    const modelled = modelledGates();
    if (!modelled.includes(name)) {
      throw new OptionError(
        'UNKNOWN_FEATURE_GATE',
        [...path, name],
        `one of the gates kubelet-hash models (${modelled.join(', ')}): a kubelet refuses names it does not know, and the library cannot tell whether ${info ? `kubelet ${info.release}` : 'a given kubelet'} knows this one; leave out gates that do not change restarts`,
        `found ${JSON.stringify(name)}`,
      );
    }
    if (info && !info.featureGates[name as GateName]) {
      throw new OptionError(
        'UNKNOWN_FEATURE_GATE',
        [...path, name],
        info.retiredGates.includes(name as GateName)
          ? `no ${name} setting: the gate was removed after GA (its behaviour is always on) and kubelet ${info.release} refuses to start with it`
          : `no ${name} setting: kubelet ${info.release} has no such gate and refuses to start with it`,
        `found ${name}=${value}`,
      );
    }
    out[name as GateName] = value;
  }
  return out;
}

/**
 * Whether gate `name` is on for `info`'s kubelet: the caller's setting, else the release's default.
 * Like the kubelet, refuses a setting against a locked (GA) gate's default.
 */
function gateEnabled(info: ReleaseInfo, set: boolean | undefined, name: GateName, path: JsonPathSegment[]): boolean {
  const gate = info.featureGates[name];
  // A gate removed after GA leaves its behaviour on for good.
  if (!gate) return info.retiredGates.includes(name);
  if (set !== undefined && gate.locked && set !== gate.default) {
    throw new OptionError(
      'INVALID_OPTION',
      [...path, name],
      `${name}=${gate.default}: the gate is GA and locked in kubelet ${info.release}`,
      `found ${set}`,
    );
  }
  return set ?? gate.default;
}

export function resolveGates(info: ReleaseInfo, gates: unknown, path: JsonPathSegment[]): ResolvedGates {
  const set = readGateSettings(gates, path, info);
  return {
    inPlaceResize: gateEnabled(info, set.InPlacePodVerticalScaling, 'InPlacePodVerticalScaling', path),
    sidecars: gateEnabled(info, set.SidecarContainers, 'SidecarContainers', path),
    containerRestartRules: gateEnabled(info, set.ContainerRestartRules, 'ContainerRestartRules', path),
    // The kubelet refuses the gate on without ContainerRestartRules (its dependency, kube_features.go@v1.37.2).
    restartAllContainers:
      gateEnabled(info, set.RestartAllContainersOnContainerExits, 'RestartAllContainersOnContainerExits', path) &&
      gateEnabled(info, set.ContainerRestartRules, 'ContainerRestartRules', path),
    // kube_features.go@v1.35.4 lists its dependencies: InPlacePodVerticalScaling, PodLevelResources (and
    // NodeDeclaredFeatures, not modelled: assumed set with it at 1.35, where it is alpha too).
    podLevelResize:
      gateEnabled(info, set.InPlacePodLevelResourcesVerticalScaling, 'InPlacePodLevelResourcesVerticalScaling', path) &&
      gateEnabled(info, set.PodLevelResources, 'PodLevelResources', path) &&
      gateEnabled(info, set.InPlacePodVerticalScaling, 'InPlacePodVerticalScaling', path),
    legacySidecars: gateEnabled(info, set.LegacySidecarContainers, 'LegacySidecarContainers', path),
    // No gate before 1.35: the behaviour was simply on (GA since 1.0 in kube_features.go@v1.35.4).
    statusOnRestart:
      info.minor < 35 ||
      gateEnabled(info, set.ChangeContainerStatusOnKubeletRestart, 'ChangeContainerStatusOnKubeletRestart', path),
  };
}

/**
 * An observed/stored hash given by a caller: hex text as stored (of either case, as
 * `strconv.ParseUint(s, 16, 64)` reads it), or the value as a number or bigint.
 *
 * @example
 * ```ts
 * import { identifyReleases, type HashValueInput } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const observed: HashValueInput[] = ['e220f96', 0xe220f96, 0xe220f96n];
 * observed.map((h) => identifyReleases(container, h)[0]?.release); // → ['1.31', '1.31', '1.31']
 * ```
 *
 * @group Kubelet decisions
 */
export type HashValueInput = string | number | bigint;

/**
 * How a caller-given stored hash is read: `strict` (default) refuses text that is not hex and a
 * status without a hash, so a typo cannot turn into a restart verdict; `kubelet` reads them as the
 * kubelet's `getUint64ValueFromLabel` does (missing or malformed is 0, so the container restarts).
 *
 * @example
 * ```ts
 * import { containerChanged, type StoredHashReading } from 'kubelet-hash';
 * const c = { name: 'web', image: 'nginx' };
 * const read = (storedHashReading: StoredHashReading) => {
 *   try {
 *     return containerChanged(c, { hash: 'oops' }, { kubeletVersion: '1.31', storedHashReading }).actual;
 *   } catch (e) {
 *     return (e as { code: string }).code;
 *   }
 * };
 * [read('strict'), read('kubelet')]; // → ['INVALID_HASH', '0']
 * ```
 *
 * @group Kubelet decisions
 */
export type StoredHashReading = 'strict' | 'kubelet';

/** A caller-given hash value; text must be hex unless `reading` is `kubelet` (then malformed is 0). */
export function readHashValue(value: unknown, path: JsonPathSegment[], reading: StoredHashReading = 'strict'): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'string') return reading === 'kubelet' ? storedHashValue(value) : parseHash(value, path);
  if (typeof value === 'bigint' && value >= 0n && value <= MAX_UINT64) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new OptionError(
    'INVALID_OPTION',
    path,
    'a hash as stored (hex text), or an unsigned integer (number up to 2^53, or bigint)',
    `found ${describeValue(value)}`,
  );
}

/** The fields of {@link RuleOptions}, read by {@link resolveRuleOptionFields} (no zod: the calls a controller makes). */
const RULE_OPTION_FIELDS = {
  kubeletVersion: 'string',
  kubelet: { test: (v: unknown) => v instanceof KubeletRelease, expected: 'a kubelet() handle' },
  jsonEscapes: ['go1.22', 'pre-go1.22'],
  featureGates: 'object',
  staticPod: 'boolean',
  storedHashReading: ['strict', 'kubelet'],
} as const satisfies OptionFields;

/** What a rule call's options resolve to. */
export interface ResolvedRuleOptions<T> {
  opts: T & { jsonEscapes?: JsonEscapeMode };
  info: ReleaseInfo;
  gates: ResolvedGates;
  toolchain?: string;
}

/**
 * Checks restart-rule options and resolves the release and whether in-place resize applies, by
 * hand-written field checks (no zod on a controller's path): the rule options and `extra`, an unknown
 * name refused with the closest known one. A `kubelet` handle comes resolved: the version, escapes
 * and gates beside it are refused (the handle says them). `T` is the caller's options type (checked
 * here, not trusted).
 */
export function resolveRuleOptionFields<T extends RuleOptions>(
  extra: OptionFields,
  options: T,
  example: string,
): ResolvedRuleOptions<T> {
  const checked = readOptionFields<T>(options, ['options'], {
    fields: { ...RULE_OPTION_FIELDS, ...extra },
    expected: `an options object such as ${example}`,
  });
  const k = checked.kubelet;
  if (k === undefined) {
    if (checked.kubeletVersion === undefined)
      throw new OptionError(
        'INVALID_OPTION',
        ['options', 'kubeletVersion'],
        'a string (or a kubelet() handle as `kubelet`)',
        'found nothing',
      );
    return resolveChecked(checked as T & { kubeletVersion: string });
  }
  for (const name of ['kubeletVersion', 'jsonEscapes', 'featureGates'] as const)
    if (checked[name] !== undefined)
      throw new OptionError(
        'INVALID_OPTION',
        ['options', name],
        `no ${name} beside a kubelet() handle (give it to kubelet() instead)`,
        `found ${describeOptionValue(checked[name])}`,
      );
  const opts = k.jsonEscapes === undefined ? checked : { ...checked, jsonEscapes: k.jsonEscapes };
  return {
    opts,
    info: k.info,
    gates: k.gates,
    ...(k.toolchain === undefined ? {} : { toolchain: toolchainAssumption(k.jsonEscapes!, k.toolchain) }),
  };
}

/** The assumption a result carries when the patch table chose the escaping. */
function toolchainAssumption(escapes: JsonEscapeMode, source: string): string {
  return `encoding/json escapes '${escapes}' from the patch table: ${source}`;
}

function resolveChecked<T extends RuleOptions & { kubeletVersion: string }>(checked: T): ResolvedRuleOptions<T> {
  const info = releaseInfo(checked.kubeletVersion, ['options', 'kubeletVersion']);
  const gates = resolveGates(info, checked.featureGates, ['options', 'featureGates']);
  // A patch version selects the escapes of the Go that built it; an explicit jsonEscapes wins.
  const table = patchTableNote(checked.kubeletVersion, checked.jsonEscapes);
  if (table === undefined) return { opts: checked, info, gates };
  return {
    opts: { ...checked, jsonEscapes: table.escapes },
    info,
    gates,
    toolchain: toolchainAssumption(table.escapes, table.toolchain),
  };
}
