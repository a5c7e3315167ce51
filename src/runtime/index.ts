/** Runtime records: read and rewrite the kubelet hash stored by docker, containerd and CRI-O. */
export type { RecordKind, RuntimeName, ContainerRecordInfo, HashPair, HashChange } from './types.js';
export { detectRecordKind } from './record-kind.js';
export { readRuntimeRecords } from './read-records.js';
export { rewriteRuntimeRecord } from './rewrite-record.js';

export {
  DOCKER_ANNOTATION_PREFIX,
  validateRecord,
  dockerInspectSchema,
  dockerConfigV2Schema,
  crictlInspectSchema,
} from './schemas.js';
export { scanJson } from '../json/spans.js';
export type { JsonNode, Span } from '../json/spans.js';

export {
  ContainerdStore,
  CrioStore,
  DockerStore,
  containerdMetaDbPath,
  DEFAULT_CRI_NAMESPACE,
  fingerprintFile,
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
export { checkBoltFile, type BoltCheckReport, type CommitHooks } from './bbolt/index.js';
