/** The supported kubelet releases: what each one stores and escapes, its gates, its patches' Go toolchains. */
export {
  HASH_KEY,
  HASH_WITHOUT_RESOURCES_KEY,
  modelledGates,
  releaseInfo,
  supportedReleases,
  type FeatureGateInfo,
  type PatchToolchain,
  type ReleaseInfo,
} from './release-info.js';
export { kubeletToolchain, type KubeletToolchain } from './toolchain.js';
export { parseKubeletVersion } from './version.js';
