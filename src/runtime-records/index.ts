/** Runtime records: read and rewrite the kubelet hash stored by docker, containerd and CRI-O. */
export type { RecordKind, RuntimeName, RuntimeRecord, ContainerRecordInfo, HashPair, HashChange } from './types.js';
export { detectRecordKind } from './record-kind.js';
export { readRuntimeRecords } from './read-records.js';
export { selectRecord, type SelectRecordInput } from './select-record.js';
export { rewriteRuntimeRecord } from './rewrite-record.js';

export { DOCKER_ANNOTATION_PREFIX } from './schemas.js';

// The door for the stores room, which rewrites the same records inside the runtimes' files (not public API).
export { checkHashChange, rewriteLocated } from './rewrite-record.js';
export { criAttempt, embeddedSites, identity, mapSites, primarySite, type RecordContainer } from './hash-sites.js';
export {
  CRIO_ANNOTATIONS_KEY,
  CONTAINER_NAME_LABEL,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_UID_LABEL,
} from './schemas.js';
