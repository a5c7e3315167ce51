/**
 * CLI commands of the in-place kubelet upgrade: `plan` (the controllers' plan, extended: with a
 * runtime root or --out it writes a plan file), `apply`, `verify`, `rollback`. Exit codes: 0 done,
 * 1 a finding (containers that would restart or are unknown), 2 refused or bad input.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import {
  applyNodePlan,
  formatNodePlan,
  parseNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  verifyNode,
  type NodePlanEntry,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../upgrade/index.js';
import {
  UsageError,
  flag,
  str,
  type CommandContext,
  type CommandDef,
  type CommandResult,
  type OptionDef,
} from './command.js';
import { featureGates } from './commands-controllers.js';
import {
  ENDPOINT_OPTIONS,
  KUBELET_SOURCE_OPTIONS,
  checkPlanRoot,
  endpointStoreSpec,
  kubeletVersionOf,
} from './discovery-options.js';
import { readObjects } from './inputs.js';
import { readInput } from './io.js';
import { table } from './table.js';

const STORE_OPTIONS: Record<string, OptionDef> = {
  'containerd-root': {
    type: 'string',
    value: 'DIR',
    description: "containerd's root: read the CRI containers from its meta.db (io.containerd.metadata.v1.bolt/meta.db)",
  },
  namespace: {
    type: 'string',
    value: 'NS',
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
    description: 'with --crio-root: the runroot, whose copies of config.json are rewritten too',
  },
  'docker-root': {
    type: 'string',
    value: 'DIR',
    description: "dockerd's data root: read <root>/containers/<id>/config.v2.json",
  },
  'docker-config': {
    type: 'string',
    value: 'FILE',
    description: 'with --docker-root: daemon.json, read for live-restore (default /etc/docker/daemon.json)',
  },
  ...ENDPOINT_OPTIONS,
};

const RECORDS = {
  name: 'RECORD',
  description: 'runtime record files (docker inspect, config.v2.json, crictl inspect), instead of a runtime root',
  count: 'any',
} as const;

/** The store the options name, or record files; `undefined` when none is given. */
function storeSpec(ctx: CommandContext): StoreSpec | undefined {
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
  return ctx.operands.length > 0 ? { runtime: 'records', files: ctx.operands } : undefined;
}

async function podsOf(ctx: CommandContext): Promise<unknown[]> {
  return (await readObjects(ctx, [str(ctx.values, 'pods', true)])).map((o) => o.object.value);
}

function entryTable(entries: readonly NodePlanEntry[]): string {
  return table(
    ['action', 'pod', 'container', 'stored', 'to', 'id', 'reason'],
    entries.map((e) => [
      e.action,
      `${e.podNamespace ?? '?'}/${e.podName ?? e.podUid}`,
      e.containerName,
      e.observed.hash ?? null,
      e.computed.to ?? null,
      e.containerId?.slice(0, 13) ?? null,
      e.reason,
    ]),
  );
}

/** The runtime root a plan was made for (the store's root or graph root). */
const plannedRoot = (plan: NodeUpgradePlan): string | undefined =>
  'root' in plan.store ? plan.store.root : 'graphRoot' in plan.store ? plan.store.graphRoot : undefined;
const findings = (plan: NodeUpgradePlan): boolean => plan.counts['will-restart'] + plan.counts.unknown > 0;
const backupDirOf = (ctx: CommandContext, planFile: string): string =>
  str(ctx.values, 'backup-dir') ?? `${planFile}.backup`;

const entryRow = z.looseObject({
  action: z.enum(['keep', 'rewrite', 'will-restart', 'unknown']),
  reason: z.string(),
  podUid: z.string(),
  containerName: z.string(),
  containerId: z
    .string()
    .optional()
    .describe("the runtime's container id (absent for an API container without record)"),
  location: z.string().optional().describe('where the record lives: a file, or meta.db#bucket/path'),
  fingerprint: z.string().optional().describe('xxHash64 of the record as read'),
});
const planSummary = z.looseObject({
  from: z.string(),
  to: z.string(),
  counts: z.record(z.string(), z.number().int()).describe('entries per action'),
  out: z.string().nullable().describe('the plan file written, when --out was given'),
});

/** The controllers' `plan`, extended to read a runtime's persisted store and to write a plan file. */
export function withNodeStores(base: CommandDef): CommandDef {
  return {
    ...base,
    description: `${base.description} With a runtime root (--containerd-root, --crio-root, --docker-root) or --out, it writes the plan file \`apply\` takes (format kubelet-hash/upgrade-plan version 1, keys sorted: the same node state gives the same bytes): per container the runtime, where its record lives, pod and container, the stored hash, what the --from and --to kubelets compute, the action with its reason, and an xxHash64 fingerprint of the record as read. Reading a store is read-only; the runtime may still run. See docs/in-place-kubelet-upgrade.md.`,
    options: {
      ...base.options,
      ...(base.options['from'] ? { from: { ...base.options['from'], required: false } } : {}),
      ...KUBELET_SOURCE_OPTIONS,
      ...STORE_OPTIONS,
      out: { type: 'string', value: 'PLAN.json', description: 'write the plan file there (- for standard output)' },
    },
    operands: [RECORDS],
    examples: [
      ...base.examples,
      {
        comment: 'plan a containerd node, for apply',
        command:
          'kubelet-hash plan --from 1.30 --to 1.31 --pods pods.yaml --containerd-root /var/lib/containerd --out plan.json',
      },
    ],
    // The report over record files keeps its rows; a plan file's rows are its entries.
    output: { row: z.union([base.output.row, entryRow]), summary: z.union([base.output.summary, planSummary]) },
    async run(ctx): Promise<CommandResult> {
      const spec = storeSpec(ctx);
      const out = str(ctx.values, 'out');
      if (spec?.runtime === 'records' && out === undefined) return base.run(ctx);
      if (!spec)
        throw new UsageError(
          'give the records: a runtime root (--containerd-root, --crio-root, --docker-root) or record files',
        );
      const gates = featureGates(ctx);
      ctx.progress(0, 1, `reading the ${spec.runtime} records`);
      const plan = await planNodeUpgrade({
        pods: await podsOf(ctx),
        from: await kubeletVersionOf(ctx, 'from'),
        to: str(ctx.values, 'to', true),
        store: spec,
        ...(gates ? { featureGates: gates } : {}),
      });
      const text = formatNodePlan(plan);
      const written = out !== undefined && out !== '-' ? out : null;
      if (written !== null) writeFileSync(written, text);
      const c = plan.counts;
      const human =
        written === null
          ? text
          : `${entryTable(plan.entries.filter((e) => e.action !== 'keep'))}# ${plan.from} -> ${plan.to}: keep ${c.keep}, rewrite ${c.rewrite}, will-restart ${c['will-restart']}, unknown ${c.unknown}; plan written to ${written}\n`;
      return {
        exitCode: findings(plan) ? 1 : 0,
        rows: plan.entries as unknown as Record<string, unknown>[],
        summary: { from: plan.from, to: plan.to, counts: c, out: written },
        text: human,
      };
    },
  };
}

const apply: CommandDef = {
  name: 'apply',
  summary:
    "apply a plan: rewrite the stored hashes in the stopped runtime's records (one transaction for containerd), with backups",
  description:
    "Re-reads every record of the plan and refuses (exit 2, STORE_CHANGED) if any fingerprint changed since the plan; refuses while the runtime runs (STORE_LOCKED: containerd holds the lock on meta.db; RUNTIME_RUNNING: a crio or dockerd on that root) or when docker's live-restore is off (LIVE_RESTORE_OFF); checks meta.db's invariants before and after. Then backs up every file it changes (with a manifest rollback reads) and rewrites all hashes at once: one bbolt transaction for containerd (pages synced before the meta page), an atomic replace (fsync, rename) per file for CRI-O and docker. Prints what it changed.",
  options: {
    'backup-dir': {
      type: 'string',
      value: 'DIR',
      description: 'where backups and the manifest go (default PLAN.json.backup/)',
    },
    'dry-run': {
      type: 'boolean',
      description: 'check everything (lock, fingerprints, stored hashes, store checks) and write nothing',
    },
    ...ENDPOINT_OPTIONS,
  },
  operands: [{ name: 'PLAN.json', description: 'a plan file written by plan --out', count: 'one' }],
  examples: [
    { comment: 'check first', command: 'kubelet-hash apply plan.json --dry-run' },
    {
      comment: 'containerd stopped: apply, with backups',
      command: 'kubelet-hash apply plan.json --backup-dir /var/backups/kubelet-hash',
    },
  ],
  output: {
    row: z.object({ containerId: z.string(), location: z.string(), from: z.string(), to: z.string() }),
    summary: z.looseObject({
      dryRun: z.boolean(),
      changed: z.number().int(),
      manifest: z.string().nullable().describe('the backup manifest rollback reads'),
      timings: z.record(z.string(), z.number()).nullable().describe('milliseconds per step'),
    }),
  },
  async run(ctx) {
    const file = ctx.operands[0] ?? '-';
    const plan = parseNodePlan(await readInput(file, ctx.io));
    checkPlanRoot(ctx.values, plannedRoot(plan));
    const dryRun = flag(ctx.values, 'dry-run');
    const report = await applyNodePlan(plan, {
      ...(dryRun ? { dryRun } : { backupDir: backupDirOf(ctx, file) }),
      progress: (line) => {
        ctx.progress(0, 1, line);
      },
    });
    const steps = report.timings
      ? ` (${Object.entries(report.timings)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(', ')})`
      : '';
    const text =
      report.changed
        .map((c) => `${dryRun ? 'would rewrite' : 'rewrote'} ${c.containerId} ${c.from} -> ${c.to}\n`)
        .join('') +
      `# ${dryRun ? 'dry run: would rewrite' : 'rewrote'} ${report.changed.length} records${steps}${report.manifest ? `; backup manifest ${report.manifest}` : ''}\n`;
    return {
      exitCode: 0,
      rows: report.changed,
      summary: {
        dryRun: report.dryRun,
        changed: report.changed.length,
        manifest: report.manifest ?? null,
        timings: report.timings ?? null,
      },
      text,
    };
  },
};

const verify: CommandDef = {
  name: 'verify',
  summary: "check that every container's stored hash is what the kubelet computes and would keep",
  description:
    "Reads the records as plan does and checks each against what kubelet --kubelet computes for the API pod, with that release's restart rule: exit 0 only when it keeps every container, 1 with the containers that would restart or are unknown.",
  options: {
    kubelet: {
      type: 'string',
      required: true,
      value: 'VERSION',
      description: 'the kubelet version now on the node (required, or --kubelet-binary / --node-object)',
    },
    ...KUBELET_SOURCE_OPTIONS,
    pods: {
      type: 'string',
      required: true,
      value: 'FILE',
      description: 'the API pods: kubectl get pods -o yaml|json (required)',
    },
    'feature-gates': { type: 'string', value: 'G=BOOL,…', description: "that kubelet's --feature-gates" },
    ...STORE_OPTIONS,
  },
  operands: [RECORDS],
  examples: [
    {
      comment: 'after apply and the runtime restart',
      command: 'kubelet-hash verify --kubelet 1.31 --pods pods.yaml --containerd-root /var/lib/containerd',
    },
  ],
  finding: 'some container would restart or is unknown',
  output: {
    row: entryRow,
    summary: z.object({ kubelet: z.string(), ok: z.boolean(), counts: z.record(z.string(), z.number().int()) }),
  },
  async run(ctx) {
    const spec = storeSpec(ctx);
    if (!spec)
      throw new UsageError(
        'give the records: a runtime root (--containerd-root, --crio-root, --docker-root) or record files',
      );
    const gates = featureGates(ctx);
    const { ok, plan } = await verifyNode({
      kubelet: await kubeletVersionOf(ctx, 'kubelet'),
      pods: await podsOf(ctx),
      store: spec,
      ...(gates ? { featureGates: gates } : {}),
    });
    const others = plan.entries.filter((e) => e.action !== 'keep');
    const text = `${others.length > 0 ? entryTable(others) : ''}# ${plan.to}: ${plan.counts.keep} of ${plan.entries.length} containers keep running${ok ? '' : '; the others would restart or are unknown'}\n`;
    return {
      exitCode: ok ? 0 : 1,
      rows: plan.entries as unknown as Record<string, unknown>[],
      summary: { kubelet: plan.to, ok, counts: plan.counts },
      text,
    };
  },
};

const rollback: CommandDef = {
  name: 'rollback',
  summary: 'restore the records apply backed up for a plan (the runtime must be stopped)',
  description:
    'Reads the manifest apply wrote in the backup directory, checks every backup still has the fingerprint recorded there, refuses while the runtime runs (as apply does), and puts each file back atomically: the store is then byte for byte what it was before apply.',
  options: {
    'backup-dir': {
      type: 'string',
      value: 'DIR',
      description: 'the backup directory given to apply (default PLAN.json.backup/)',
    },
  },
  operands: [{ name: 'PLAN.json', description: 'the plan that was applied', count: 'one' }],
  examples: [
    {
      comment: 'containerd stopped',
      command: 'kubelet-hash rollback plan.json --backup-dir /var/backups/kubelet-hash',
    },
  ],
  output: {
    row: z.object({ original: z.string(), backup: z.string(), fingerprint: z.string() }),
    summary: z.object({ restored: z.number().int() }),
  },
  async run(ctx) {
    const file = ctx.operands[0] ?? '';
    // The plan must exist and parse: a mistyped name should not go looking for PLAN.backup.
    parseNodePlan(readFileSync(file, 'utf8'));
    const restored = await rollbackNodePlan(backupDirOf(ctx, file));
    const text =
      restored.map((b) => `restored ${b.original} from ${b.backup}\n`).join('') +
      `# restored ${restored.length} files\n`;
    return { exitCode: 0, rows: restored.map((b) => ({ ...b })), summary: { restored: restored.length }, text };
  },
};

export const UPGRADE_COMMANDS: CommandDef[] = [apply, verify, rollback];
