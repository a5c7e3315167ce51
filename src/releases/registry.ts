/**
 * The release registry: every supported kubelet minor release → what it hashes and how it stores
 * the result. Patch versions resolve to their minor; anything else is a typed error that names the
 * supported range.
 */
import { ReleaseError } from '../errors.js';
import type { JsonEscapeMode } from '../encode/gojson-string.js';
import type { HashAlgorithmName } from '../models/model.js';
import { ERAS, FIRST_MINOR_BUILT_WITH_GO_1_22, FIRST_MINOR_RESTARTING_SIDECARS_ON_HASH_CHANGE } from './eras.js';
import { parseKubeletVersion } from './version.js';

/** Runtime annotation keys the kubelet writes the hashes under. */
export const HASH_KEY = 'io.kubernetes.container.hash';
export const HASH_WITHOUT_RESOURCES_KEY = 'io.kubernetes.container.hashWithoutResources';

export interface FeatureGateInfo {
  /** Default when the kubelet's --feature-gates does not mention it. */
  readonly default: boolean;
  readonly stage: 'alpha' | 'beta' | 'GA';
}

export interface ReleaseInfo {
  /** `1.27` */
  readonly release: string;
  readonly minor: number;
  readonly algorithm: HashAlgorithmName;
  /** Whether `HashContainerWithoutResources` exists in this release. */
  readonly hashWithoutResources: boolean;
  /** encoding/json's BS/FF escaping of the Go that built the `.0` release; null for the legacy era. */
  readonly jsonEscapes: JsonEscapeMode | null;
  readonly storageKeys: { readonly hash: string; readonly hashWithoutResources: string | null };
  /** Gates that change how the hash is used (not how it is computed). */
  readonly featureGates: { readonly InPlacePodVerticalScaling?: FeatureGateInfo };
  /** Running sidecars (restartable init containers) are restarted when their hash changes. */
  readonly restartsSidecarsOnHashChange: boolean;
}

function buildRegistry(): ReadonlyMap<string, ReleaseInfo> {
  const out = new Map<string, ReleaseInfo>();
  for (const era of ERAS) {
    for (let minor = era.firstMinor; minor <= era.lastMinor; minor++) {
      const release = `1.${minor}`;
      const info: ReleaseInfo = {
        release,
        minor,
        algorithm: era.algorithm,
        hashWithoutResources: era.hashWithoutResources,
        jsonEscapes: era.algorithm === 'legacy' ? null : minor >= FIRST_MINOR_BUILT_WITH_GO_1_22 ? 'go1.22' : 'pre-go1.22',
        storageKeys: { hash: HASH_KEY, hashWithoutResources: era.hashWithoutResources ? HASH_WITHOUT_RESOURCES_KEY : null },
        featureGates: inPlaceResizeGate(minor),
        restartsSidecarsOnHashChange: minor >= FIRST_MINOR_RESTARTING_SIDECARS_ON_HASH_CHANGE,
      };
      out.set(release, Object.freeze(info));
    }
  }
  return out;
}

/** InPlacePodVerticalScaling: alpha (off) 1.27–1.32, beta (on) 1.33+. */
function inPlaceResizeGate(minor: number): ReleaseInfo['featureGates'] {
  if (minor < 27) return {};
  if (minor < 33) return { InPlacePodVerticalScaling: { default: false, stage: 'alpha' } };
  return { InPlacePodVerticalScaling: { default: true, stage: 'beta' } };
}

let registry: ReadonlyMap<string, ReleaseInfo> | undefined;

function table(): ReadonlyMap<string, ReleaseInfo> {
  return (registry ??= buildRegistry());
}

/** Every supported release, oldest first: `['1.8', …, '1.36']`. */
export function supportedReleases(): string[] {
  return [...table().keys()];
}

/** Release facts for a version string (`1.27`, `1.27.4`, `v1.27.4-eks-…`). */
export function releaseInfo(version: unknown, path: readonly (string | number)[] = ['kubeletVersion']): ReleaseInfo {
  const parsed = parseKubeletVersion(version, path);
  const info = table().get(parsed.release);
  if (!info) {
    const all = supportedReleases();
    throw new ReleaseError(
      'UNSUPPORTED_RELEASE',
      path,
      `a kubelet release from ${all[0]} to ${all[all.length - 1]}`,
      `${JSON.stringify(parsed.raw)} is release ${parsed.release}`,
    );
  }
  return info;
}
