/**
 * CLI commands of the in-place kubelet upgrade: `plan` (extended: with a runtime store or --out it
 * writes a plan file), `apply`, `verify`, `rollback`. Exit codes: 0 done, 1 a finding (containers
 * that would restart or are unknown), 2 refused or bad input (library errors), 64 usage.
 */
import { writeFileSync } from 'node:fs';
import {
  applyNodePlan,
  formatNodePlan,
  parseNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  verifyNode,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../upgrade/index.js';
import { onePositional, str, UsageError, type Command, type Values } from './command.js';
import { CONTROLLER_COMMANDS, featureGates } from './commands-controllers.js';
import { readInput, readJsonInput, type CliIO } from './io.js';

const STORE_OPTS = {
  'containerd-root': { type: 'string' },
  namespace: { type: 'string' },
  'crio-root': { type: 'string' },
  'crio-runroot': { type: 'string' },
  'docker-root': { type: 'string' },
  'docker-config': { type: 'string' },
} as const;
const STORE_USAGE =
  '(--containerd-root DIR [--namespace NS] | --crio-root DIR [--crio-runroot DIR] | --docker-root DIR [--docker-config FILE] | RECORD...)';

/** The store the options name, or record files; `undefined` when none is given. */
function storeSpec(values: Values, positionals: string[]): StoreSpec | undefined {
  const roots = ['containerd-root', 'crio-root', 'docker-root'].filter((k) => str(values, k) !== undefined);
  if (roots.length > 1)
    throw new UsageError(
      `give one of --containerd-root, --crio-root, --docker-root (got ${roots.map((r) => `--${r}`).join(', ')})`,
    );
  if (roots.length === 1 && positionals.length > 0)
    throw new UsageError('give a runtime root or record files, not both');
  const containerd = str(values, 'containerd-root');
  if (containerd !== undefined)
    return { runtime: 'containerd', root: containerd, namespace: str(values, 'namespace') ?? 'k8s.io' };
  const crio = str(values, 'crio-root');
  if (crio !== undefined) {
    const runRoot = str(values, 'crio-runroot');
    return { runtime: 'cri-o', graphRoot: crio, ...(runRoot !== undefined ? { runRoot } : {}) };
  }
  const docker = str(values, 'docker-root');
  if (docker !== undefined) {
    const daemonConfig = str(values, 'docker-config');
    return { runtime: 'docker', root: docker, ...(daemonConfig !== undefined ? { daemonConfig } : {}) };
  }
  return positionals.length > 0 ? { runtime: 'records', files: positionals } : undefined;
}

async function podsFrom(values: Values, io: CliIO): Promise<unknown[]> {
  const { doc } = await readJsonInput(str(values, 'pods', true), io);
  if (Array.isArray(doc)) return doc;
  if (doc !== null && typeof doc === 'object' && 'items' in doc && Array.isArray((doc as { items: unknown }).items))
    return (doc as { items: unknown[] }).items;
  return [doc];
}

/** Progress lines on stderr, only when a person is watching (a TTY). */
function progressOf(io: CliIO): ((line: string) => void) | undefined {
  return (io.stderr as { isTTY?: boolean }).isTTY ? (line) => io.stderr.write(`kubelet-hash: ${line}…\n`) : undefined;
}

function printEntries(io: CliIO, plan: NodeUpgradePlan, only?: (a: string) => boolean): void {
  for (const e of plan.entries) {
    if (only && !only(e.action)) continue;
    const where = `${e.podNamespace ?? '?'}/${e.podName ?? e.podUid}`;
    const hashes =
      e.observed.hash !== undefined || e.computed.to !== undefined
        ? ` ${e.observed.hash ?? '-'} -> ${e.computed.to ?? '-'}`
        : '';
    io.stdout.write(
      `${e.action.padEnd(12)} ${where} ${e.containerName}${hashes}${e.containerId ? ` [${e.containerId.slice(0, 12)}]` : ''}: ${e.reason}\n`,
    );
  }
}

const findings = (plan: NodeUpgradePlan): number => plan.counts['will-restart'] + plan.counts.unknown;
const backupDirOf = (values: Values, planFile: string): string => str(values, 'backup-dir') ?? `${planFile}.backup`;

/** The controllers' `plan` (the report over record files), which this `plan` extends. */
function legacyPlan(): Command {
  const plan = CONTROLLER_COMMANDS['plan'];
  if (!plan) throw new UsageError('plan: the report over record files is not available');
  return plan;
}

export const UPGRADE_COMMANDS: Record<string, Command> = {
  plan: {
    summary:
      "plan a kubelet upgrade: join the API pods with the node's records, verify and translate each hash; with a runtime root or --out, write a plan file for apply",
    usage: `--from VERSION --to VERSION --pods FILE ${STORE_USAGE} [--feature-gates G=true] [--out PLAN.json] [--json]`,
    options: { ...CONTROLLER_COMMANDS['plan']?.options, ...STORE_OPTS, out: { type: 'string' } },
    run: async (values, positionals, io) => {
      const spec = storeSpec(values, positionals);
      // Without a store root and without --out, the report of before (records given as files).
      if (spec?.runtime === 'records' && str(values, 'out') === undefined)
        return legacyPlan().run(values, positionals, io);
      if (!spec) throw new UsageError(`give the records: ${STORE_USAGE}`);
      const gates = featureGates(values);
      progressOf(io)?.(`reading the ${spec.runtime} records`);
      const plan = await planNodeUpgrade({
        pods: await podsFrom(values, io),
        from: str(values, 'from', true),
        to: str(values, 'to', true),
        store: spec,
        ...(gates ? { featureGates: gates } : {}),
      });
      const text = formatNodePlan(plan);
      const out = str(values, 'out');
      if (out === undefined || out === '-') io.stdout.write(text);
      else {
        writeFileSync(out, text);
        if (!values['json']) printEntries(io, plan, (a) => a !== 'keep');
        const c = plan.counts;
        io.stdout.write(
          `# ${plan.from} -> ${plan.to}: keep ${c.keep}, rewrite ${c.rewrite}, will-restart ${c['will-restart']}, unknown ${c.unknown}; plan written to ${out}\n`,
        );
      }
      return findings(plan) > 0 ? 1 : 0;
    },
  },
  apply: {
    summary:
      "apply a plan: rewrite the stored hashes in the stopped runtime's records (one transaction for containerd), with backups",
    usage: 'PLAN.json [--backup-dir DIR] [--dry-run] [--json]',
    options: { 'backup-dir': { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
    run: async (values, positionals, io) => {
      const file = onePositional(positionals);
      const plan = parseNodePlan(await readInput(file, io));
      const progress = progressOf(io);
      const dryRun = values['dry-run'] === true;
      const report = await applyNodePlan(plan, {
        ...(dryRun ? { dryRun } : { backupDir: backupDirOf(values, file) }),
        ...(progress ? { progress } : {}),
      });
      if (values['json']) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return 0;
      }
      for (const c of report.changed)
        io.stdout.write(`${dryRun ? 'would rewrite' : 'rewrote'} ${c.containerId} ${c.from} -> ${c.to}\n`);
      const steps = report.timings
        ? ` (${Object.entries(report.timings)
            .map(([k, v]) => `${k} ${v} ms`)
            .join(', ')})`
        : '';
      io.stdout.write(
        `# ${dryRun ? 'dry run: would rewrite' : 'rewrote'} ${report.changed.length} records${steps}${report.manifest ? `; backup manifest ${report.manifest}` : ''}\n`,
      );
      return 0;
    },
  },
  verify: {
    summary: "check that every container's stored hash is what the kubelet computes and would keep (exit 1 otherwise)",
    usage: `--kubelet VERSION --pods FILE ${STORE_USAGE} [--feature-gates G=true] [--json]`,
    options: {
      kubelet: { type: 'string' },
      pods: { type: 'string' },
      'feature-gates': { type: 'string' },
      json: { type: 'boolean' },
      ...STORE_OPTS,
    },
    run: async (values, positionals, io) => {
      const spec = storeSpec(values, positionals);
      if (!spec) throw new UsageError(`give the records: ${STORE_USAGE}`);
      const gates = featureGates(values);
      progressOf(io)?.(`reading the ${spec.runtime} records`);
      const { ok, plan } = await verifyNode({
        kubelet: str(values, 'kubelet', true),
        pods: await podsFrom(values, io),
        store: spec,
        ...(gates ? { featureGates: gates } : {}),
      });
      if (values['json']) io.stdout.write(formatNodePlan(plan));
      else {
        printEntries(io, plan, (a) => a !== 'keep');
        io.stdout.write(
          `# ${plan.to}: ${plan.counts.keep} of ${plan.entries.length} containers keep running${ok ? '' : '; the others would restart or are unknown'}\n`,
        );
      }
      return ok ? 0 : 1;
    },
  },
  rollback: {
    summary: 'restore the records apply backed up for a plan (the runtime must be stopped)',
    usage: 'PLAN.json [--backup-dir DIR]',
    options: { 'backup-dir': { type: 'string' } },
    run: async (values, positionals, io) => {
      const restored = await rollbackNodePlan(backupDirOf(values, onePositional(positionals)));
      for (const b of restored) io.stdout.write(`restored ${b.original} from ${b.backup}\n`);
      io.stdout.write(`# restored ${restored.length} files\n`);
      return 0;
    },
  },
};
