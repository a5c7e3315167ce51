/** In-place kubelet upgrade of a node: plan, apply, verify and roll back on the runtime's persisted records. */
export { planNodeUpgrade, type PlanNodeUpgradeInput } from './node-plan.js';
export {
  applyNodePlan,
  rollbackNodePlan,
  verifyNode,
  type ApplyNodePlanOptions,
  type ApplyNodePlanReport,
  type RollbackNodePlanOptions,
  type RollbackNodePlanReport,
  type VerifyNodeInput,
  type VerifyNodeResult,
} from './apply.js';
export {
  PLAN_KIND,
  parseNodePlan,
  formatNodePlan,
  checkNodePlan,
  type ParseNodePlanOptions,
  type NodeUpgradePlan,
  type NodePlanEntry,
  type NodeRecordLocation,
  type StoreSpec,
} from './plan-file.js';
export { PLAN_TRAILER_KIND, planTrailer, readPlanTrailer, type PlanTrailer } from './plan-trailer.js';
export { checkRuntimeAgreement } from './runtime-agreement.js';
export { auditStamp, type AuditStamp } from './audit.js';
export { withRuntimeState } from './runtime-state.js';
export { nodeStartBlockers } from './node-start-blockers.js';
