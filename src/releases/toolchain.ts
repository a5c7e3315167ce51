/**
 * Which Go built a kubelet, as far as the container hash can tell: the `.0` build's toolchain
 * for a minor alone, and the release file's patch table (`laterPatchToolchain`) for a patch
 * version, so `v1.29.7` hashes with the `\b`/`\f` escapes of the Go 1.22.5 that built it.
 */
import type { JsonPathSegment } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { releaseInfo, type ReleaseInfo } from './release-info.js';
import { parseKubeletVersion } from './version.js';

/**
 * The encoding/json escaping a kubelet version hashes with, and where that came from.
 *
 * @example
 * ```ts
 * import { kubeletToolchain, type KubeletToolchain } from 'kubelet-hash';
 *
 * const late: KubeletToolchain = kubeletToolchain('Kubernetes v1.29.7');
 * [late.release, late.patch, late.jsonEscapes, late.basis, late.go]; // → ['1.29', 7, 'go1.22', 'patch-table', 'go1.22.5']
 * kubeletToolchain('v1.29.6').jsonEscapes; // → 'pre-go1.22'
 * kubeletToolchain('1.29').basis; // → 'release'
 * kubeletToolchain('1.29.7', 'pre-go1.22').basis; // → 'option'
 * ```
 *
 * @group Releases
 */
export interface KubeletToolchain {
  /** The minor release (`1.29`). */
  readonly release: string;
  /** The patch number when the version gave one. */
  readonly patch: number | null;
  /** The escaping used; null in the legacy (go-spew) era, which has no JSON. */
  readonly jsonEscapes: JsonEscapeMode | null;
  /**
   * `release`: the `.0` build's Go (a minor alone, or a patch before the table's boundary);
   * `patch-table`: a later patch built with a newer Go ({@link ReleaseInfo.laterPatchToolchain});
   * `option`: the caller's `jsonEscapes`.
   */
  readonly basis: 'release' | 'patch-table' | 'option';
  /** The Go release of a `patch-table` build (`go1.22.5`), else null. */
  readonly go: string | null;
  /** One line saying what was used and why, with the table's source for `patch-table`. */
  readonly source: string;
}

/**
 * The toolchain of `version` (`1.29`, `v1.29.7`, `Kubernetes v1.29.7`); `explicit` (the caller's
 * `jsonEscapes`) wins over the table. Throws the version errors of {@link releaseInfo}.
 *
 * @example
 * ```ts
 * import { kubeletToolchain } from 'kubelet-hash';
 *
 * // What `kubelet --version` prints on a node:
 * kubeletToolchain('Kubernetes v1.28.12').jsonEscapes; // → 'go1.22'
 * kubeletToolchain('v1.28.11').jsonEscapes; // → 'pre-go1.22'
 * kubeletToolchain('1.31.2').basis; // → 'release'
 * ```
 *
 * @group Releases
 */
export function kubeletToolchain(
  version: unknown,
  explicit?: JsonEscapeMode,
  path: readonly JsonPathSegment[] = ['kubeletVersion'],
): KubeletToolchain {
  const info = releaseInfo(version, path);
  const { patch } = parseKubeletVersion(version, path);
  return toolchainOf(info, patch, explicit);
}

/** {@link kubeletToolchain} for an already resolved release. */
function toolchainOf(info: ReleaseInfo, patch: number | null, explicit?: JsonEscapeMode): KubeletToolchain {
  const base = { release: info.release, patch };
  if (info.jsonEscapes === null) {
    return { ...base, jsonEscapes: null, basis: 'release', go: null, source: `${info.release} hashes no JSON` };
  }
  if (explicit !== undefined) {
    return { ...base, jsonEscapes: explicit, basis: 'option', go: null, source: `jsonEscapes: '${explicit}' as given` };
  }
  const later = info.laterPatchToolchain;
  if (later && patch !== null && patch >= later.fromPatch) {
    return {
      ...base,
      jsonEscapes: later.escapes,
      basis: 'patch-table',
      go: later.go,
      source: `${info.release}.${patch} was built with ${later.go} (patch table, ${info.release}.${later.fromPatch} and later: ${later.source})`,
    };
  }
  const which = patch === null ? `${info.release} (no patch given)` : `${info.release}.${patch}`;
  return {
    ...base,
    jsonEscapes: info.jsonEscapes,
    basis: 'release',
    go: null,
    source: `${which}: the Go of the ${info.release}.0 build${later && patch === null ? `; patches from ${info.release}.${later.fromPatch} were built with ${later.go} and escape as '${later.escapes}'` : ''}`,
  };
}
