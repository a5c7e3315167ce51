/**
 * The upgrade plan, pure: the plan vocabulary, `planUpgrade` over records and pods you pass in, what
 * restarts outside the hash and what stops a kubelet starting. No file, lock, socket or Node built-in
 * (the node's side is `node-upgrade/`); the root entry exports it.
 */
export {
  planUpgrade,
  type PlanUpgradeInput,
  type UpgradePlan,
  type PlanEntry,
  type PlanEntryFields,
  type KeepPlanEntry,
  type RewritePlanEntry,
  type WillRestartPlanEntry,
  type UnknownPlanEntry,
  type PlanRecordIndex,
  type ObservedHashes,
  type ComputedHashes,
  type PodSandboxInfo,
  type SandboxFinding,
  type PlanAction,
  type PlanCounts,
  type PlanRecord,
} from './plan-upgrade.js';
export {
  PLAN_ACTIONS,
  countActions,
  planSchemas,
  type NodePlanEntry,
  type NodeRecordLocation,
} from './plan-vocabulary.js';
export { readPods } from './read-pods.js';
export { startBlockers, type StartBlocker } from './start-blockers.js';
export { RESTART_CAUSE_KINDS, restartCauses, type RestartCause } from './restart-causes.js';
