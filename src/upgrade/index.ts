/** In-place kubelet upgrade of a node: plan, apply, verify and roll back on the runtime's persisted records. */
export { planNodeUpgrade, type PlanNodeUpgradeInput } from './node-plan.js';
export {
  applyNodePlan,
  rollbackNodePlan,
  verifyNode,
  MANIFEST_NAME,
  type ApplyNodePlanOptions,
  type ApplyNodePlanReport,
  type VerifyNodeInput,
} from './apply.js';
export {
  parseNodePlan,
  formatNodePlan,
  PLAN_KIND,
  PLAN_VERSION,
  type NodeUpgradePlan,
  type NodePlanEntry,
  type StoreSpec,
} from './plan-file.js';
