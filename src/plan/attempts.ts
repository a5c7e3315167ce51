/**
 * Which records of one pod's container the kubelet compares. A node's store keeps a container's
 * exited attempts until the kubelet collects them (a restart, a recreated sandbox, a Job's retries
 * leave them); the kubelet reads the pod's container statuses newest first
 * (kuberuntime `getPodContainerStatuses`, sorted by creation) and `computePodActions` judges only
 * the first status of each container name. The kubelet numbers attempts one up from the newest
 * status it saw, so among records that all keep their CRI attempt the highest is the newest.
 */
import type { PlanRecord } from './plan-vocabulary.js';

/** How a record stands among the records of its pod uid + container name. */
export type AttemptStanding =
  | {
      /** An older attempt: the kubelet compares `newest` instead. */
      kind: 'superseded';
      /** The newest attempt. */
      attempt: number;
      /** The record holding it, when only one does. */
      newest?: PlanRecord;
    }
  | {
      /** One of several records holding the newest attempt: which one the kubelet compares cannot be told. */
      kind: 'tied';
      attempt: number;
      /** How many records hold it. */
      records: number;
    };

/**
 * The standing of every record that is not simply the one record of its container: records of a
 * pod `claimed` (an API pod has that uid), grouped by pod uid + container name. A group where some
 * record keeps no attempt is left alone (each record judged as it stands): order is never guessed.
 * Records of a pod no API pod claims are never grouped, so they stay `unknown`.
 */
export function attemptStandings(
  records: readonly PlanRecord[],
  claimed: (podUid: string) => boolean,
): Map<PlanRecord, AttemptStanding> {
  const groups = new Map<string, PlanRecord[]>();
  for (const r of records) {
    if (r.podUid === '' || r.containerName === '' || !claimed(r.podUid)) continue;
    const key = `${r.podUid}\u0000${r.containerName}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const out = new Map<PlanRecord, AttemptStanding>();
  for (const group of groups.values()) {
    if (group.length < 2 || group.some((r) => r.attempt === undefined)) continue;
    const attempt = Math.max(...group.map((r) => r.attempt ?? 0));
    const newest = group.filter((r) => r.attempt === attempt);
    for (const r of group) {
      if (r.attempt !== attempt)
        out.set(r, { kind: 'superseded', attempt, ...(newest.length === 1 ? { newest: newest[0] } : {}) });
      else if (newest.length > 1) out.set(r, { kind: 'tied', attempt, records: newest.length });
    }
  }
  return out;
}
