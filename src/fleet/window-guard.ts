/**
 * The window guard: while a node's kubelet is down for an in-place upgrade, it renews the node's own
 * Lease (`kube-node-lease/<node>`: `spec.renewTime` only, holder and duration kept, each write
 * conditional on the resourceVersion read) so the node lifecycle controller keeps the node Ready
 * and marks none of its pods NotReady. On clusters without the node Lease (before 1.14, or 1.14–1.16
 * with `NodeLease` off) it renews the Ready condition's `lastHeartbeatTime` in the node status
 * instead, which those controllers read. It hands over as soon as somebody else renews (the new
 * kubelet) and the node reports the target kubelet version, and stops at a hard deadline whatever
 * happens: past it, the node is left to the control plane as if no guard had run.
 */
import { statusMessage, type ApiAnswer } from './api-client.js';
import { OptionError } from '../errors.js';

/** One apiserver request (api-client.ts's `apiRequest`, bound to credentials; a fake in tests). */
export type ApiCall = (
  method: 'GET' | 'PUT' | 'PATCH',
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<ApiAnswer>;

/** What the guard holds and for how long. */
export interface HoldOptions {
  node: string;
  /** The release the new kubelet reports (`1.31`, `1.31.14`, `v1.31.14`); without it any kubelet renewing hands over. */
  target?: string;
  /** The hard deadline from the start, in ms (the CLI's default is 10 minutes). */
  deadlineMs: number;
  /** Between renewals, in ms (the kubelet's own: a quarter of the 40 s lease, 10 s). */
  intervalMs: number;
  /** Clock and wait, replaceable in tests. */
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Stops the guard early (SIGINT, SIGTERM): reported as `stopped`. */
  signal?: AbortSignal;
  /** Each renewal and observation, as it happens. */
  onEvent?: (event: HoldEvent) => void;
}

/** Something the guard did or saw. */
interface HoldEvent {
  at: string;
  kind: 'renewed' | 'conflict' | 'foreign-renewal' | 'version';
  detail: string;
}

/** How the guard ended. */
export interface HoldReport {
  node: string;
  /** `lease`: the node Lease was renewed; `node-status`: the Ready condition's heartbeat. */
  mode: 'lease' | 'node-status';
  /** `handed-over`: the target kubelet renews; `deadline`: it did not within the deadline; `stopped`: signalled. */
  outcome: 'handed-over' | 'deadline' | 'stopped';
  renewals: number;
  conflicts: number;
  startedAt: string;
  endedAt: string;
  /** The kubelet version the node reported last (`v1.31.14`). */
  kubeletVersion?: string;
  /** Whether a renewal not ours was seen (a kubelet heartbeating). */
  foreignRenewal: boolean;
  message: string;
}

type Obj = Record<string, unknown>;

/** Go's `metav1.MicroTime` text (RFC 3339 with microseconds, UTC), as leases carry it. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Go's `metav1.Time` text (whole seconds, UTC), as node conditions carry it. */
function secondTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Whether `reported` (`v1.31.14`, `v1.31.14+k3s1`) is release `target` (`1.31`, `1.31.14`, `v1.31.14`). */
export function versionMatches(reported: string, target: string): boolean {
  const want = target.replace(/^v/, '');
  const have = reported.replace(/^v/, '');
  return have === want || (have.startsWith(want) && /^[.+-]/.test(have.slice(want.length)));
}

function refuse(path: string, expected: string, answer: ApiAnswer): never {
  throw new OptionError('INVALID_OPTION', [path], expected, `HTTP ${answer.status}: ${statusMessage(answer)}`);
}

/** Where the guard writes, and how it reads the heartbeat there. */
interface Target {
  mode: HoldReport['mode'];
  read(): Promise<Obj>;
  heartbeat(object: Obj): string | undefined;
  /** The object with its heartbeat set to `now`; the resourceVersion read is kept, so a write in between conflicts. */
  renewed(object: Obj, now: Date): Obj;
  write(object: Obj): Promise<ApiAnswer>;
}

const leasePath = (node: string): string =>
  `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(node)}`;
const nodePath = (node: string): string => `/api/v1/nodes/${encodeURIComponent(node)}`;

function readyOf(node: Obj): Obj | undefined {
  const conditions = (node['status'] as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as Obj[]).find((c) => c['type'] === 'Ready') : undefined;
}

async function chooseTarget(call: ApiCall, node: string): Promise<Target> {
  const lease = await call('GET', leasePath(node));
  if (lease.status === 200)
    return {
      mode: 'lease',
      read: async () => {
        const a = await call('GET', leasePath(node));
        return a.status === 200 ? (a.body as Obj) : refuse(leasePath(node), 'the node Lease (HTTP 200)', a);
      },
      heartbeat: (o) => (o['spec'] as { renewTime?: string } | undefined)?.renewTime,
      renewed: (o, now) => ({ ...o, spec: { ...(o['spec'] as Obj), renewTime: microTime(now) } }),
      write: (o) => call('PUT', leasePath(node), o),
    };
  if (lease.status !== 404) refuse(leasePath(node), 'the node Lease, or 404 on clusters without it', lease);
  const readNode = async (): Promise<Obj> => {
    const a = await call('GET', nodePath(node));
    return a.status === 200 ? (a.body as Obj) : refuse(nodePath(node), 'the Node (HTTP 200)', a);
  };
  const first = await readNode();
  if (readyOf(first) === undefined)
    throw new OptionError('INVALID_OPTION', [nodePath(node), 'status', 'conditions'], 'a Ready condition', 'none');
  return {
    mode: 'node-status',
    read: readNode,
    heartbeat: (o) => readyOf(o)?.['lastHeartbeatTime'] as string | undefined,
    renewed: (o, now) => {
      const status = o['status'] as Obj;
      const conditions = (status['conditions'] as Obj[]).map((c) =>
        c['type'] === 'Ready' ? { ...c, lastHeartbeatTime: secondTime(now) } : c,
      );
      return { ...o, status: { ...status, conditions } };
    },
    write: (o) => call('PUT', `${nodePath(node)}/status`, o),
  };
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** Holds the node until the target kubelet renews, the deadline passes or the signal aborts. */
export async function holdNode(call: ApiCall, options: HoldOptions): Promise<HoldReport> {
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? ((ms: number) => defaultSleep(ms, options.signal));
  const started = now();
  const end = started.getTime() + options.deadlineMs;
  const event = (kind: HoldEvent['kind'], detail: string): void =>
    options.onEvent?.({ at: now().toISOString(), kind, detail });
  const target = await chooseTarget(call, options.node);
  let renewals = 0;
  let conflicts = 0;
  let foreign = false;
  let version: string | undefined;
  // The heartbeat as last seen or written: a different one at the next read is somebody else's.
  let last: string | undefined;
  const finish = (outcome: HoldReport['outcome'], message: string): HoldReport => ({
    node: options.node,
    mode: target.mode,
    outcome,
    renewals,
    conflicts,
    startedAt: started.toISOString(),
    endedAt: now().toISOString(),
    ...(version !== undefined ? { kubeletVersion: version } : {}),
    foreignRenewal: foreign,
    message,
  });
  for (let first = true; ; first = false) {
    if (options.signal?.aborted) return finish('stopped', 'stopped by a signal before the kubelet came back');
    if (now().getTime() >= end)
      return finish(
        'deadline',
        foreign
          ? `the deadline passed; a kubelet renews but reports ${version ?? 'no version'}, not ${options.target ?? 'the target'}`
          : 'the deadline passed and no kubelet renewed: the node is left to the node lifecycle controller',
      );
    const object = await target.read();
    const beat = target.heartbeat(object);
    if (!first && beat !== last) {
      foreign = true;
      event('foreign-renewal', `heartbeat ${String(beat)}, not ours (${String(last)})`);
      const served = target.mode === 'node-status' ? object : await readNodeFor(call, options.node);
      version = (served['status'] as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo?.kubeletVersion;
      event('version', `the node reports kubelet ${String(version)}`);
      if (options.target === undefined || (version !== undefined && versionMatches(version, options.target)))
        return finish('handed-over', `the kubelet ${String(version)} renews the node's heartbeat itself`);
      // A kubelet renewed, but not the target: it stands for the node now; renew again only if it stops.
      last = beat;
    } else {
      const answer = await target.write(target.renewed(object, now()));
      if (answer.status === 200) {
        renewals++;
        last = target.heartbeat(answer.body as Obj);
        event('renewed', String(last));
      } else if (answer.status === 409) {
        // Somebody wrote between our read and our write: the next read says who.
        conflicts++;
        last = beat;
        event('conflict', statusMessage(answer));
      } else refuse(target.mode === 'lease' ? leasePath(options.node) : nodePath(options.node), 'HTTP 200', answer);
    }
    await sleep(Math.min(options.intervalMs, Math.max(0, end - now().getTime())));
  }
}

async function readNodeFor(call: ApiCall, node: string): Promise<Obj> {
  const a = await call('GET', nodePath(node));
  return a.status === 200 ? (a.body as Obj) : refuse(nodePath(node), 'the Node (HTTP 200)', a);
}
