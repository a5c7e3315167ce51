/**
 * The runtime's word on what runs: with a runtime endpoint, a container the runtime reports not
 * running (CRI EXITED, CREATED, UNKNOWN), or in a pod sandbox it reports NOTREADY, is never "keep
 * running", whatever its stored hash: the files say what was, CRI says what is. Init containers
 * (which exit by design) and older attempts the kubelet never compares keep their verdict on the
 * container's own state; a not-ready sandbox makes the kubelet recreate the whole pod. A record the
 * runtime does not serve at all (containerd's CRI plugin reads meta.db only when it starts) is one
 * the kubelet does not see now: never "keep" or "rewrite" either.
 */
import type { CriListing } from '../discovery/index.js';
import { countActions } from '../plan/index.js';
import type { NodePlanEntry, NodeUpgradePlan } from './plan-file.js';

const CONTAINER_STATES = ['CREATED', 'RUNNING', 'EXITED', 'UNKNOWN'] as const;
const RUNNING = 1;
const SANDBOX_READY = 0;

const stateName = (s: number): string => CONTAINER_STATES[s] ?? `state ${s}`;

/** Whether the container is one the kubelet keeps running (not an init container, not an older attempt). */
const superseded = (e: NodePlanEntry): boolean => e.action === 'keep' && e.supersededBy !== undefined;
const runsForKubelet = (e: NodePlanEntry): boolean => !superseded(e) && e.role !== 'init' && e.role !== 'ephemeral';

/** The entry as the runtime's word makes it: the same object when nothing changes. */
function judged(e: NodePlanEntry, listing: CriListing, sandboxReady: ReadonlyMap<string, boolean>): NodePlanEntry {
  if ((e.action !== 'keep' && e.action !== 'rewrite') || e.containerId === undefined) return e;
  if (superseded(e)) return e;
  const c = listing.containers.find((x) => x.id === e.containerId);
  if (!c && !runsForKubelet(e)) return e;
  const base = {
    reason: '',
    podUid: e.podUid,
    containerName: e.containerName,
    observed: { ...e.observed },
    computed: { ...e.computed },
    containerId: e.containerId,
    ...(e.podName !== undefined ? { podName: e.podName } : {}),
    ...(e.podNamespace !== undefined ? { podNamespace: e.podNamespace } : {}),
    ...(e.list !== undefined ? { list: e.list } : {}),
    ...(e.role !== undefined ? { role: e.role } : {}),
    ...(e.runtime !== undefined ? { runtime: e.runtime } : {}),
    ...(e.location !== undefined ? { location: e.location } : {}),
    ...(e.fingerprint !== undefined ? { fingerprint: e.fingerprint } : {}),
  };
  if (!c)
    return {
      ...base,
      action: 'unknown',
      reason: `the runtime does not serve this container over CRI ${listing.version} (its store holds it): the kubelet does not see it, whatever its stored hash`,
    };
  if (sandboxReady.get(c.podSandboxId) === false)
    return {
      ...base,
      action: 'will-restart',
      reason: `the runtime reports its pod sandbox ${c.podSandboxId.slice(0, 13)} NOTREADY (CRI): the kubelet recreates the whole pod (PodSandboxChanged), whatever the hash`,
    };
  if (c.state !== RUNNING && runsForKubelet(e))
    return {
      ...base,
      action: 'unknown',
      reason: `the runtime reports the container ${stateName(c.state)} (CRI), not RUNNING: it does not keep running, whatever its stored hash`,
    };
  return e;
}

/**
 * A new plan (the given one is not modified) whose `keep` and `rewrite` entries the runtime
 * reports not running or does not serve are `unknown`, and those in a not-ready sandbox
 * `will-restart`, with counts
 * recomputed. Sandboxes the listing does not name are taken as the runtime reports them: absent.
 */
export function withRuntimeState(plan: NodeUpgradePlan, listing: CriListing): NodeUpgradePlan {
  const ready = new Map((listing.sandboxes ?? []).map((s) => [s.id, s.state === SANDBOX_READY]));
  const entries = plan.entries.map((e) => judged(e, listing, ready));
  return { ...plan, entries, counts: countActions(entries) };
}
