/** Who applies a change to running pods: the apiserver's Pod rules, native controllers, OpenKruise; then the kubelet. */
export {
  predictRollout,
  type ControllerRestart,
  type PredictRolloutOptions,
  type RolloutPrediction,
} from './predict-rollout.js';
export { ROLLOUT_RULES, type RolloutDecider, type RolloutRule, type RolloutRuleId } from './rollout-rules.js';
export type { RolloutVerdict } from './verdict.js';
export type { OpenKruiseGateName, OpenKruiseOptions } from './openkruise-release.js';
export type { KruiseReadiness } from './openkruise-readiness.js';
