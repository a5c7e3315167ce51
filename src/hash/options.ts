/** Validation of the options objects public functions take (zod at the edge, typed errors out). */
import { z } from 'zod';
import { OptionError, parseWith } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { releaseInfo, type ReleaseInfo } from '../registry/registry.js';

/**
 * Which kubelet to reproduce: taken by every hashing function. Invalid options throw
 * {@link OptionError} `INVALID_OPTION`; an unknown version throws {@link ReleaseError}.
 *
 * @example
 * ```ts
 * import { hashContainer, type HashOptions } from 'kubelet-hash';
 *
 * const container = { name: 'app', image: 'busybox', command: ['printf', 'a\bb'] };
 * const latePatch: HashOptions = { kubeletVersion: 'v1.29.14', jsonEscapes: 'go1.22' };
 * // 1.29.0 was built with Go 1.21, the late 1.29 patches with Go 1.22, which escapes \b differently.
 * hashContainer(container, { kubeletVersion: '1.29' }) === hashContainer(container, latePatch); // → false
 * ```
 *
 * @group Hashing
 */
export interface HashOptions {
  /** The kubelet's version: `1.27`, `1.27.4`, `v1.27.4`, or a node's `v1.27.4-eks-…`. */
  kubeletVersion: string;
  /**
   * Which Go toolchain's encoding/json escaping of BS/FF to use. Defaults to that of the release's
   * `.0` build; the last 1.27.x and late 1.28.x/1.29.x patches were built with Go 1.22 and need `'go1.22'`.
   */
  jsonEscapes?: JsonEscapeMode;
}

export const escapesSchema = z.enum(['go1.22', 'pre-go1.22']);

const hashOptionsSchema = z.object({
  kubeletVersion: z.string(),
  jsonEscapes: escapesSchema.optional(),
});

export interface ResolvedHashOptions {
  info: ReleaseInfo;
  jsonEscapes: JsonEscapeMode | undefined;
}

/** Parses `value` with `schema` or throws an {@link OptionError} naming the offending path. */
export function checkOptions<T>(schema: z.ZodType<T>, value: unknown, name: string, expected: string): T {
  return parseWith(
    schema,
    value,
    ({ path, inside, message }) =>
      new OptionError('INVALID_OPTION', path, inside.length === 0 ? expected : message, message),
    [name],
  );
}

/**
 * Checks an options object and resolves its release, or throws an {@link OptionError}/ReleaseError.
 * A plain object whose fields already have the right types skips zod (hot path: one call per hash).
 */
export function resolveHashOptions(options: unknown, name = 'options'): ResolvedHashOptions {
  const fast = wellFormed(options);
  if (fast) return fast;
  const data = checkOptions(hashOptionsSchema, options, name, 'an options object such as { kubeletVersion: "1.27" }');
  return { info: releaseInfo(data.kubeletVersion, [name, 'kubeletVersion']), jsonEscapes: data.jsonEscapes };
}

/** Bounded: version strings come from callers (`v1.27.4-eks-…`), so the cache must not grow without limit. */
const RELEASE_CACHE_LIMIT = 256;
const releases = new Map<string, ResolvedHashOptions>();

/**
 * The resolution of a plain options object with valid field types and a known version, from a
 * per-version-string cache; null when zod and the registry must look at it (and throw).
 */
function wellFormed(options: unknown): ResolvedHashOptions | null {
  if (typeof options !== 'object' || options === null) return null;
  const proto: unknown = Object.getPrototypeOf(options);
  if (proto !== Object.prototype && proto !== null) return null;
  const { kubeletVersion, jsonEscapes } = options as { kubeletVersion?: unknown; jsonEscapes?: unknown };
  if (typeof kubeletVersion !== 'string') return null;
  if (jsonEscapes !== undefined && jsonEscapes !== 'go1.22' && jsonEscapes !== 'pre-go1.22') return null;
  let resolved = releases.get(kubeletVersion);
  if (resolved === undefined) {
    try {
      resolved = { info: releaseInfo(kubeletVersion), jsonEscapes: undefined };
    } catch {
      return null; // the slow path throws the ReleaseError with this call's path
    }
    if (releases.size >= RELEASE_CACHE_LIMIT) releases.clear();
    releases.set(kubeletVersion, resolved);
  }
  // The cached object (no allocation) serves the usual call without jsonEscapes.
  return jsonEscapes === undefined ? resolved : { info: resolved.info, jsonEscapes };
}
