/**
 * kubelet-hash/node: what a node agent needs on top of the pure `kubelet-hash` entry to carry
 * containers across an in-place kubelet upgrade: the runtime stores (containerd meta.db through our
 * bbolt writer, CRI-O config.json, docker config.v2.json), node plans (plan, apply with backups,
 * verify, roll back) and the bbolt checker. These modules read and write files, take locks and
 * start `flock(1)`, so they need Node.
 *
 * @module kubelet-hash/node
 */
export {
  ContainerdStore,
  CrioStore,
  DockerStore,
  type ContainerdStoreOptions,
  type CrioStoreOptions,
  type DockerStoreOptions,
  type RecordStore,
  type StoredContainer,
  type StoreRewrite,
  type ApplyOptions,
  type ApplyReport,
  type RecordBackup,
  type RecordPrint,
  type RestoreOptions,
  type RestoreReport,
} from './stores/index.js';
export { checkBoltFile, type BoltCheckReport } from './bbolt/index.js';
export {
  planNodeUpgrade,
  applyNodePlan,
  verifyNode,
  rollbackNodePlan,
  parseNodePlan,
  formatNodePlan,
  checkNodePlan,
  type ParseNodePlanOptions,
  type NodeUpgradePlan,
  type NodePlanEntry,
  type NodeRecordLocation,
  type StoreSpec,
  type PlanNodeUpgradeInput,
  type ApplyNodePlanOptions,
  type ApplyNodePlanReport,
  type RollbackNodePlanOptions,
  type RollbackNodePlanReport,
  type VerifyNodeInput,
  type VerifyNodeResult,
  auditStamp,
  type AuditStamp,
} from './node-upgrade/index.js';
