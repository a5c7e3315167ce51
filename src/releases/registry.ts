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

/** Runtime annotation key the kubelet stores `HashContainer` under (every release). */
export const HASH_KEY = 'io.kubernetes.container.hash';
/** Runtime annotation key the kubelet stores `HashContainerWithoutResources` under (1.27–1.30, gate on). */
export const HASH_WITHOUT_RESOURCES_KEY = 'io.kubernetes.container.hashWithoutResources';

/** A kubelet feature gate's state in one release. */
export interface FeatureGateInfo {
  /** Default when the kubelet's --feature-gates does not mention it. */
  readonly default: boolean;
  /** Maturity of the gate in this release (alpha gates are off by default). */
  readonly stage: 'alpha' | 'beta' | 'GA';
  /** GA and locked: the kubelet refuses to start with the gate set against its default. */
  readonly locked: boolean;
}

/** What one kubelet minor release hashes and where it stores the result; see {@link releaseInfo}. */
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

/** The gates the library models (those that change the restart rule); any other name is refused. */
export const MODELLED_GATES: readonly string[] = Object.freeze(Object.keys(GATE_STAGES));

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
