/**
 * What the window must not change, read before and after it from the apiserver: the node's
 * conditions (status and last transition) and taints, and per pod on the node its UID, its Ready
 * condition, and per container its ID, restart count and readiness. The audit compares two
 * snapshots: every difference is a finding, naming the node, pod or container it is about — a
 * container whose ID or restart count moved was restarted in the window.
 */
import { OptionError } from '../errors.js';
import { lazySchema } from '../on-demand.js';
import type { ApiCall } from './window-guard.js';
import { statusMessage } from './api-client.js';

/** One container as the pod status reports it. */
interface ContainerSnapshot {
  /** `initContainers`, `containers` or `ephemeralContainers`, as the status lists are named in the spec. */
  list: string;
  name: string;
  containerID: string | null;
  restartCount: number;
  ready: boolean;
}

/** One pod: who it is, whether it is Ready (and since when), its containers. */
export interface PodSnapshot {
  namespace: string;
  name: string;
  uid: string;
  ready: string | null;
  readySince: string | null;
  containers: ContainerSnapshot[];
}

/** The node and its pods at one moment. */
export interface WindowSnapshot {
  kind: 'WindowSnapshot';
  node: string;
  takenAt: string;
  conditions: { type: string; status: string; lastTransitionTime: string | null }[];
  taints: { key: string; value: string | null; effect: string }[];
  pods: PodSnapshot[];
}

/** One difference between the snapshots. */
export interface WindowFinding {
  kind:
    | 'node-condition'
    | 'node-taint'
    | 'pod-gone'
    | 'pod-replaced'
    | 'pod-added'
    | 'pod-ready'
    | 'container-restarted'
    | 'container-ready'
    | 'container-gone';
  /** `node/NAME`, `pod NS/NAME`, `container NS/POD/NAME`. */
  subject: string;
  before: string;
  after: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

async function getOk(call: ApiCall, path: string, kind: 'Node' | 'PodList'): Promise<Obj> {
  const a = await call('GET', path);
  if (a.status !== 200 || !isObj(a.body))
    throw new OptionError('INVALID_OPTION', [path], `the ${kind} (HTTP 200)`, `HTTP ${a.status}: ${statusMessage(a)}`);
  // A 200 of something else (a proxy's page, another API) read as empty would make a snapshot
  // without pods, and an audit of nothing that finds nothing.
  const body = a.body;
  if (body['kind'] !== kind || (kind === 'PodList' && !Array.isArray(body['items'])))
    throw new OptionError(
      'INVALID_OPTION',
      [path, 'kind'],
      `a ${kind}${kind === 'PodList' ? ' with items' : ''}`,
      body['kind'] === undefined ? 'got no kind' : `got kind ${JSON.stringify(body['kind'])}`,
    );
  return body;
}

const STATUS_LISTS = [
  ['initContainerStatuses', 'initContainers'],
  ['containerStatuses', 'containers'],
  ['ephemeralContainerStatuses', 'ephemeralContainers'],
] as const;

/** The pod as the snapshot keeps it. */
export function podSnapshot(pod: Obj): PodSnapshot {
  const meta = isObj(pod['metadata']) ? pod['metadata'] : {};
  const status = isObj(pod['status']) ? pod['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Obj[]) : [];
  const ready = conditions.find((c) => c['type'] === 'Ready');
  const containers: ContainerSnapshot[] = [];
  for (const [field, list] of STATUS_LISTS) {
    const statuses = status[field];
    if (!Array.isArray(statuses)) continue;
    for (const s of statuses as Obj[])
      containers.push({
        list,
        name: String(s['name']),
        containerID: text(s['containerID']),
        restartCount: typeof s['restartCount'] === 'number' ? s['restartCount'] : 0,
        ready: s['ready'] === true,
      });
  }
  return {
    namespace: String(meta['namespace']),
    name: String(meta['name']),
    uid: String(meta['uid']),
    ready: text(ready?.['status']),
    readySince: text(ready?.['lastTransitionTime']),
    containers,
  };
}

/** The snapshot of `node` and its pods, read through `call` (the node's own credentials may read both). */
export async function takeSnapshot(call: ApiCall, node: string, now: Date = new Date()): Promise<WindowSnapshot> {
  const served = await getOk(call, `/api/v1/nodes/${encodeURIComponent(node)}`, 'Node');
  const status = isObj(served['status']) ? served['status'] : {};
  const spec = isObj(served['spec']) ? served['spec'] : {};
  const pods: PodSnapshot[] = [];
  let next: string | undefined;
  do {
    const q = new URLSearchParams({ fieldSelector: `spec.nodeName=${node}`, limit: '500' });
    if (next !== undefined) q.set('continue', next);
    const page = await getOk(call, `/api/v1/pods?${q.toString()}`, 'PodList');
    for (const p of page['items'] as unknown[]) pods.push(podSnapshot(isObj(p) ? p : {}));
    const c = (page['metadata'] as { continue?: unknown } | undefined)?.continue;
    next = typeof c === 'string' && c !== '' ? c : undefined;
  } while (next !== undefined);
  pods.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return {
    kind: 'WindowSnapshot',
    node,
    takenAt: now.toISOString(),
    conditions: (Array.isArray(status['conditions']) ? (status['conditions'] as Obj[]) : []).map((c) => ({
      type: String(c['type']),
      status: String(c['status']),
      lastTransitionTime: text(c['lastTransitionTime']),
    })),
    taints: (Array.isArray(spec['taints']) ? (spec['taints'] as Obj[]) : []).map((t) => ({
      key: String(t['key']),
      value: text(t['value']),
      effect: String(t['effect']),
    })),
    pods,
  };
}

const snapshotSchema = lazySchema((z) =>
  z.object({
    kind: z.literal('WindowSnapshot'),
    node: z.string(),
    takenAt: z.string(),
    conditions: z.array(z.object({ type: z.string(), status: z.string(), lastTransitionTime: z.string().nullable() })),
    taints: z.array(z.object({ key: z.string(), value: z.string().nullable(), effect: z.string() })),
    pods: z.array(
      z.object({
        namespace: z.string(),
        name: z.string(),
        uid: z.string(),
        ready: z.string().nullable(),
        readySince: z.string().nullable(),
        containers: z.array(
          z.object({
            list: z.string(),
            name: z.string(),
            containerID: z.string().nullable(),
            restartCount: z.number(),
            ready: z.boolean(),
          }),
        ),
      }),
    ),
  }),
);

/** A snapshot read back from its file, checked so the audit cannot misread it. */
export function parseSnapshot(value: unknown, where: string): WindowSnapshot {
  const r = snapshotSchema().safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new OptionError(
      'INVALID_OPTION',
      [where, ...issue.path.map(String)],
      'a WindowSnapshot as hold --snapshot writes it',
      issue.message,
    );
  }
  return r.data;
}

const condText = (c: WindowSnapshot['conditions'][number] | undefined): string =>
  c === undefined ? 'absent' : `${c.status} since ${String(c.lastTransitionTime)}`;
const taintText = (t: WindowSnapshot['taints'][number]): string =>
  `${t.key}${t.value !== null ? `=${t.value}` : ''}:${t.effect}`;

/** Every difference from `before` to `after`, in a stable order (node, then pods by name). */
export function auditWindow(before: WindowSnapshot, after: WindowSnapshot): WindowFinding[] {
  const out: WindowFinding[] = [];
  const nodeSubject = `node/${before.node}`;
  const types = [...new Set([...before.conditions, ...after.conditions].map((c) => c.type))];
  for (const type of types) {
    const b = before.conditions.find((c) => c.type === type);
    const a = after.conditions.find((c) => c.type === type);
    if (condText(b) !== condText(a))
      out.push({ kind: 'node-condition', subject: `${nodeSubject} ${type}`, before: condText(b), after: condText(a) });
  }
  const bt = new Set(before.taints.map(taintText));
  const at = new Set(after.taints.map(taintText));
  for (const t of at)
    if (!bt.has(t)) out.push({ kind: 'node-taint', subject: nodeSubject, before: 'absent', after: t });
  for (const t of bt)
    if (!at.has(t)) out.push({ kind: 'node-taint', subject: nodeSubject, before: t, after: 'absent' });
  const key = (p: PodSnapshot): string => `${p.namespace}/${p.name}`;
  const afterPods = new Map(after.pods.map((p) => [key(p), p]));
  for (const b of before.pods) {
    const a = afterPods.get(key(b));
    afterPods.delete(key(b));
    const subject = `pod ${key(b)}`;
    if (a === undefined) {
      out.push({ kind: 'pod-gone', subject, before: b.uid, after: 'absent' });
      continue;
    }
    if (a.uid !== b.uid) {
      out.push({ kind: 'pod-replaced', subject, before: b.uid, after: a.uid });
      continue;
    }
    const ready = (p: PodSnapshot): string => `${String(p.ready)} since ${String(p.readySince)}`;
    if (ready(a) !== ready(b)) out.push({ kind: 'pod-ready', subject, before: ready(b), after: ready(a) });
    for (const bc of b.containers) {
      const ac = a.containers.find((c) => c.list === bc.list && c.name === bc.name);
      const cs = `container ${key(b)}/${bc.name}`;
      if (ac === undefined) {
        out.push({ kind: 'container-gone', subject: cs, before: String(bc.containerID), after: 'absent' });
        continue;
      }
      if (ac.containerID !== bc.containerID || ac.restartCount !== bc.restartCount)
        out.push({
          kind: 'container-restarted',
          subject: cs,
          before: `${String(bc.containerID)} restarts ${bc.restartCount}`,
          after: `${String(ac.containerID)} restarts ${ac.restartCount}`,
        });
      else if (ac.ready !== bc.ready)
        out.push({ kind: 'container-ready', subject: cs, before: String(bc.ready), after: String(ac.ready) });
    }
  }
  for (const a of afterPods.values())
    out.push({ kind: 'pod-added', subject: `pod ${key(a)}`, before: 'absent', after: a.uid });
  return out;
}
