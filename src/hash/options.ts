/**
 * Validation of the options objects public functions take: `HashOptions` field by field
 * (`option-fields.ts`, no zod on the hashing path), the others through zod at the edge; typed errors out.
 */
import type { z } from 'zod';
import { OptionError, parseWith } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { releaseInfo, type ReleaseInfo, kubeletToolchain } from '../releases/index.js';
import { lazySchema } from '../on-demand.js';
import { readOptionFields, type OptionFields } from '../option-fields.js';

/**
 * Which kubelet to reproduce: taken by every hashing function. Invalid options throw
 * {@link OptionError} `INVALID_OPTION`; an unknown version throws {@link ReleaseError}.
 *
 * @example
 * ```ts
 * import { hashContainer, type HashOptions } from 'kubelet-hash';
 *
 * const container = { name: 'app', image: 'busybox', command: ['printf', 'a\bb'] };
 * const latePatch: HashOptions = { kubeletVersion: 'v1.29.14' };
 * // 1.29.0 was built with Go 1.21, 1.29.7 and later with Go 1.22.5, which escapes \b differently.
 * hashContainer(container, { kubeletVersion: '1.29' }) === hashContainer(container, latePatch); // → false
 * hashContainer(container, latePatch) === hashContainer(container, { kubeletVersion: '1.29', jsonEscapes: 'go1.22' }); // → true
 * ```
 *
 * @group Hashing
 */
export interface HashOptions {
  /** The kubelet's version: `1.27`, `1.27.4`, `v1.27.4`, a node's `v1.27.4-eks-…`, or `kubelet --version`'s `Kubernetes v1.27.4`. */
  kubeletVersion: string;
  /**
   * Which Go toolchain's encoding/json escaping of BS/FF to use; wins over the version. Without it,
   * a patch version takes the Go that built it (1.27.16, 1.28.12+ and 1.29.7+ were built with Go
   * 1.22.5: see {@link kubeletToolchain}) and a minor alone that of its `.0` build.
   */
  jsonEscapes?: JsonEscapeMode;
}

// Pure: a bundle that never reads it (hashing alone) carries no zod.
export const escapesSchema = /* @__PURE__ */ lazySchema((z) => z.enum(['go1.22', 'pre-go1.22']));

/** The fields of {@link HashOptions}, read without zod (every hashing call reads them). */
const HASH_OPTION_FIELDS = {
  kubeletVersion: 'string',
  jsonEscapes: ['go1.22', 'pre-go1.22'],
} as const satisfies OptionFields;

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
      // At the options object itself the caller's expectation is stated and zod's message says what was
      // found; inside it, the schema's message is the expectation, said once.
      inside.length === 0
        ? new OptionError('INVALID_OPTION', path, expected, message)
        : new OptionError('INVALID_OPTION', path, message),
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
  const data = readOptionFields<{ kubeletVersion: string; jsonEscapes?: JsonEscapeMode }>(options, [name], {
    fields: HASH_OPTION_FIELDS,
    required: ['kubeletVersion'],
    expected: 'an options object such as { kubeletVersion: "1.27" }',
  });
  const info = releaseInfo(data.kubeletVersion, [name, 'kubeletVersion']);
  return { info, jsonEscapes: data.jsonEscapes ?? patchTableEscapes(data.kubeletVersion) };
}

/** The escaping the patch table gives a version, or undefined when the `.0` build's applies. */
function patchTableEscapes(version: string): JsonEscapeMode | undefined {
  return patchTableNote(version)?.escapes;
}

/**
 * When the patch table decides a version's escaping: that escaping and the sentence saying why
 * (results carry it, so a caller sees the hash depended on the table); else undefined.
 */
export function patchTableNote(
  version: string,
  explicit?: JsonEscapeMode,
): { escapes: JsonEscapeMode; toolchain: string } | undefined {
  if (explicit !== undefined) return undefined;
  const t = kubeletToolchain(version);
  return t.basis === 'patch-table' && t.jsonEscapes !== null
    ? { escapes: t.jsonEscapes, toolchain: t.source }
    : undefined;
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
  // Any other name (a misspelt option) goes to the slow path, which refuses it; for-in allocates nothing.
  for (const key in options) if (key !== 'kubeletVersion' && key !== 'jsonEscapes') return null;
  let resolved = releases.get(kubeletVersion);
  if (resolved === undefined) {
    try {
      resolved = { info: releaseInfo(kubeletVersion), jsonEscapes: patchTableEscapes(kubeletVersion) };
    } catch {
      return null; // the slow path throws the ReleaseError with this call's path
    }
    if (releases.size >= RELEASE_CACHE_LIMIT) releases.clear();
    releases.set(kubeletVersion, resolved);
  }
  // The cached object (no allocation) serves the usual call without jsonEscapes.
  return jsonEscapes === undefined ? resolved : { info: resolved.info, jsonEscapes };
}
