/**
 * Options shared by the controller-facing calls (containerChanged, translateHash, planUpgrade…):
 * zod at the edge, typed errors out, in the same style as `options.ts`.
 */
import { z } from 'zod';
import { OptionError, type JsonPathSegment } from '../errors.js';
import type { GateName } from '../models/dsl.js';
import { releaseInfo, type ReleaseInfo } from '../releases/registry.js';
import { MAX_UINT64 } from '../go/ints.js';
import { storedHashValue } from '../hash/format.js';
import { checkOptions, escapesSchema } from '../hash/options.js';
export { checkOptions, escapesSchema } from '../hash/options.js';

/**
 * Kubelet feature gates that change how the stored hashes are used. Other gates may be listed
 * (a kubelet's whole `--feature-gates`); they do not change hash handling and are ignored.
 */
export interface FeatureGates {
  /** In-place pod resize (1.27+); unset takes the release's default. Setting it before 1.27, or to false from 1.35 (locked), is an error. */
  InPlacePodVerticalScaling?: boolean;
  /** Restartable init containers (1.28+); unset takes the release's default. Setting it before 1.28, or to false from 1.33 (locked), is an error. */
  SidecarContainers?: boolean;
  [gate: string]: boolean | undefined;
}

/** The gates whose setting changes the restart rule (declared with the release facts). */
export type { GateName };

export const featureGatesSchema = z.record(z.string(), z.boolean().optional());

/** The options every restart-rule call takes (`containerChanged`, `predictRestarts`). */
export const ruleOptionsSchema = z.object({
  kubeletVersion: z.string(),
  jsonEscapes: escapesSchema.optional(),
  featureGates: featureGatesSchema.optional(),
  staticPod: z.boolean().optional(),
});


/**
 * Whether gate `name` is on for `info`'s kubelet: the caller's setting, else the release's default.
 * Like the kubelet, refuses a setting for a gate the release does not have, or one against a
 * locked (GA) gate's default.
 */
export function gateEnabled(info: ReleaseInfo, gates: FeatureGates | undefined, name: GateName, path: JsonPathSegment[]): boolean {
  const set = gates?.[name];
  const gate = info.featureGates[name];
  if (!gate) {
    if (set !== undefined) {
      throw new OptionError('INVALID_OPTION', [...path, name], `no ${name} setting: kubelet ${info.release} has no such gate`, `found ${set}`);
    }
    return false;
  }
  if (set !== undefined && gate.locked && set !== gate.default) {
    throw new OptionError('INVALID_OPTION', [...path, name], `${name}=${gate.default}: the gate is GA and locked in kubelet ${info.release}`, `found ${set}`);
  }
  return set ?? gate.default;
}

/** The gates that change the restart rule, resolved for one kubelet. */
export interface ResolvedGates {
  /** InPlacePodVerticalScaling on: 1.27–1.30 compare the without-resources hash too. */
  inPlaceResize: boolean;
  /** SidecarContainers on: restartable init containers are sidecars (else plain init containers). */
  sidecars: boolean;
}

export function resolveGates(info: ReleaseInfo, gates: FeatureGates | undefined, path: JsonPathSegment[]): ResolvedGates {
  return {
    inPlaceResize: gateEnabled(info, gates, 'InPlacePodVerticalScaling', path),
    sidecars: gateEnabled(info, gates, 'SidecarContainers', path),
  };
}


/**
 * An observed/stored hash given by a caller: hex text as stored (read like the kubelet does, so
 * missing or malformed text is 0), or the value as a number or bigint.
 */
export type HashValueInput = string | number | bigint;

export function readHashValue(value: unknown, path: JsonPathSegment[]): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'string') return storedHashValue(value);
  if (typeof value === 'bigint' && value >= 0n && value <= MAX_UINT64) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new OptionError('INVALID_OPTION', path, 'a hash as stored (hex text), or an unsigned integer (number up to 2^53, or bigint)', `found ${typeof value} ${String(value)}`);
}

export const hashValueSchema = z.union([z.string(), z.number(), z.bigint()]);

/** Checks restart-rule options and resolves the release and whether in-place resize applies. */
export function resolveRuleOptions<T extends z.infer<typeof ruleOptionsSchema>>(
  schema: z.ZodType<T>,
  options: unknown,
  example: string,
): { opts: T; info: ReleaseInfo; gates: ResolvedGates } {
  const opts = checkOptions(schema, options, 'options', `an options object such as ${example}`);
  const info = releaseInfo(opts.kubeletVersion, ['options', 'kubeletVersion']);
  const gates = resolveGates(info, opts.featureGates as FeatureGates | undefined, ['options', 'featureGates']);
  return { opts, info, gates };
}
