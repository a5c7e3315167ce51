/**
 * The node commands that read a runtime's records: `plan` (what to do with every container before
 * a kubelet upgrade; with --out, the plan file `apply` takes) and `verify` (after it). Both join
 * the API pods scheduled on the node with the records: a running API container without a record
 * is `unknown`, and a store that holds nothing while the pods run containers is refused.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { replaceEntryAtomic } from '../stores/index.js';
import { isKubeletHashError } from '../errors.js';
import {
  formatNodePlan,
  planNodeUpgrade,
  planTrailer,
  verifyNode,
  type NodePlanEntry,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../node-upgrade/index.js';
import { planSchemas } from '../plan/index.js';
import {
  UsageError,
  str,
  type CommandContext,
  type CommandDef,
  type CommandResult,
  type OptionDef,
} from './command.js';
import { featureGates, GATES } from './feature-gates.js';
import { ACCEPT_CAUSE, causeLines, causesOf, counted, trailerCauses } from './restart-cause-options.js';
import {
  ENDPOINT_OPTIONS,
  KUBELET_SOURCE_OPTIONS,
  checkServedContainers,
  withServedState,
  endpointStoreSpec,
  kubeletVersionOf,
} from './discovery-options.js';
import { readObjects } from './inputs.js';
import { DEFAULT_MAX_INPUT } from './io.js';
import { LocatedError } from './located-error.js';
import { table } from './table.js';
import { commandAudit } from './audit.js';

const STORE_OPTIONS: Record<string, OptionDef> = {
  'containerd-root': {
    type: 'string',
    value: 'DIR',
    description: "containerd's root: read the CRI containers from its meta.db (io.containerd.metadata.v1.bolt/meta.db)",
  },
  namespace: {
    type: 'string',
    value: 'NS',
    goesWith: ['containerd-root'],
    description: "with --containerd-root: the CRI plugin's containerd namespace (default k8s.io)",
  },
  'crio-root': {
    type: 'string',
    value: 'DIR',
    description: "CRI-O's containers/storage graphroot: read <root>/overlay-containers/<id>/userdata/config.json",
  },
  'crio-runroot': {
    type: 'string',
    value: 'DIR',
    goesWith: ['crio-root'],
    description:
      'with --crio-root: the runroot (storage.conf runroot, usually /run/containers/storage), whose copies of config.json are checked and rewritten too; required when the graphroot holds containers',
  },
  'docker-root': {
    type: 'string',
    value: 'DIR',
    description: "dockerd's data root: read <root>/containers/<id>/config.v2.json",
  },
  'docker-config': {
    type: 'string',
    value: 'FILE',
    goesWith: ['docker-root'],
    description: 'with --docker-root: daemon.json, read for live-restore (default /etc/docker/daemon.json)',
  },
  ...ENDPOINT_OPTIONS,
};

const NODE_OPTIONS: Record<string, OptionDef> = {
  pods: {
    type: 'string',
    required: true,
    value: 'FILE',
    description:
      'the API pods: kubectl get pods -A -o yaml|json (a List, or several documents; - for standard input) (required)',
  },
  node: {
    type: 'string',
    value: 'NAME',
    description:
      "the node's name: the pods with this spec.nodeName are the node's (default: all pods when they name one node, else the nodes the records belong to)",
  },
  'feature-gates': GATES,
  ...STORE_OPTIONS,
};

const RECORDS = {
  name: 'RECORD',
  description:
    'runtime record files (docker inspect, config.v2.json, crictl inspect), instead of a runtime root: a plan from them can be read, not applied',
  count: 'any',
} as const;

/** The store the options name, or record files. */
function storeSpec(ctx: CommandContext): StoreSpec {
  const found = endpointStoreSpec(ctx);
  if (found) return found;
  const v = ctx.values;
  const roots = ['containerd-root', 'crio-root', 'docker-root'].filter((k) => str(v, k) !== undefined);
  if (roots.length > 1)
    throw new UsageError(
      `give one of --containerd-root, --crio-root, --docker-root (got ${roots.map((r) => `--${r}`).join(', ')})`,
    );
  if (roots.length === 1 && ctx.operands.length > 0)
    throw new UsageError('give a runtime root or record files, not both');
  const containerd = str(v, 'containerd-root');
  if (containerd !== undefined)
    return { runtime: 'containerd', root: containerd, namespace: str(v, 'namespace') ?? 'k8s.io' };
  if (str(v, 'namespace') !== undefined) throw new UsageError('--namespace goes with --containerd-root');
  const crio = str(v, 'crio-root');
  if (crio !== undefined) {
    const runRoot = str(v, 'crio-runroot');
    return { runtime: 'cri-o', graphRoot: crio, ...(runRoot !== undefined ? { runRoot } : {}) };
  }
  const docker = str(v, 'docker-root');
  if (docker !== undefined) {
    const daemonConfig = str(v, 'docker-config');
    return { runtime: 'docker', root: docker, ...(daemonConfig !== undefined ? { daemonConfig } : {}) };
  }
  if (ctx.operands.length > 0) return { runtime: 'records', files: ctx.operands };
  throw new UsageError(
    'give the records: a runtime root (--containerd-root, --crio-root, --docker-root) or record files',
  );
}

/** What plan and verify share: the pods, the store, the node and the gates. */
async function nodeInput(ctx: CommandContext) {
  const store = storeSpec(ctx);
  const gates = featureGates(ctx);
  const node = str(ctx.values, 'node');
  const pods = (await readObjects(ctx, [str(ctx.values, 'pods', true)])).map((o) => o.object.value);
  ctx.progress(0, 1, `reading the ${store.runtime} records`);
  return {
    store,
    pods,
    ...(gates ? { featureGates: gates } : {}),
    ...(node !== undefined ? { nodeName: node } : {}),
    // Record-file operands are inputs too: the one size limit.
    maxRecordFileBytes: ctx.io.maxInputBytes ?? DEFAULT_MAX_INPUT,
  };
}

function entryTable(entries: readonly NodePlanEntry[]): string {
  return table(
    ['action', 'pod', 'container', 'stored', 'to', 'record', 'reason'],
    entries.map((e) => [
      // An older attempt is a keep the kubelet never compares: say so where people read.
      e.action === 'keep' && e.supersededBy !== undefined ? 'superseded' : e.action,
      e.podName !== undefined ? `${e.podNamespace ?? '?'}/${e.podName}` : e.podUid || null,
      e.containerName || null,
      e.observed.hash,
      e.computed.to,
      e.containerId !== undefined && e.containerId !== '' ? e.containerId.slice(0, 13) : (e.location ?? null),
      e.reason,
    ]),
  );
}

/** The per-pod sandbox findings, as comment lines. */
function sandboxLines(plan: NodeUpgradePlan): string {
  const s = plan.sandboxes;
  if (!s) return '';
  const pods = s.findings.map(
    (f) => `# pod ${f.podNamespace ?? '?'}/${f.podName ?? f.podUid}: recreated whole by the kubelet: ${f.reason}\n`,
  );
  return `${pods.join('')}# sandboxes: ${s.note}\n`;
}

const countsLine = (plan: NodeUpgradePlan): string => {
  const c = plan.counts;
  const superseded = plan.entries.filter((e) => e.action === 'keep' && e.supersededBy !== undefined).length;
  const keep = superseded > 0 ? `keep ${c.keep} (${superseded} superseded)` : `keep ${c.keep}`;
  return `${keep}, rewrite ${c.rewrite}, will-restart ${c['will-restart']}, unknown ${c.unknown}`;
};

const restartCausesSummary = z
  .array(
    z.object({
      kind: z.string(),
      verdict: z.enum(['expected', 'unknown']),
      accepted: z.boolean().describe('its class was given to --accept-cause: not counted'),
      pod: z.string(),
      podUid: z.string(),
      releases: z.string(),
      source: z.string(),
      reason: z.string(),
      containers: z.array(z.string()).optional().describe('the containers it restarts, where the cause is their own'),
    }),
  )
  .describe(
    'restart causes outside the hash, per pod, with source and releases (device-plugin and pinned re-admission, static pods referencing API objects, the readiness flap, allocation checkpoints); each makes the exit code 1 unless its class is given to --accept-cause',
  );

// The rows are the plan file's entries: the one plan vocabulary, with its descriptions.
const { counts, nodeRow: entryRow, sandboxFinding } = planSchemas();

const sandboxesSummary = z
  .object({
    note: z.string().describe('what was read, or why sandboxes were not checked'),
    findings: z.array(sandboxFinding),
  })
  .nullable()
  .describe('the pods the kubelet recreates whole because of their sandbox (PodSandboxChanged)');

const auditSummary = z
  .looseObject({})
  .nullable()
  .describe('when, where and by what this was made: createdAt, host, tool, command');

const plan: CommandDef = {
  name: 'plan',
  summary: "plan a kubelet upgrade: join the node's API pods with its runtime records, verify and translate each hash",
  description:
    'For every container on the node: reads its stored hash from the runtime (--containerd-root, --crio-root, --docker-root, or record files), checks it against what the --from kubelet computes for the API pod, and says what to do before the kubelet moves to --to: keep, rewrite the record, will-restart, or unknown. The API pods scheduled on the node (--node, or see below) are joined with the records: a running API container without a record is unknown ("no runtime record: wrong --namespace or runtime root?"), a record without an API pod is listed as unknown, an older attempt of a pod\'s container (an exited record the kubelet has not collected yet) is superseded by the newest attempt, which alone is judged (two records holding the newest attempt are unknown), and a store holding no CRI container while the pods run containers is refused (exit 2, EMPTY_STORE, naming what was read); so is a view that would leave containers unchecked: no pod given while the store holds records (EMPTY_POD_VIEW), a --node no given pod is on (NODE_NOT_FOUND), a containerd namespace with no CRI container while another has some (NAMESPACE_MISMATCH), two pods with one uid (DUPLICATE_POD), a CRI-O store without --crio-runroot or with one that does not exist (MISSING_RUNROOT). From containerd\'s meta.db it also reads the pod sandboxes: a pod whose sandbox is gone, has the wrong network mode for hostNetwork, or has no IP is recreated whole by the kubelet, so its containers are will-restart.\n' +
    'Prints a table (or --json). With --out it also writes the plan file (format kubelet-hash/upgrade-plan version 1, keys sorted: the same node state gives the same bytes but for the audit stamp, which says when, on which host, by which kubelet-hash and command line the plan was made; each rewrite carries the API container it was computed from, which apply hashes again; mode 0600, replaced atomically, a symlink at that path replaced and never followed; --out - writes it to standard output instead of the table). apply takes plan files made from a runtime root only: one made from record files is refused by apply (those are read-only views). Reading a store is read-only; the runtime may still run. See docs/in-place-kubelet-upgrade.md.',
  options: {
    from: {
      type: 'string',
      value: 'VERSION',
      description: 'the kubelet version that wrote the stored hashes (required, or --kubelet-binary / --node-object)',
    },
    ...KUBELET_SOURCE_OPTIONS,
    to: { type: 'string', required: true, value: 'VERSION', description: 'the kubelet version to plan for (required)' },
    ...NODE_OPTIONS,
    'accept-cause': ACCEPT_CAUSE,
    out: {
      type: 'string',
      value: 'PLAN.json',
      description: 'also write the plan file there (- : to standard output, instead of the table)',
    },
  },
  operands: [RECORDS],
  examples: [
    {
      comment: 'plan a containerd node, for apply',
      command:
        'kubelet-hash plan --from 1.30 --to 1.31 --pods pods.yaml --containerd-root /var/lib/containerd --out plan.json',
    },
    {
      comment: 'plan from crictl inspect output (read only)',
      command: 'kubelet-hash plan --from 1.30 --to 1.31 --pods pods.yaml crictl-*.json',
    },
  ],
  finding:
    'the plan has will-restart or unknown entries, or a restart cause outside the hash whose class was not accepted',
  output: {
    row: entryRow,
    summary: z.looseObject({
      from: z.string(),
      to: z.string(),
      counts: counts.describe('entries per action'),
      out: z.string().nullable().describe('the plan file written, when --out FILE was given'),
      sandboxes: sandboxesSummary,
      restartCauses: restartCausesSummary,
      audit: auditSummary,
    }),
  },
  async run(ctx): Promise<CommandResult> {
    const input = await nodeInput(ctx);
    const p = await withServedState(
      ctx,
      await planNodeUpgrade({
        ...input,
        from: await kubeletVersionOf(ctx, 'from'),
        to: str(ctx.values, 'to', true),
        audit: commandAudit(ctx),
      }),
    );
    const causes = causesOf(input.pods, p.from, p.to, ctx);
    const out = str(ctx.values, 'out');
    const file = formatNodePlan(p);
    const written = out !== undefined && out !== '-' ? out : null;
    // Never through a symlink, never half-written, readable by us only: a plan names every pod's records.
    if (written !== null) {
      try {
        replaceEntryAtomic(resolve(written), Buffer.from(file));
      } catch (e) {
        // The error names the file it could not write, as an input file's error does.
        throw isKubeletHashError(e) ? new LocatedError(e, written, null) : e;
      }
    }
    const human =
      out === '-'
        ? file
        : `${entryTable(p.entries)}${sandboxLines(p)}${causeLines(causes)}# ${p.from} -> ${p.to}: ${countsLine(p)}${written !== null ? `; plan written to ${written}` : ''}\n`;
    return {
      exitCode: p.counts['will-restart'] + p.counts.unknown + counted(causes) > 0 ? 1 : 0,
      rows: p.entries,
      summary: {
        from: p.from,
        to: p.to,
        counts: p.counts,
        out: written,
        sandboxes: p.sandboxes ?? null,
        restartCauses: causes,
        audit: p.audit ?? null,
      },
      trailer: { ...planTrailer(p, 'plan', input.nodeName ?? null, p.audit, trailerCauses(causes)) },
      text: human,
    };
  },
};

const verify: CommandDef = {
  name: 'verify',
  summary: 'check that every container on the node has a record whose hash the kubelet computes and keeps',
  description:
    'Reads the records as plan does and joins them with the API pods on the node: exit 0 only when every running API container has a record, its stored hash is what kubelet --kubelet computes for it, and that release keeps it (and, from containerd, its pod sandbox fits); exit 1 listing the containers that would restart or are unknown (including API containers with no record); exit 2 when the store holds no CRI container while the pods run some (EMPTY_STORE: wrong root or namespace), and for the views plan refuses (EMPTY_POD_VIEW, NODE_NOT_FOUND, NAMESPACE_MISMATCH, DUPLICATE_POD, MISSING_RUNROOT). With --crio-runroot the runroot copies are checked too: one whose hash differs from its graphroot copy is unknown. --ndjson ends with a trailer line (kind kubelet-hash/plan-trailer: rows, counts, node, store). With --runtime-endpoint it also asks the runtime what it serves the kubelet (CRI ListContainers, v1 else v1alpha2) and refuses (exit 2) any difference from its store: a container on one side only, or another hash, pod uid or container name (CRI_DISAGREES, naming each container), and a runtime that does not answer on its socket (CRI_UNREACHABLE; to verify the store files alone while the runtime is stopped, give its root instead of the endpoint).',
  options: {
    kubelet: {
      type: 'string',
      value: 'VERSION',
      description: 'the kubelet version now on the node (required, or --kubelet-binary / --node-object)',
    },
    ...KUBELET_SOURCE_OPTIONS,
    ...NODE_OPTIONS,
    'accept-cause': ACCEPT_CAUSE,
  },
  operands: [RECORDS],
  examples: [
    {
      comment: 'after apply and the runtime restart',
      command: 'kubelet-hash verify --kubelet 1.31 --pods pods.yaml --containerd-root /var/lib/containerd',
    },
    {
      comment: 'the same, and what containerd serves over CRI must be what meta.db holds',
      command:
        'kubelet-hash verify --kubelet 1.31 --pods pods.yaml --runtime-endpoint unix:///run/containerd/containerd.sock',
    },
  ],
  finding:
    'some container would restart or is unknown (no record, hash not verified), or a restart cause outside the hash whose class was not accepted',
  output: {
    row: entryRow,
    summary: z.object({
      kubelet: z.string(),
      ok: z.boolean(),
      counts,
      sandboxes: sandboxesSummary,
      restartCauses: restartCausesSummary,
      audit: auditSummary,
    }),
  },
  async run(ctx) {
    const input = await nodeInput(ctx);
    const verified = await verifyNode({ ...input, kubeletVersion: await kubeletVersionOf(ctx, 'kubelet') });
    // With --runtime-endpoint, what the runtime serves over CRI must be what the store holds, and
    // what it says runs counts.
    const p = await checkServedContainers(ctx, verified.plan);
    const ok = p.entries.every((e) => e.action === 'keep');
    const audit = commandAudit(ctx);
    const others = p.entries.filter((e) => e.action !== 'keep');
    // A restart of the same kubelet: what it does to these pods when it starts again.
    const causes = causesOf(input.pods, p.to, p.to, ctx);
    const text = `${others.length > 0 ? entryTable(others) : ''}${sandboxLines(p)}${causeLines(causes)}# ${p.to}: ${p.counts.keep} of ${p.entries.length} containers keep running${ok ? '' : `; ${countsLine(p)}`}\n`;
    return {
      exitCode: ok && counted(causes) === 0 ? 0 : 1,
      rows: p.entries,
      summary: {
        kubelet: p.to,
        ok,
        counts: p.counts,
        sandboxes: p.sandboxes ?? null,
        restartCauses: causes,
        audit,
      },
      trailer: { ...planTrailer(p, 'verify', input.nodeName ?? null, audit, trailerCauses(causes)) },
      text,
    };
  },
};

export const NODE_COMMANDS: CommandDef[] = [plan, verify];
