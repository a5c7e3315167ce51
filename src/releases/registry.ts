/**
 * The release registry: every supported kubelet minor release → what it hashes and how it stores
 * the result. Patch versions resolve to their minor; anything else is a typed error that names the
 * supported range.
 */
import { ReleaseError } from '../errors.js';
import type { JsonEscapeMode } from '../encode/gojson-string.js';
import type { HashAlgorithmName } from '../models/model.js';
import { ERAS, FIRST_MINOR_BUILT_WITH_GO_1_22, FIRST_MINOR_RESTARTING_SIDECARS_ON_HASH_CHANGE, MINORS_WITH_GO_1_22_PATCH_BUILDS } from './eras.js';
import { parseKubeletVersion } from './version.js';

/**
 * Runtime annotation key the kubelet stores `HashContainer` under (every release).
 *
 * @example
 * ```ts
 * import { HASH_KEY, containerChanged } from 'kubelet-hash';
 *
 * HASH_KEY; // → 'io.kubernetes.container.hash'
 * // The annotation map of a running container, as crictl inspect shows it.
 * const annotations = { [HASH_KEY]: '590c88e0' };
 * containerChanged({ name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } }, annotations, { kubeletVersion: '1.29' }).changed; // → false
 * ```
 *
 * @group Releases
 */
export const HASH_KEY = 'io.kubernetes.container.hash';
/**
 * Runtime annotation key the kubelet stores `HashContainerWithoutResources` under (1.27–1.30, gate on).
 *
 * @example
 * ```ts
 * import { HASH_WITHOUT_RESOURCES_KEY, releaseInfo } from 'kubelet-hash';
 *
 * HASH_WITHOUT_RESOURCES_KEY; // → 'io.kubernetes.container.hashWithoutResources'
 * releaseInfo('1.28').storageKeys.hashWithoutResources === HASH_WITHOUT_RESOURCES_KEY; // → true
 * releaseInfo('1.31').storageKeys.hashWithoutResources; // → null
 * ```
 *
 * @group Releases
 */
export const HASH_WITHOUT_RESOURCES_KEY = 'io.kubernetes.container.hashWithoutResources';

/**
 * A kubelet feature gate's state in one release, as {@link ReleaseInfo.featureGates} lists it.
 *
 * @example
 * ```ts
 * import { releaseInfo, type FeatureGateInfo } from 'kubelet-hash';
 *
 * const resize: FeatureGateInfo | undefined = releaseInfo('1.33').featureGates.InPlacePodVerticalScaling;
 * resize; // → { default: true, stage: 'beta', locked: false }
 * releaseInfo('1.35').featureGates.InPlacePodVerticalScaling; // → { default: true, stage: 'GA', locked: true }
 * ```
 *
 * @group Releases
 */
export interface FeatureGateInfo {
  /** Default when the kubelet's --feature-gates does not mention it. */
  readonly default: boolean;
  /** Maturity of the gate in this release (alpha gates are off by default). */
  readonly stage: 'alpha' | 'beta' | 'GA';
  /** GA and locked: the kubelet refuses to start with the gate set against its default. */
  readonly locked: boolean;
}

/**
 * What one kubelet minor release hashes and where it stores the result; see {@link releaseInfo}.
 *
 * @example
 * ```ts
 * import { releaseInfo, type ReleaseInfo } from 'kubelet-hash';
 *
 * const info: ReleaseInfo = releaseInfo('1.29');
 * [info.algorithm, info.hashWithoutResources, info.jsonEscapes, info.laterPatchJsonEscapes]; // → ['json', true, 'pre-go1.22', 'go1.22']
 * info.featureGates.SidecarContainers; // → { default: true, stage: 'beta', locked: false }
 * ```
 *
 * @group Releases
 */
export interface ReleaseInfo {
  /** `1.27` */
  readonly release: string;
  /** The minor version number (`27` for 1.27). */
  readonly minor: number;
  /** What `HashContainer` hashes in this release (see {@link HashAlgorithmName}). */
  readonly algorithm: HashAlgorithmName;
  /** Whether `HashContainerWithoutResources` exists in this release. */
  readonly hashWithoutResources: boolean;
  /** encoding/json's BS/FF escaping of the Go that built the `.0` release; null for the legacy era. */
  readonly jsonEscapes: JsonEscapeMode | null;
  /** The escaping of later patch builds when they moved to a newer Go (`'go1.22'` for the last 1.27.x and late 1.28.x/1.29.x), else null. */
  readonly laterPatchJsonEscapes: JsonEscapeMode | null;
  /** The runtime annotation keys this release writes the hashes under. */
  readonly storageKeys: {
    /** The runtime annotation key the kubelet stores `HashContainer` under ({@link HASH_KEY}). */
    readonly hash: string;
    /** The key for `HashContainerWithoutResources` ({@link HASH_WITHOUT_RESOURCES_KEY}); null where the release has none. */
    readonly hashWithoutResources: string | null;
  };
  /** Gates that change how the hash is used (not how it is computed). */
  readonly featureGates: {
    /** In-place pod resize: alpha (off) 1.27–1.32, beta (on) 1.33–1.34, GA (locked on) from 1.35; absent before 1.27. */
    readonly InPlacePodVerticalScaling?: FeatureGateInfo;
    /** Restartable init containers: alpha (off) 1.28, beta (on) 1.29–1.32, GA (locked on) from 1.33; absent before 1.28. */
    readonly SidecarContainers?: FeatureGateInfo;
  };
  /** Running sidecars (restartable init containers) are restarted when their hash changes, with SidecarContainers on. */
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
        laterPatchJsonEscapes: MINORS_WITH_GO_1_22_PATCH_BUILDS.has(minor) ? 'go1.22' : null,
        storageKeys: { hash: HASH_KEY, hashWithoutResources: era.hashWithoutResources ? HASH_WITHOUT_RESOURCES_KEY : null },
        featureGates: gatesOf(minor),
        restartsSidecarsOnHashChange: minor >= FIRST_MINOR_RESTARTING_SIDECARS_ON_HASH_CHANGE,
      };
      out.set(release, Object.freeze(info));
    }
  }
  return out;
}

/** One row per gate: the stage of each minor, from the gate's introduction on (kube_features.go). */
const GATE_STAGES: Readonly<Record<'InPlacePodVerticalScaling' | 'SidecarContainers', readonly [number, FeatureGateInfo][]>> = {
  // alpha (off) 1.27–1.32, beta (on) 1.33–1.34, GA and locked from 1.35.
  InPlacePodVerticalScaling: [
    [27, { default: false, stage: 'alpha', locked: false }],
    [33, { default: true, stage: 'beta', locked: false }],
    [35, { default: true, stage: 'GA', locked: true }],
  ],
  // alpha (off) 1.28, beta (on) 1.29–1.32, GA and locked from 1.33.
  SidecarContainers: [
    [28, { default: false, stage: 'alpha', locked: false }],
    [29, { default: true, stage: 'beta', locked: false }],
    [33, { default: true, stage: 'GA', locked: true }],
  ],
};

function gatesOf(minor: number): ReleaseInfo['featureGates'] {
  const out: { -readonly [K in keyof ReleaseInfo['featureGates']]: FeatureGateInfo } = {};
  for (const [name, stages] of Object.entries(GATE_STAGES) as [keyof ReleaseInfo['featureGates'], readonly [number, FeatureGateInfo][]][]) {
    const current = stages.filter(([from]) => from <= minor).at(-1);
    if (current) out[name] = Object.freeze({ ...current[1] });
  }
  return Object.freeze(out);
}

let registry: ReadonlyMap<string, ReleaseInfo> | undefined;

function table(): ReadonlyMap<string, ReleaseInfo> {
  return (registry ??= buildRegistry());
}

/**
 * Every supported release, oldest first: `['1.8', …, '1.36']`.
 *
 * @example
 * ```ts
 * import { supportedReleases, hashContainer } from 'kubelet-hash';
 *
 * supportedReleases().length; // → 29
 * supportedReleases()[0]; // → '1.8'
 * // The hash of one container across every release, as `kubelet-hash hash` prints it.
 * const byRelease = Object.fromEntries(supportedReleases().map((r) => [r, hashContainer({ name: 'app', image: 'nginx' }, { kubeletVersion: r })]));
 * byRelease['1.29']; // → '65b95dba'
 * ```
 *
 * @group Releases
 */
export function supportedReleases(): string[] {
  return [...table().keys()];
}

/**
 * Release facts for a version string (`1.27`, `1.27.4`, `v1.27.4-eks-…`). Throws
 * {@link ReleaseError} `INVALID_VERSION` for text that is no kubelet version and
 * `UNSUPPORTED_RELEASE` outside 1.8–1.36; `path` is the JSON path the error reports.
 *
 * @example
 * ```ts
 * import { releaseInfo, ReleaseError } from 'kubelet-hash';
 *
 * releaseInfo('v1.29.4-eks-1234').release; // → '1.29'
 * releaseInfo('1.12').algorithm; // → 'legacy'
 * releaseInfo('1.31').algorithm; // → 'name-image'
 * try {
 *   releaseInfo('1.7');
 * } catch (e) {
 *   e instanceof ReleaseError && e.message; // → 'UNSUPPORTED_RELEASE at .kubeletVersion: expected a kubelet release from 1.8 to 1.36 ("1.7" is release 1.7)'
 * }
 * ```
 *
 * @group Releases
 */
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
