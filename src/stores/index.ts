/** Runtime record stores: containerd meta.db, CRI-O config.json, docker config.v2.json. */
export type {
  StoredContainer,
  StoreRewrite,
  RecordBackup,
  ApplyOptions,
  ApplyReport,
  RecordStore,
  RestoreOptions,
  RestoreReport,
  RecordPrint,
} from './types.js';
export {
  ContainerdStore,
  containerdMetaDbPath,
  DEFAULT_CRI_NAMESPACE,
  type ContainerdStoreOptions,
} from './containerd/store.js';
export { CrioStore, type CrioStoreOptions } from './crio.js';
export { DockerStore, type DockerStoreOptions } from './docker.js';
export { fingerprintFile, fingerprinter } from './fingerprint.js';
export {
  checkOwnDirectory,
  createFileExclusive,
  createPrivateDirectory,
  ensureOwnDirectory,
  replaceEntryAtomic,
} from './safe-files.js';
export type { CommitHooks } from '../bbolt/index.js';
export { containerdCensus, containerdSandboxes } from './containerd/census.js';
