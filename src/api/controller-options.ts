/**
 * Options shared by the controller-facing calls (containerChanged, translateHash, planUpgrade…):
 * zod at the edge, typed errors out, in the same style as `options.ts`.
 */
import { z } from 'zod';
import { OptionError, type JsonPathSegment } from '../errors.js';
import { releaseInfo, type ReleaseInfo } from '../releases/registry.js';
import { storedHashValue } from '../hash/format.js';
import { checkOptions, escapesSchema } from './options.js';
export { checkOptions, escapesSchema } from './options.js';

/**
 * Kubelet feature gates that change how the stored hashes are used. Other gates may be listed
 * (a kubelet's whole `--feature-gates`); they do not change hash handling and are ignored.
 */
export interface FeatureGates {
  /** In-place pod resize (1.27+); unset takes the release's default. Setting it before 1.27 is an error. */
  InPlacePodVerticalScaling?: boolean;
  [gate: string]: boolean | undefined;
}

export const featureGatesSchema = z.record(z.string(), z.boolean().optional());

/** The options every restart-rule call takes (`containerChanged`, `predictRestarts`). */
export const ruleOptionsSchema = z.object({
  kubeletVersion: z.string(),
  jsonEscapes: escapesSchema.optional(),
  featureGates: featureGatesSchema.optional(),
  staticPod: z.boolean().optional(),
});


/**
 * Whether InPlacePodVerticalScaling is on for `info`'s kubelet: the caller's setting, else the
 * release's default. Before 1.27 the gate does not exist (a kubelet refuses unknown gates).
 */
export function inPlaceResizeEnabled(info: ReleaseInfo, gates: FeatureGates | undefined, path: JsonPathSegment[]): boolean {
  const set = gates?.InPlacePodVerticalScaling;
  const gate = info.featureGates.InPlacePodVerticalScaling;
  if (!gate) {
    if (set !== undefined) {
      throw new OptionError('INVALID_OPTION', [...path, 'InPlacePodVerticalScaling'], 'no InPlacePodVerticalScaling setting: the gate exists from kubelet 1.27 on', `release ${info.release}`);
    }
    return false;
  }
  return set ?? gate.default;
}

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * An observed/stored hash given by a caller: hex text as stored (read like the kubelet does, so
 * missing or malformed text is 0), or the value as a number or bigint.
 */
export type HashValueInput = string | number | bigint;

export function readHashValue(value: unknown, path: JsonPathSegment[]): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'string') return storedHashValue(value);
  if (typeof value === 'bigint' && value >= 0n && value <= UINT64_MAX) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new OptionError('INVALID_OPTION', path, 'a hash as stored (hex text), or an unsigned integer (number up to 2^53, or bigint)', `found ${typeof value} ${String(value)}`);
}

export const hashValueSchema = z.union([z.string(), z.number(), z.bigint()]);

/** Checks restart-rule options and resolves the release and whether in-place resize applies. */
export function resolveRuleOptions<T extends z.infer<typeof ruleOptionsSchema>>(
  schema: z.ZodType<T>,
  options: unknown,
  example: string,
): { opts: T; info: ReleaseInfo; inPlaceResize: boolean } {
  const opts = checkOptions(schema, options, 'options', `an options object such as ${example}`);
  const info = releaseInfo(opts.kubeletVersion, ['options', 'kubeletVersion']);
  const inPlaceResize = inPlaceResizeEnabled(info, opts.featureGates as FeatureGates | undefined, ['options', 'featureGates']);
  return { opts, info, inPlaceResize };
}
