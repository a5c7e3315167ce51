/**
 * `kubelet()`: one value for one kubelet. The version, the escaping of the Go that built it and the
 * feature gates are resolved once, the release's hashers compiled once; the handle's calls (and
 * every function given the handle) skip that work per container.
 */
import type { ContainerInput } from '../hash/hashes-for.js';
import { patchTableNote, type HashOptions } from '../hash/options.js';
import { KubeletRelease } from '../hash/release.js';
import {
  hashContainer,
  hashContainerWithoutResources,
  preimage,
  validateContainer,
  type Preimage,
} from '../hash-api/index.js';
import type { PodInput } from '../pod/input-types.js';
import { releaseInfo } from '../releases/index.js';
import { readOptionFields } from '../option-fields.js';
import { containerChanged, type ContainerChangedOptions, type ContainerChangedResult } from './container-changed.js';
import { resolveGates, readGateSettings, type FeatureGates } from './options.js';
import { predictRestarts, type PredictRestartsOptions, type RestartPrediction } from './predict-restarts.js';
import { translateHash } from './translate.js';
import type { HashValueInput } from './options.js';
import type { ContainerStatusInput } from './stored-status.js';

/**
 * Options of {@link kubelet}: what a node's kubelet runs with besides its version.
 *
 * @example
 * ```ts
 * import { kubelet, type KubeletSettings } from 'kubelet-hash';
 *
 * const settings: KubeletSettings = { featureGates: { InPlacePodVerticalScaling: true } };
 * kubelet('1.29', settings).gates.inPlaceResize; // → true
 * ```
 *
 * @group Hashing
 */
export interface KubeletSettings {
  /** The kubelet's feature gates (booleans or Go's bool text); unset gates take the release's default. */
  featureGates?: FeatureGates;
  /** encoding/json BS/FF escaping of the kubelet's Go build; wins over the version's (see {@link HashOptions}). */
  jsonEscapes?: HashOptions['jsonEscapes'];
}

/**
 * The per-call options of {@link Kubelet.changed}: those of `containerChanged` but the kubelet.
 *
 * @example
 * ```ts
 * import { kubelet, type ChangedCallOptions } from 'kubelet-hash';
 *
 * const options: ChangedCallOptions = { containerList: 'initContainers', state: { state: 'exited', exitCode: 0 } };
 * kubelet('1.29').changed({ name: 'init', image: 'busybox:1.37' }, { hash: '1' }, options).action; // → 'keep'
 * ```
 *
 * @group Kubelet decisions
 */
export type ChangedCallOptions = Omit<
  ContainerChangedOptions,
  'kubelet' | 'kubeletVersion' | 'jsonEscapes' | 'featureGates'
>;

/**
 * The per-call options of {@link Kubelet.predictRestarts}: those of `predictRestarts` but the kubelet.
 *
 * @example
 * ```ts
 * import { kubelet, type PredictCallOptions } from 'kubelet-hash';
 *
 * const pod = { metadata: { name: 'web-0' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
 * const options: PredictCallOptions = { staticPod: false };
 * kubelet('1.31').predictRestarts(pod, pod, options).containers[0]!.action; // → 'keep'
 * ```
 *
 * @group Kubelet decisions
 */
export type PredictCallOptions = Omit<
  PredictRestartsOptions,
  'kubelet' | 'kubeletVersion' | 'jsonEscapes' | 'featureGates'
>;

/**
 * One kubelet: its release, escaping and gates resolved once, its hashers compiled. Give it to any
 * function that takes a release (`hashContainer(c, k)`, `containerChanged(c, s, { kubelet: k })`,
 * `planUpgrade({ …, from: k })`) or call it directly. Create it with {@link kubelet}.
 *
 * @example
 * ```ts
 * import { kubelet, type Kubelet } from 'kubelet-hash';
 *
 * const k: Kubelet = kubelet('1.29.7', { featureGates: { InPlacePodVerticalScaling: true } });
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * k.hash(web); // → '590c88e0'
 * k.changed({ ...web, resources: { limits: { cpu: '1' } } }, { hash: '590c88e0', hashWithoutResources: '371a981f' }).changed; // → false
 * ```
 *
 * @group Hashing
 */
export class Kubelet extends KubeletRelease {
  /** `hashContainer(container, this)`. */
  hash(container: ContainerInput): string {
    return hashContainer(container, this);
  }

  /** `hashContainerWithoutResources(container, this)` (1.27–1.30). */
  hashWithoutResources(container: ContainerInput): string {
    return hashContainerWithoutResources(container, this);
  }

  /** `preimage(container, this)`. */
  preimage(container: ContainerInput): Preimage {
    return preimage(container, this);
  }

  /** `validateContainer(container, this)`. */
  validate(container: ContainerInput): void {
    validateContainer(container, this);
  }

  /** `containerChanged(container, status, { ...options, kubelet: this })`. */
  changed(
    container: ContainerInput,
    status: ContainerStatusInput,
    options: ChangedCallOptions = {},
  ): ContainerChangedResult {
    return containerChanged(container, status, { ...options, kubelet: this });
  }

  /** `predictRestarts(oldPod, newPod, { ...options, kubelet: this })`. */
  predictRestarts(oldPod: PodInput, newPod: PodInput, options: PredictCallOptions = {}): RestartPrediction {
    return predictRestarts(oldPod, newPod, { ...options, kubelet: this });
  }

  /** `translateHash(container, { from: this, to, observed })`: the hash `to` computes, after checking `observed` against this kubelet's. */
  translateTo(container: ContainerInput, to: string | KubeletRelease, observed?: HashValueInput): string {
    return translateHash(container, observed === undefined ? { from: this, to } : { from: this, to, observed });
  }
}

const SETTINGS_FIELDS = {
  featureGates: 'object',
  jsonEscapes: ['go1.22', 'pre-go1.22'],
} as const;

/**
 * The kubelet of `version` (`1.29`, `v1.29.7`, a node's `v1.29.7-eks-…`, `Kubernetes v1.29.7`) with
 * `settings`, resolved once: throws {@link ReleaseError} for an unknown version and
 * {@link OptionError} for settings that kubelet would refuse, here and not per call.
 *
 * @example
 * ```ts
 * import { kubelet, predictRestarts } from 'kubelet-hash';
 *
 * const k = kubelet('1.31');
 * const oldPod = { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
 * const newPod = { spec: { containers: [{ name: 'web', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }] }] } };
 * k.predictRestarts(oldPod, newPod).containers[0]!.action; // → 'keep'
 * predictRestarts(oldPod, newPod, { kubelet: k }).containers[0]!.action; // → 'keep'
 * ```
 *
 * @group Hashing
 */
export function kubelet(version: string, settings: KubeletSettings = {}): Kubelet {
  const s = readOptionFields<KubeletSettings>(settings, ['settings'], {
    fields: SETTINGS_FIELDS,
    expected: 'settings such as { featureGates: { InPlacePodVerticalScaling: true } }',
  });
  const info = releaseInfo(version, ['version']);
  const table = patchTableNote(version, s.jsonEscapes);
  const featureGates = readGateSettings(s.featureGates, ['settings', 'featureGates'], info);
  return new Kubelet({
    version,
    info,
    jsonEscapes: s.jsonEscapes ?? table?.escapes,
    toolchain: table?.toolchain,
    featureGates,
    gates: resolveGates(info, featureGates, ['settings', 'featureGates']),
  });
}
