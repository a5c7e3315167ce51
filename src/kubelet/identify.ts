/**
 * `identifyReleases`: which kubelet releases (and settings) would have stored a given hash for a
 * container, for nodes where the old kubelet version is not known.
 */
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { parseHash } from '../hash/format.js';
import { releaseInfo, supportedReleases } from '../releases/index.js';
import { readHashValue, type HashValueInput } from './options.js';
import { CONTAINER_CHECKS, hashesFor, type ContainerInput } from '../hash/hashes-for.js';

/**
 * A release (and settings) whose kubelet would have stored the observed hash; see {@link identifyReleases}.
 *
 * @example
 * ```ts
 * import { identifyReleases, type ReleaseMatch } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const [first]: ReleaseMatch[] = identifyReleases(container, '371a981f');
 * first; // → { release: '1.27', key: 'hashWithoutResources', featureGates: { InPlacePodVerticalScaling: true } }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ReleaseMatch {
  /** The kubelet minor release (`1.29`). */
  release: string;
  /** Which stored value matched: the hash, or (1.27–1.30) the hash without resources. */
  key: 'hash' | 'hashWithoutResources';
  /** Set when only a kubelet built with a non-default Go toolchain writes this hash (the last 1.27.x, late 1.28.x and 1.29.x patches, built with Go 1.22). */
  jsonEscapes?: JsonEscapeMode;
  /** Set for `hashWithoutResources`: it is stored only with this gate on. */
  featureGates?: {
    /** Always `true`: the gate the kubelet needs on to store `hashWithoutResources`. */
    InPlacePodVerticalScaling: true;
  };
}

/**
 * Every release whose kubelet would have written `observedHash` (hex as stored, number or bigint)
 * for `container`, oldest first; within a release, `hash` before `hashWithoutResources`. Use it
 * when a stored hash cannot be reproduced for the release you assumed. Throws
 * {@link HashFormatError} for hash text the kubelet never writes, and the errors of
 * {@link hashContainer}.
 *
 * @example
 * ```ts
 * import { identifyReleases } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * identifyReleases(container, 'b703b5fb').map((m) => m.release); // → ['1.9', '1.10', '1.11', '1.12', '1.13', '1.14', '1.15']
 * identifyReleases(container, '590c88e0').length; // → 15
 * identifyReleases(container, '12345678'); // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function identifyReleases(container: ContainerInput, observedHash: HashValueInput): ReleaseMatch[] {
  // Text here is the caller's query, not a stored label: refuse malformed text instead of reading 0.
  const target =
    typeof observedHash === 'string'
      ? parseHash(observedHash, ['observedHash'])
      : readHashValue(observedHash, ['observedHash']);
  // Text keeps the fused text path; text the fused path hands over is parsed once, then reused.
  let input: ContainerInput = container;
  const out: ReleaseMatch[] = [];
  for (const release of supportedReleases()) {
    const info = releaseInfo(release);
    const modes: (JsonEscapeMode | undefined)[] = [undefined];
    const alt = info.laterPatchJsonEscapes;
    if (alt) modes.push(alt);
    const seen = { hash: false, hashWithoutResources: false };
    for (const mode of modes) {
      const h = hashesFor(input, info, mode, CONTAINER_CHECKS);
      if (typeof input === 'string' && h.parsed) input = h.json as object;
      const tryKey = (key: 'hash' | 'hashWithoutResources', value: bigint): void => {
        if (seen[key] || value !== target) return;
        seen[key] = true;
        const m: ReleaseMatch = { release, key };
        if (mode) m.jsonEscapes = mode;
        if (key === 'hashWithoutResources') m.featureGates = { InPlacePodVerticalScaling: true };
        out.push(m);
      };
      tryKey('hash', h.hash);
      if (info.hashWithoutResources) tryKey('hashWithoutResources', h.withoutResources());
    }
  }
  // Keep `hash` before `hashWithoutResources` within a release (the alternate toolchain may find a hash late).
  return out.sort(
    (a, b) =>
      releaseInfo(a.release).minor - releaseInfo(b.release).minor || (a.key === b.key ? 0 : a.key === 'hash' ? -1 : 1),
  );
}

/** Short text form: `1.9–1.15, 1.27 (hashWithoutResources)`. */
export function describeMatches(matches: readonly ReleaseMatch[]): string {
  if (matches.length === 0) return 'no supported release';
  return matches
    .map(
      (m) =>
        `${m.release}${m.key === 'hashWithoutResources' ? ' (hashWithoutResources, InPlacePodVerticalScaling on)' : ''}${m.jsonEscapes ? ` (built with ${m.jsonEscapes} encoding/json)` : ''}`,
    )
    .join(', ');
}
