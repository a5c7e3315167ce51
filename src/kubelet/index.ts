/** The kubelet's behaviour: restart rule, gates, roles, changed, predict, translate, identify, plan. */
export { containerChanged, type ContainerChangedOptions, type ContainerChangedResult } from './container-changed.js';
export type { ChangedRule } from './changed-rule.js';
export type { ContainerRole } from './container-role.js';
export type { ContainerStatusInput } from './stored-status.js';
// The CLI reads a --status or --record file's hashes the same way before it decides (not public API).
export { readStoredHashes } from './stored-status.js';
export type { FeatureGates, HashValueInput } from './options.js';
export {
  predictRestarts,
  type PredictRestartsOptions,
  type PredictedAction,
  type PredictedContainer,
  type RestartPrediction,
  type ProbeResults,
} from './predict-restarts.js';
export type { PodAction, PodVerdict } from './decide-pod.js';
export type { SandboxInput } from './sandbox-state.js';
export { translateHash, type TranslateOptions } from './translate.js';
export { kubelet, Kubelet, type KubeletSettings, type ChangedCallOptions, type PredictCallOptions } from './kubelet.js';
export { identifyReleases, type ReleaseMatch } from './identify.js';
export { RESTART_RULES, type RestartRule, type RestartRuleId } from './restart-rules.js';
export type { ContainerAction, PodRestartPolicy, Verdict } from './decide.js';
export { decide } from './decide.js';
export type { ContainerStateInput, ProbeResult, RuntimeStateName } from './runtime-state.js';
export type { GateName, GateSettings, GateValue, KubeletChoice, ResolvedGates, StoredHashReading } from './options.js';

// The door for the upgrade room, which plans a node through the same rules (not public API).
export { parseGateValue, gateSettingsSchema, readGateSettings, resolveGates } from './options.js';
export { CONTAINER_ROLES, containerRole } from './container-role.js';
export { describeMatches } from './identify.js';
export { manifestUid, maybeGeneratedStaticUid } from './static-pod.js';
