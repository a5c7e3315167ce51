/**
 * The OpenKruise releases modelled (v1.0 – v1.9) and the manager's feature gates that change an
 * in-place update, with their defaults per release (pkg/features/kruise_features.go at each tag).
 * The option names the release and gates the way `kubeletVersion` and `featureGates` name the
 * kubelet's.
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { parseGateValue } from '../kubelet/index.js';

/**
 * The OpenKruise manager gates that change what is updated in place.
 *
 * @example
 * ```ts
 * import type { OpenKruiseGateName } from 'kubelet-hash';
 * const gate: OpenKruiseGateName = 'InPlaceWorkloadVerticalScaling';
 * gate; // → 'InPlaceWorkloadVerticalScaling'
 * ```
 *
 * @group Kubelet decisions
 */
export type OpenKruiseGateName = 'InPlaceUpdateEnvFromMetadata' | 'InPlaceWorkloadVerticalScaling';

/**
 * The OpenKruise release that runs the workload controllers, and its `--feature-gates`.
 *
 * @example
 * ```ts
 * import type { OpenKruiseOptions } from 'kubelet-hash';
 * const kruise: OpenKruiseOptions = { version: 'v1.8.2', featureGates: { InPlaceWorkloadVerticalScaling: true } };
 * kruise.version; // → 'v1.8.2'
 * ```
 *
 * @group Kubelet decisions
 */
export interface OpenKruiseOptions {
  /** `v1.8`, `1.8.2`: the kruise-manager release (v1.0 – v1.9 are modelled). */
  version: string;
  /** Manager gates (booleans or Go's bool text); unset gates take the release's default. */
  featureGates?: Partial<Record<OpenKruiseGateName, boolean | string>>;
}

/** A resolved OpenKruise release. */
export interface OpenKruiseRelease {
  /** `v1.8` */
  release: string;
  minor: number;
  envFromMetadata: boolean;
  verticalScaling: boolean;
}

const FIRST_MINOR = 0;
const LAST_MINOR = 9;

/** Each gate: the first minor that has it and its default from each minor on. */
const GATES: Record<OpenKruiseGateName, { first: number; defaults: [fromMinor: number, on: boolean][] }> = {
  // Alpha, off in v1.0–v1.3; on by default from v1.4; beta from v1.8.
  InPlaceUpdateEnvFromMetadata: {
    first: 0,
    defaults: [
      [0, false],
      [4, true],
    ],
  },
  // Alpha, off by default, from v1.8.
  InPlaceWorkloadVerticalScaling: { first: 8, defaults: [[8, false]] },
};

function gateDefault(name: OpenKruiseGateName, minor: number): boolean {
  let on = false;
  for (const [from, value] of GATES[name].defaults) if (minor >= from) on = value;
  return on;
}

/** Reads `options.openKruise`; throws OptionError naming the member at fault. */
export function resolveOpenKruise(value: unknown, path: JsonPathSegment[]): OpenKruiseRelease {
  if (!isPlainObject(value)) {
    throw new OptionError(
      'INVALID_OPTION',
      path,
      "the OpenKruise release, e.g. { version: 'v1.8' }",
      'it is required for OpenKruise workloads',
    );
  }
  const v = value['version'];
  const m = typeof v === 'string' ? /^v?1\.(\d+)(?:\.\d+)?$/.exec(v.trim()) : null;
  const minor = m ? Number(m[1]) : NaN;
  if (!(minor >= FIRST_MINOR && minor <= LAST_MINOR)) {
    throw new OptionError(
      'INVALID_OPTION',
      [...path, 'version'],
      `an OpenKruise release v1.${FIRST_MINOR} – v1.${LAST_MINOR} (e.g. 'v1.8' or '1.8.2')`,
      `found ${JSON.stringify(v)}`,
    );
  }
  const gatesPath = [...path, 'featureGates'];
  const gates = value['featureGates'];
  const set: Partial<Record<OpenKruiseGateName, boolean>> = {};
  if (gates !== undefined && gates !== null) {
    if (!isPlainObject(gates))
      throw new OptionError('INVALID_OPTION', gatesPath, 'an object of gate names to booleans');
    for (const [name, raw] of Object.entries(gates)) {
      if (!(name in GATES)) {
        throw new OptionError(
          'UNKNOWN_FEATURE_GATE',
          [...gatesPath, name],
          `one of the OpenKruise gates that change in-place updates (${Object.keys(GATES).join(', ')})`,
          `found ${JSON.stringify(name)}`,
        );
      }
      const g = name as OpenKruiseGateName;
      if (minor < GATES[g].first) {
        throw new OptionError(
          'UNKNOWN_FEATURE_GATE',
          [...gatesPath, name],
          `no ${name} setting: OpenKruise v1.${minor} has no such gate (it exists from v1.${GATES[g].first})`,
        );
      }
      const on = parseGateValue(raw, [...gatesPath, name]);
      if (on !== undefined) set[g] = on;
    }
  }
  const gate = (g: OpenKruiseGateName) => minor >= GATES[g].first && (set[g] ?? gateDefault(g, minor));
  return {
    release: `v1.${minor}`,
    minor,
    envFromMetadata: gate('InPlaceUpdateEnvFromMetadata'),
    verticalScaling: gate('InPlaceWorkloadVerticalScaling'),
  };
}
