/**
 * The release registry: every supported kubelet minor release → what it hashes and how it stores
 * the result. Built from the release files (`src/models/releases/`, one per release, each holding
 * its type delta and its kubelet facts); patch versions resolve to their minor; anything else is
 * a typed error that names the supported range.
 */
import { ReleaseError } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { releaseFacts } from '../models/catalog.js';
import type { FeatureGateInfo, GateName, PatchToolchain } from '../models/dsl.js';
import type { HashAlgorithmName } from '../models/model.js';
import { parseKubeletVersion } from './version.js';

export type { FeatureGateInfo, PatchToolchain } from '../models/dsl.js';

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
  /** The escaping of later patch builds when they moved to a newer Go (`'go1.22'` for 1.27.16, 1.28.12+ and 1.29.7+), else null. */
  readonly laterPatchJsonEscapes: JsonEscapeMode | null;
  /** Those later patch builds: from which patch, which Go, and the source (see {@link kubeletToolchain}); else null. */
  readonly laterPatchToolchain: PatchToolchain | null;
  /** The runtime annotation keys this release writes the hashes under. */
  readonly storageKeys: {
    /** The runtime annotation key the kubelet stores `HashContainer` under ({@link HASH_KEY}). */
    readonly hash: string;
    /** The key for `HashContainerWithoutResources` ({@link HASH_WITHOUT_RESOURCES_KEY}); null where the release has none. */
    readonly hashWithoutResources: string | null;
  };
  /** Gates that change how the hash is used (not how it is computed). */
  readonly featureGates: {
    /** The kubelet changes a container's started and ready status over its own restart: always before 1.35 (no gate), deprecated and off from 1.35. */
    readonly ChangeContainerStatusOnKubeletRestart?: FeatureGateInfo;
    /** In-place resize of pod-level resources (KEP-5593): alpha (off) 1.35, beta (on) from 1.36; absent before 1.35. */
    readonly InPlacePodLevelResourcesVerticalScaling?: FeatureGateInfo;
    /** A pod without a sidecar takes the old init-container path: deprecated (off) in 1.33 only; absent before, gone from 1.34. */
    readonly LegacySidecarContainers?: FeatureGateInfo;
    /** Pod-level resources (KEP-2837): alpha (off) 1.32–1.33, beta (on) from 1.34; absent before 1.32. */
    readonly PodLevelResources?: FeatureGateInfo;
    /** A regular container's own restartPolicy and restartPolicyRules (KEP-5307): alpha (off) 1.34, beta (on) from 1.35; absent before 1.34. */
    readonly ContainerRestartRules?: FeatureGateInfo;
    /** In-place pod resize: alpha (off) 1.27–1.32, beta (on) 1.33–1.34, GA (locked on) from 1.35; absent before 1.27. */
    readonly InPlacePodVerticalScaling?: FeatureGateInfo;
    /** A restartPolicyRules action RestartAllContainers restarts every container of the pod (KEP-5532): alpha (off) 1.35, beta (on) from 1.36; absent before 1.35. */
    readonly RestartAllContainersOnContainerExits?: FeatureGateInfo;
    /** Restartable init containers: alpha (off) 1.28, beta (on) 1.29–1.32, GA (locked on) 1.33–1.36, removed (always on) from 1.37; absent before 1.28. */
    readonly SidecarContainers?: FeatureGateInfo;
  };
  /** Running sidecars (restartable init containers) are restarted when their hash changes, with SidecarContainers on. */
  readonly restartsSidecarsOnHashChange: boolean;
  /** GA gates this kubelet no longer has (removed from kube_features.go): always on, and the kubelet refuses the name. */
  readonly retiredGates: readonly GateName[];
}

function buildRegistry(): ReadonlyMap<string, ReleaseInfo> {
  const out = new Map<string, ReleaseInfo>();
  for (const facts of releaseFacts()) {
    const info: ReleaseInfo = {
      release: facts.version,
      minor: Number(facts.version.slice(facts.version.indexOf('.') + 1)),
      algorithm: facts.kubeletHashAlgorithm,
      hashWithoutResources: facts.hasHashWithoutResources,
      jsonEscapes: facts.jsonEscapes,
      laterPatchJsonEscapes: facts.laterPatchToolchain?.escapes ?? null,
      laterPatchToolchain: facts.laterPatchToolchain,
      storageKeys: {
        hash: HASH_KEY,
        hashWithoutResources: facts.hasHashWithoutResources ? HASH_WITHOUT_RESOURCES_KEY : null,
      },
      featureGates: facts.featureGates,
      restartsSidecarsOnHashChange: facts.restartsSidecarsOnHashChange,
      retiredGates: facts.retiredGates,
    };
    out.set(info.release, Object.freeze(info));
  }
  return out;
}

let registry: ReadonlyMap<string, ReleaseInfo> | undefined;

function table(): ReadonlyMap<string, ReleaseInfo> {
  return (registry ??= buildRegistry());
}

/**
 * Every supported release, oldest first: `['1.8', …]` up to the newest, one per release file.
 *
 * @example
 * ```ts
 * import { supportedReleases, hashContainer } from 'kubelet-hash';
 *
 * supportedReleases()[0]; // → '1.8'
 * supportedReleases().includes('1.37'); // → true
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
 * Release facts for a version string (`1.27`, `1.27.4`, `v1.27.4-eks-…`, `Kubernetes v1.27.4` as
 * `kubelet --version` prints it). Throws {@link ReleaseError} `INVALID_VERSION` for text that is
 * no kubelet version and `UNSUPPORTED_RELEASE` outside the supported range (see
 * {@link supportedReleases}); `path` is the JSON path the error reports. The facts are the
 * minor's; {@link kubeletToolchain} says which Go built a given patch.
 *
 * @example
 * ```ts
 * import { releaseInfo, ReleaseError } from 'kubelet-hash';
 *
 * releaseInfo('v1.29.4-eks-1234').release; // → '1.29'
 * releaseInfo('Kubernetes v1.29.7').release; // → '1.29'
 * releaseInfo('1.12').algorithm; // → 'legacy'
 * releaseInfo('1.31').algorithm; // → 'name-image'
 * try {
 *   releaseInfo('1.7');
 * } catch (e) {
 *   e instanceof ReleaseError && [e.code, e.expected.startsWith('a kubelet release from 1.8 to ')]; // → ['UNSUPPORTED_RELEASE', true]
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

/** The gates the library models (those that change the restart rule), over all releases; any other name is refused. */
export function modelledGates(): string[] {
  const names = new Set<string>();
  for (const info of table().values()) for (const name of Object.keys(info.featureGates)) names.add(name);
  return [...names].sort();
}
