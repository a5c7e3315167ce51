/**
 * `kubelet-hash hold` and `hold-audit`: the window of an in-place kubelet upgrade seen from the
 * control plane. `hold` keeps the node's heartbeat going while its kubelet is down (the node
 * Lease, or the Ready condition's heartbeat on clusters without it), with the kubelet's own
 * credentials, until the target kubelet renews or a hard deadline; `hold-audit` takes a snapshot of
 * the node and its pods, or compares the node with one taken before the window.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  apiRequest,
  auditWindow,
  holdNode,
  parseSnapshot,
  readKubeconfig,
  takeSnapshot,
  writeNewFile,
  type ApiCall,
  type ApiAccess,
  type WindowFinding,
} from '../fleet/index.js';
import { UsageError, str, type CommandContext, type CommandDef, type CommandResult } from './command.js';
import { table } from './table.js';
import { toolVersion } from './version.js';

/** `10m` → ms: whole seconds, minutes or hours. */
function durationMs(text: string | undefined, option: string, fallback: number): number {
  if (text === undefined) return fallback;
  const m = /^(\d{1,7})(s|m|h)$/.exec(text);
  if (!m || Number(m[1]) === 0) throw new UsageError(`--${option}: a duration such as 10s, 10m or 1h; got ${text}`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
}

/** The kubeconfig's credentials bound into one call, under the guard's own user agent. */
function apiCall(ctx: CommandContext): ApiCall {
  const file = str(ctx.values, 'kubeconfig', true);
  const access: ApiAccess = { ...readKubeconfig(file).access, userAgent: `kubelet-hash-hold/${toolVersion()}` };
  // The guard sends the node's own credentials: never to a server whose certificate is not checked.
  if (access.insecure === true)
    throw new UsageError(
      `--kubeconfig ${file}: insecure-skip-tls-verify is refused (the node's credentials would go unchecked)`,
    );
  return (method, path, body, contentType = 'application/json') =>
    apiRequest(access, method, path, body === undefined ? undefined : { text: JSON.stringify(body), contentType });
}

const SHARED = {
  node: { type: 'string', required: true, value: 'NAME', description: 'the node (its name in the cluster)' },
  kubeconfig: {
    type: 'string',
    required: true,
    value: 'FILE',
    description:
      "the kubelet's kubeconfig (e.g. /etc/kubernetes/kubelet.conf): the node's own client certificate or token, which the Node authorizer lets renew the node's Lease and status",
  },
} as const;

const writeLine = (ctx: CommandContext, line: string): void => {
  ctx.io.stderr.write(`${line}\n`);
};

export const hold: CommandDef = {
  name: 'hold',
  summary:
    'keep a node Ready while its kubelet is down: renew its Lease (or Ready heartbeat) as the node until the target kubelet renews, or a deadline (exit 1)',
  description:
    "Run right after the kubelet stops. Every --interval it renews the node's Lease kube-node-lease/NODE (spec.renewTime only; holder and duration kept; each write conditional on the resourceVersion read) with the kubelet's own credentials and the user agent kubelet-hash-hold/VERSION, so the node lifecycle controller neither marks the node Unknown nor its pods NotReady nor taints it. A cluster without the node Lease (before 1.14, or 1.14–1.16 with NodeLease off) gets the Ready condition's lastHeartbeatTime renewed in the node status instead. As soon as a renewal not its own appears and the node reports the --to kubelet version, it hands over and exits 0. At --deadline (default 10m) it stops renewing and exits 1: from there the control plane sees the node as it is. --snapshot writes the node and its pods first, for hold-audit --after. Inside the window the control plane believes the node healthy: see docs/in-place-kubelet-upgrade.md.",
  options: {
    ...SHARED,
    to: {
      type: 'string',
      value: 'VERSION',
      description: 'the release the new kubelet reports (1.31 or 1.31.14); without it, any kubelet renewing hands over',
    },
    deadline: { type: 'string', value: 'DURATION', description: 'stop renewing after this long (default 10m)' },
    interval: { type: 'string', value: 'DURATION', description: "between renewals (default 10s, the kubelet's own)" },
    snapshot: {
      type: 'string',
      value: 'FILE',
      description: 'first write the node and its pods to this new file, for hold-audit --after',
    },
  },
  operands: [],
  examples: [
    {
      comment: 'stop the kubelet, hold the node up to 10 minutes while the new one is installed',
      command:
        'systemctl stop kubelet && kubelet-hash hold --node node-a --kubeconfig /etc/kubernetes/kubelet.conf --to 1.31 --snapshot before.json',
    },
  ],
  finding: 'the deadline passed (or a signal came) before the target kubelet renewed',
  output: {
    row: z.looseObject({}).describe('one thing the guard did or saw: at, kind, detail'),
    summary: z
      .looseObject({})
      .describe(
        'node, mode, outcome, renewals, conflicts, startedAt, endedAt, kubeletVersion, foreignRenewal, message',
      ),
  },
  async run(ctx) {
    const node = str(ctx.values, 'node', true);
    const call = apiCall(ctx);
    const snapshotFile = str(ctx.values, 'snapshot');
    if (snapshotFile !== undefined) {
      const snapshot = await takeSnapshot(call, node);
      writeNewFile(snapshotFile, `${JSON.stringify(snapshot, null, 2)}\n`);
      writeLine(ctx, `# snapshot of ${node} and its ${snapshot.pods.length} pods written to ${snapshotFile}`);
    }
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const events: object[] = [];
    const to = str(ctx.values, 'to');
    try {
      const report = await holdNode(call, {
        node,
        ...(to !== undefined ? { target: to } : {}),
        deadlineMs: durationMs(str(ctx.values, 'deadline'), 'deadline', 600_000),
        intervalMs: durationMs(str(ctx.values, 'interval'), 'interval', 10_000),
        signal: stop.signal,
        onEvent: (e) => {
          events.push(e);
          writeLine(ctx, `# ${e.at} ${e.kind}: ${e.detail}`);
        },
      });
      return {
        exitCode: report.outcome === 'handed-over' ? 0 : 1,
        rows: events,
        summary: { ...report },
        text: `${report.outcome}: ${report.message} (${report.mode}, ${report.renewals} renewals, ${report.startedAt} → ${report.endedAt})\n`,
      };
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

export const holdAudit: CommandDef = {
  name: 'hold-audit',
  summary:
    'snapshot a node and its pods (--out), or compare them with a snapshot from before the window (--after; exit 1 on any difference)',
  description:
    "With --out it writes the node's conditions and taints and, for every pod on the node, its UID, its Ready condition and each container's ID, restart count and readiness (what hold --snapshot writes). With --after it reads them again and lists every difference as a finding: a node condition whose status or last transition moved, a taint added or removed, a pod gone or replaced (another UID) or added, a pod's Ready condition changed, a container restarted (another ID or restart count), a container's readiness changed. Exit 1 when there is any.",
  options: {
    ...SHARED,
    out: { type: 'string', value: 'FILE', description: 'write a snapshot to this new file' },
    after: { type: 'string', value: 'FILE', description: 'the snapshot taken before the window, to compare with' },
  },
  operands: [],
  examples: [
    {
      comment: 'after the kubelet is back: did anything change?',
      command: 'kubelet-hash hold-audit --node node-a --kubeconfig /etc/kubernetes/kubelet.conf --after before.json',
    },
  ],
  finding: 'something changed since the snapshot (each difference a row)',
  output: {
    row: z.looseObject({}).describe('--after: one difference: kind, subject, before, after'),
    summary: z
      .looseObject({})
      .describe('node, pods, and with --after findings and the snapshot time; with --out the file'),
  },
  async run(ctx): Promise<CommandResult> {
    const node = str(ctx.values, 'node', true);
    const out = str(ctx.values, 'out');
    const after = str(ctx.values, 'after');
    if ((out === undefined) === (after === undefined)) throw new UsageError('hold-audit: --out FILE or --after FILE');
    const call = apiCall(ctx);
    const now = await takeSnapshot(call, node);
    if (out !== undefined) {
      writeNewFile(out, `${JSON.stringify(now, null, 2)}\n`);
      return {
        exitCode: 0,
        rows: [],
        summary: { node, pods: now.pods.length, out },
        text: `snapshot of ${node} and its ${now.pods.length} pods written to ${out}\n`,
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(after!, 'utf8'));
    } catch (e) {
      throw new UsageError(`--after ${after!}: ${(e as Error).message}`);
    }
    const before = parseSnapshot(parsed, after!);
    if (before.node !== node) throw new UsageError(`--after ${after!} is of node ${before.node}, not ${node}`);
    const findings: WindowFinding[] = auditWindow(before, now);
    const text =
      (findings.length > 0
        ? table(
            ['kind', 'subject', 'before', 'after'],
            findings.map((f) => [f.kind, f.subject, f.before, f.after]),
          )
        : '') +
      `# ${findings.length === 0 ? 'unchanged' : `${findings.length} differences`} since ${before.takenAt}: node ${node}, ${now.pods.length} pods\n`;
    return {
      exitCode: findings.length === 0 ? 0 : 1,
      rows: findings,
      summary: { node, pods: now.pods.length, since: before.takenAt, findings: findings.length },
      text,
    };
  },
};
