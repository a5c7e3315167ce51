/**
 * verify's last question when it knows the runtime's endpoint: does the runtime serve what its store
 * holds? The store is what verify checked (every entry with a record); the runtime's answer is what
 * the kubelet will read back (CRI ListContainers). Any difference — a container on one side only, or
 * another stored hash, pod or name — means the check was made on something the kubelet will not
 * see, so it is refused ({@link checkRuntimeAgreement}), never an all-clear.
 */
import { StoreError } from '../errors.js';
import type { CriContainer, CriListing } from '../discovery/index.js';
import type { NodePlanEntry } from './plan-file.js';

const HASH = 'io.kubernetes.container.hash';
const HASH_WITHOUT_RESOURCES = 'io.kubernetes.container.hashWithoutResources';
const POD_UID = 'io.kubernetes.pod.uid';
const CONTAINER_NAME = 'io.kubernetes.container.name';

/** At most this many containers are named in the message (the count says how many more). */
const NAMED = 20;

const served = (c: CriContainer): string =>
  `container ${c.id.slice(0, 13)} (pod ${c.labels['io.kubernetes.pod.namespace'] ?? '?'}/${c.labels['io.kubernetes.pod.name'] ?? '?'} uid ${c.labels[POD_UID] ?? '?'}, sandbox ${c.podSandboxId.slice(0, 13)}, ${c.name} attempt ${c.attempt})`;

const stored = (e: NodePlanEntry): string =>
  `container ${e.containerId!.slice(0, 13)} (pod ${e.podNamespace ?? '?'}/${e.podName ?? '?'} uid ${e.podUid}, ${e.containerName})`;

const say = (v: string | undefined): string => (v === undefined ? 'none' : v);

/** The differences between one stored record and the runtime's container of the same id. */
function differences(e: NodePlanEntry, c: CriContainer): string[] {
  const out: string[] = [];
  if (c.annotations[HASH] !== e.observed.hash)
    out.push(`hash: the store holds ${say(e.observed.hash)}, the runtime serves ${say(c.annotations[HASH])}`);
  if (c.annotations[HASH_WITHOUT_RESOURCES] !== e.observed.hashWithoutResources)
    out.push(
      `hashWithoutResources: the store holds ${say(e.observed.hashWithoutResources)}, the runtime serves ${say(c.annotations[HASH_WITHOUT_RESOURCES])}`,
    );
  if (e.podUid !== '' && c.labels[POD_UID] !== e.podUid)
    out.push(`pod uid: the store holds ${e.podUid}, the runtime serves ${say(c.labels[POD_UID])}`);
  const name = c.labels[CONTAINER_NAME] ?? c.name;
  if (e.containerName !== '' && name !== e.containerName)
    out.push(`container name: the store holds ${e.containerName}, the runtime serves ${name}`);
  return out;
}

/**
 * The disagreements between the records verify read and the containers the runtime serves, one
 * line per container (empty: they agree).
 *
 * @internal
 */
function runtimeDisagreements(entries: readonly NodePlanEntry[], listing: CriListing): string[] {
  const byId = new Map<string, CriContainer>();
  for (const c of listing.containers) byId.set(c.id, c);
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.containerId === undefined || e.containerId === '') continue;
    seen.add(e.containerId);
    const c = byId.get(e.containerId);
    if (!c) {
      lines.push(`${stored(e)}: in the store, not served by the runtime`);
      continue;
    }
    const diff = differences(e, c);
    if (diff.length > 0) lines.push(`${served(c)}: ${diff.join('; ')}`);
  }
  for (const c of listing.containers)
    if (!seen.has(c.id)) lines.push(`${served(c)}: served by the runtime, not in the store`);
  return lines;
}

/**
 * Refuses (`CRI_DISAGREES`, naming each container up to 20 and counting the rest) when the runtime
 * does not serve exactly the records verify checked.
 *
 * @internal
 */
export function checkRuntimeAgreement(entries: readonly NodePlanEntry[], listing: CriListing, socket: string): void {
  const lines = runtimeDisagreements(entries, listing);
  if (lines.length === 0) return;
  const records = entries.filter((e) => e.containerId !== undefined && e.containerId !== '').length;
  const more = lines.length > NAMED ? `; and ${lines.length - NAMED} more` : '';
  throw new StoreError(
    'CRI_DISAGREES',
    ['runtimeEndpoint'],
    `the containers the runtime serves over CRI ${listing.version} on ${socket} to be the ${records} records of its store, with the same hashes`,
    `${lines.length} containers differ (the runtime serves ${listing.containers.length}, the store holds ${records}): ${lines.slice(0, NAMED).join('; ')}${more}`,
    socket,
  );
}
