/** In-place kubelet upgrade of a node: plan, apply, verify and roll back on the runtime's persisted records. */
export {
  planUpgrade,
  type PlanUpgradeInput,
  type PlanEntry,
  type PodSandboxInfo,
  type SandboxFinding,
  type PlanAction,
  type UpgradePlan,
} from './plan-upgrade.js';
export { planNodeUpgrade, type PlanNodeUpgradeInput } from './node-plan.js';
export {
  applyNodePlan,
  rollbackNodePlan,
  verifyNode,
  type ApplyNodePlanOptions,
  type ApplyNodePlanReport,
  type VerifyNodeInput,
} from './apply.js';
export {
  parseNodePlan,
  formatNodePlan,
  type NodeUpgradePlan,
  type NodePlanEntry,
  type StoreSpec,
} from './plan-file.js';
