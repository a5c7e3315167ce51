/**
 * CLI commands that change a node's records: `apply` a plan file (commands-plan.ts writes it) and
 * `rollback`. Exit codes: 0 done, 2 refused or bad input.
 */
import { z } from 'zod';
import { applyNodePlan, parseNodePlan, rollbackNodePlan, type NodeUpgradePlan } from '../node-upgrade/index.js';
import { flag, str, type CommandContext, type CommandDef } from './command.js';
import { ENDPOINT_OPTIONS, checkPlanRoot } from './discovery-options.js';
import { within } from './inputs.js';
import { DEFAULT_MAX_INPUT, readInput } from './io.js';
import { commandAudit } from './audit.js';

/** The runtime root a plan was made for (the store's root or graph root), and its key in the plan. */
const plannedRoot = (plan: NodeUpgradePlan): { root: string; key: string } | undefined =>
  'root' in plan.store
    ? { root: plan.store.root, key: 'root' }
    : 'graphRoot' in plan.store
      ? { root: plan.store.graphRoot, key: 'graphRoot' }
      : undefined;
const backupDirOf = (ctx: CommandContext, planFile: string): string =>
  str(ctx.values, 'backup-dir') ?? `${planFile}.backup`;

const apply: CommandDef = {
  name: 'apply',
  summary:
    "apply a plan: rewrite the stored hashes in the stopped runtime's records (one transaction for containerd), with a rollback point",
  description:
    "Checks the plan file (its digest and its consistency: counts, hashes, each rewrite against its computed hashes; a hand edit is refused naming the field) and computes every rewrite's hashes again from the API container the plan carries: a plan whose hashes are not what the --from and --to kubelets compute is refused (INVALID_OPTION naming the entry), even with a valid digest (the digest catches accidental edits, not forged ones). Re-reads the store and refuses (exit 2, STORE_CHANGED) any difference from the plan: a record added, removed or changed since, and (containerd) a pod sandbox added, removed or changed since, naming the plan's and the store's views. A store that already is what the plan makes of it (every rewrite done, every other record as planned) is reported as already applied (exit 0, nothing written). Refuses while the runtime runs (STORE_LOCKED: containerd holds the lock on meta.db, or apply lost its own lock before the commit; RUNTIME_RUNNING: a crio or dockerd on that root, checked before the first file is replaced, during the writes, before the last and after it: every file already replaced is put back) or when docker's live-restore is off (LIVE_RESTORE_OFF); checks meta.db's invariants before and after, and that the store and the backup directory can be written (read-only mount, immutable or append-only file). Then writes a rollback point of its own (a new 0700 directory under the backup directory named by the plan's digest and the time, refused when it exists, is a symlink or is not ours; its manifest created exclusively, 0600, holding the rewritten records as they were, bound to the plan, the store and the node; nothing when there is nothing to rewrite) and rewrites all hashes at once: one bbolt transaction for containerd (pages synced before the meta page), an atomic replace (random temp name created exclusively, fsync, rename; mode and owner kept; a symlinked file written through to its target) per file for CRI-O and docker. Prints what it changed.",
  options: {
    'backup-dir': {
      type: 'string',
      value: 'DIR',
      description: 'where rollback points go, one new directory per apply (default PLAN.json.backup/, created 0700)',
    },
    'dry-run': {
      type: 'boolean',
      description:
        'check everything (lock, every record as planned, stored hashes, store checks, store and backup directory writable) and write nothing',
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
      alreadyApplied: z
        .boolean()
        .describe('the store already is what this plan makes of it: nothing was written (exit 0)'),
      audit: z
        .looseObject({})
        .describe("the plan's audit stamp (plan) and this run's (apply): createdAt, host, tool, command"),
    }),
  },
  async run(ctx) {
    const file = ctx.operands[0] ?? '-';
    // A plan file is applied as plan wrote it: with its digest, every field as written.
    const plan = parseNodePlan(await readInput(file, ctx.io), { requireDigest: true });
    within(file, null, [], () => {
      checkPlanRoot(ctx.values, plannedRoot(plan));
    });
    const dryRun = flag(ctx.values, 'dry-run');
    const report = await applyNodePlan(plan, {
      // A dry run checks the backup directory too (writable), without writing to it.
      ...(dryRun ? { dryRun } : {}),
      backupDir: backupDirOf(ctx, file),
      audit: commandAudit(ctx),
      progress: (line) => {
        ctx.progress(0, 1, line);
      },
    });
    const steps = report.timings
      ? ` (${Object.entries(report.timings)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(', ')})`
      : '';
    const rewrites = plan.counts.rewrite;
    const text = report.alreadyApplied
      ? `# already applied: the ${rewrites} rewrites of ${file} are in the store and every other record is as planned; nothing written\n`
      : report.changed
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
        alreadyApplied: report.alreadyApplied === true,
        audit: report.audit ?? {},
      },
      text,
    };
  },
};

const rollback: CommandDef = {
  name: 'rollback',
  summary: 'put back the records apply rewrote for a plan, and nothing else (the runtime must be stopped)',
  description:
    "Finds the plan's own rollback point in the backup directory (named by the plan's digest; the oldest when apply wrote several) and refuses any other: a manifest bound to another plan, store or node, a symlink, a directory or file not owned by us or readable by others (STORE_IO, STORE_CHANGED, STORE_CORRUPT). Refuses while the runtime runs (as apply does), a backup whose bytes are not its fingerprint, a record apply rewrote that is gone since or changed again since (STORE_CHANGED, naming the record; --force puts a changed one back anyway). Then puts back only the records apply rewrote, found by container id in the store (containerd: their extension values in one bbolt transaction, every other key left as it is now: images, other namespaces, leases, containers created since; CRI-O and docker: their files, atomically, written through a symlink, mode and owner as they are now without set-id bits), and exits 0 only after reading every one back holding its pre-apply bytes. Without its rollback point it exits 0 only when every record the plan rewrites still reads as planned (never applied), or the plan rewrites nothing and no other plan's rollback point is there; otherwise it refuses (STORE_IO) naming the other rollback points (the runbook run twice), each of which keeps its plan: rollback DIR/plan.json --backup-dir BACKUP.",
  options: {
    'backup-dir': {
      type: 'string',
      value: 'DIR',
      description: 'the backup directory given to apply (default PLAN.json.backup/)',
    },
    force: {
      type: 'boolean',
      description: 'restore even when the store changed since apply; prints each container record that is lost',
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
    row: z.object({ containerId: z.string(), location: z.string() }),
    summary: z.object({
      restored: z.number().int(),
      unchanged: z.number().int().describe('records that held their pre-apply bytes already'),
      manifest: z.string().nullable().describe('the rollback point read (none when the plan rewrites nothing)'),
      lost: z.array(z.string()).describe('what changed since apply and was lost (only with --force)'),
      audit: z.looseObject({}).describe("this run's audit stamp: createdAt, host, tool, command"),
    }),
  },
  async run(ctx) {
    const file = ctx.operands[0] ?? '';
    // The plan names its own rollback point (by its digest): rollback reads that one and no other.
    const plan = parseNodePlan(await readInput(file, ctx.io));
    const { restored, unchanged, lost, manifest } = await rollbackNodePlan(plan, {
      backupDir: backupDirOf(ctx, file),
      ...(flag(ctx.values, 'force') ? { force: true } : {}),
      maxManifestBytes: ctx.io.maxInputBytes ?? DEFAULT_MAX_INPUT,
    });
    const text =
      restored.map((r) => `restored ${r.containerId} ${r.location}\n`).join('') +
      unchanged.map((id) => `unchanged ${id} (held its pre-apply record already)\n`).join('') +
      lost.map((l) => `lost ${l}\n`).join('') +
      `# restored ${restored.length} records, each read back as it was before apply${manifest ? ` (from ${manifest})` : ''}${lost.length > 0 ? `; --force lost ${lost.length}` : ''}\n`;
    return {
      exitCode: 0,
      rows: restored.map((r) => ({ ...r })),
      summary: {
        restored: restored.length,
        unchanged: unchanged.length,
        lost,
        manifest: manifest ?? null,
        audit: commandAudit(ctx),
      },
      text,
    };
  },
};

export const UPGRADE_COMMANDS: CommandDef[] = [apply, rollback];
