/**
 * Hash options resolved without zod on the hot path: a plain options object whose fields already
 * have the right types is resolved from a per-version-string cache; anything else goes through the
 * validating resolver, which gives the typed error.
 */
import type { JsonEscapeMode } from '../../encode/gojson-string.js';
import { releaseInfo, type ReleaseInfo } from '../../releases/registry.js';

/** Bounded: version strings come from callers (`v1.27.4-eks-…`), so the cache must not grow without limit. */
const CACHE_LIMIT = 256;
const infos = new Map<string, ReleaseInfo>();

export interface FastOptions {
  info: ReleaseInfo;
  jsonEscapes: JsonEscapeMode | undefined;
}

/**
 * The release and escapes of a well-formed options object, or null when the validating resolver
 * must look at it (wrong shape or type, or a version the registry refuses).
 */
export function fastOptions(options: unknown): FastOptions | null {
  if (typeof options !== 'object' || options === null) return null;
  const proto = Object.getPrototypeOf(options);
  if (proto !== Object.prototype && proto !== null) return null;
  const { kubeletVersion, jsonEscapes } = options as { kubeletVersion?: unknown; jsonEscapes?: unknown };
  if (typeof kubeletVersion !== 'string') return null;
  if (jsonEscapes !== undefined && jsonEscapes !== 'go1.22' && jsonEscapes !== 'pre-go1.22') return null;
  let info = infos.get(kubeletVersion);
  if (info === undefined) {
    try {
      info = releaseInfo(kubeletVersion);
    } catch {
      return null; // the validating resolver throws the ReleaseError
    }
    if (infos.size >= CACHE_LIMIT) infos.clear();
    infos.set(kubeletVersion, info);
  }
  return { info, jsonEscapes };
}
