/** The verdict vocabulary the apiserver, controller and OpenKruise rules share. */
import type { RolloutDecider, RolloutRuleId } from './rollout-rules.js';

/**
 * What happens to the running pods: `refused` (the edit is not admitted), `replaced` (pods are
 * deleted and created from the new template), `in-place` (the pod object is patched; the kubelet
 * decides per container), `unchanged` (nothing rolls: the template did not change),
 * `on-delete` (pods take the change only when deleted), `future-pods` (only pods or Jobs created
 * later use it), `held` (a paused rollout or a partition that covers every pod), `delete`
 * (running pods are removed outright and not replaced by the new template: a Pod past a lowered
 * active deadline, a Job suspended or narrowed, a workload scaled down, pods named for deletion).
 *
 * @example
 * ```ts
 * import { predictRollout, type RolloutVerdict } from 'kubelet-hash';
 * const rs = (image: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { template: { spec: { containers: [{ name: 'a', image }] } } } });
 * const v: RolloutVerdict | 'unpredictable' = predictRollout(rs('a:1'), rs('a:2'), { kubeletVersion: '1.31' }).verdict;
 * v; // → 'future-pods'
 * ```
 *
 * @group Kubelet decisions
 */
export type RolloutVerdict =
  'refused' | 'replaced' | 'in-place' | 'unchanged' | 'on-delete' | 'future-pods' | 'held' | 'delete';

/** One decision before the kubelet's (or instead of it). */
export interface Decision {
  verdict: RolloutVerdict;
  decidedBy: RolloutDecider;
  ruleId: RolloutRuleId;
  reason: string;
  /** Which pods it concerns, for people: `every pod`, `ordinals 2–4`, `none until deleted`. */
  pods: string;
  /** A refusal's field (`spec.containers[0].env`) and the field the refusing component names. */
  field?: string;
  reportedField?: string;
  /** A `delete` verdict's pods by name, where the objects say which. */
  podNames?: string[];
}
