/** Runtime records: read and rewrite the kubelet hash stored by docker, containerd and CRI-O. */
export type { RecordKind, RuntimeName, ContainerRecordInfo, HashPair, HashChange } from './types.js';
export { detectRecordKind } from './record-kind.js';
export { readRuntimeRecords } from './read-records.js';
export { rewriteRuntimeRecord } from './rewrite-record.js';

export { DOCKER_ANNOTATION_PREFIX } from './schemas.js';

export {
  ContainerdStore,
  CrioStore,
  DockerStore,
  DEFAULT_CRI_NAMESPACE,
  type ContainerdStoreOptions,
  type CrioStoreOptions,
  type DockerStoreOptions,
  type StoreRuntime,
  type StoredContainer,
  type StoreRewrite,
  type BackupEntry,
  type ApplyOptions,
  type ApplyReport,
  type RecordStore,
} from './stores/index.js';
export { fingerprinter } from './stores/fingerprint.js';
export { checkBoltFile, type BoltCheckReport } from './bbolt/index.js';
export { writeFileAtomic } from './stores/files.js';
export type { CommitHooks } from './bbolt/write.js';
