/**
 * Apply, verify and roll back an in-place upgrade plan. Apply re-reads every record of the plan and
 * refuses when any fingerprint changed, then hands the rewrites to the store (one bbolt
 * transaction for containerd; an atomic replace per file for CRI-O and docker), which refuses
 * while the runtime runs. With a backup directory it writes a manifest there that rollback reads.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseWith, StoreError } from '../errors.js';
import type { FeatureGates } from '../kubelet/index.js';
import {
  fingerprinter,
  writeFileAtomic,
  type ApplyReport,
  type BackupEntry,
  type CommitHooks,
  type StoreRewrite,
} from '../stores/index.js';
import { formatNodePlan, storeSpecSchema, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { planFromRecords, readNodeRecords } from './node-plan.js';
import { normalizeStoreSpec, openStore } from './store-spec.js';

/** The manifest apply leaves in the backup directory. */
export const MANIFEST_NAME = 'kubelet-hash-backup.json';

const manifestSchema = z.object({
  kind: z.literal('kubelet-hash/backup'),
  version: z.literal(1),
  plan: z.string(),
  store: storeSpecSchema,
  backups: z.array(z.object({ original: z.string(), backup: z.string(), fingerprint: z.string() })),
});

/**
 * Options of {@link applyNodePlan}.
 *
 * @example
 * ```ts
 * import type { ApplyNodePlanOptions } from 'kubelet-hash/node';
 * const options: ApplyNodePlanOptions = { backupDir: '/var/backups/kubelet-hash', progress: (line) => process.stderr.write(`${line}\n`) };
 * options.backupDir; // → '/var/backups/kubelet-hash'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ApplyNodePlanOptions {
  /** Where to keep backups and the manifest rollback reads; without it nothing is backed up. */
  backupDir?: string;
  /** Check everything, write nothing. */
  dryRun?: boolean;
  /** Called with a line of progress now and then. */
  progress?: (line: string) => void;
  /**
   * Crash-safety test hooks, handed to the store.
   *
   * @internal
   */
  hooks?: CommitHooks;
}

/**
 * What {@link applyNodePlan} did.
 *
 * @example
 * ```ts
 * import type { ApplyNodePlanReport } from 'kubelet-hash/node';
 * const report: ApplyNodePlanReport = { changed: [], backups: [], dryRun: false, manifest: '/var/backups/kubelet-hash/kubelet-hash-backup.json' };
 * report.manifest; // → '/var/backups/kubelet-hash/kubelet-hash-backup.json'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ApplyNodePlanReport extends ApplyReport {
  /** The manifest written in the backup directory, when there is one. */
  manifest?: string;
}

/**
 * Applies the rewrites of a plan to the node's runtime store. Refuses ({@link StoreError}, nothing
 * written) when a record's fingerprint changed since the plan (or a record is gone), when the
 * runtime holds its store, or when the store fails its checks.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { applyNodePlan, planNodeUpgrade } from 'kubelet-hash/node';
 * const root = mkdtempSync(join(tmpdir(), 'crio-'));
 * const plan = await planNodeUpgrade({ pods: [], from: '1.30', to: '1.31', store: { runtime: 'cri-o', graphRoot: root } });
 * const report = await applyNodePlan(plan, { dryRun: true });
 * report.changed; // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function applyNodePlan(
  plan: NodeUpgradePlan,
  options: ApplyNodePlanOptions = {},
): Promise<ApplyNodePlanReport> {
  const progress = options.progress ?? (() => {});
  const store = openStore(plan.store);
  progress(`reading the ${plan.store.runtime} records`);
  const now = new Map((await store.list()).map((c) => [c.containerId, c]));
  const changed: string[] = [];
  for (const e of plan.entries) {
    if (e.containerId === undefined || e.fingerprint === undefined) continue;
    const cur = now.get(e.containerId);
    if (!cur) changed.push(`${e.containerId} is gone`);
    else if (cur.fingerprint !== e.fingerprint)
      changed.push(`${e.containerId} (${e.podNamespace ?? ''}/${e.podName ?? e.podUid} ${e.containerName}) changed`);
  }
  if (changed.length > 0) {
    throw new StoreError(
      'STORE_CHANGED',
      [],
      'every record as the plan read it (make a new plan)',
      `${changed.length} changed: ${changed.slice(0, 5).join('; ')}`,
    );
  }
  const rewrites: StoreRewrite[] = plan.entries.flatMap((e) =>
    e.action === 'rewrite' && e.containerId !== undefined && e.fingerprint !== undefined
      ? [{ containerId: e.containerId, fingerprint: e.fingerprint, change: e.change }]
      : [],
  );
  progress(`${options.dryRun ? 'checking' : 'applying'} ${rewrites.length} rewrites`);
  const backupDir = options.backupDir !== undefined ? resolve(options.backupDir) : undefined;
  const fp = await fingerprinter();
  let manifest: string | undefined;
  // The manifest is made durable before the store's first write: a crash in the middle of the write
  // leaves a node that rollback can restore.
  const writeManifest = (backups: BackupEntry[]): void => {
    if (backupDir === undefined) return;
    manifest = join(backupDir, MANIFEST_NAME);
    mkdirSync(backupDir, { recursive: true });
    const body = {
      kind: 'kubelet-hash/backup',
      version: 1,
      plan: fp(Buffer.from(formatNodePlan(plan))),
      store: plan.store,
      backups,
    };
    writeFileAtomic(manifest, Buffer.from(`${JSON.stringify(body, null, 2)}\n`));
  };
  const report: ApplyNodePlanReport = await store.apply(rewrites, {
    ...(backupDir !== undefined ? { backupDir } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    beforeWrite: writeManifest,
  });
  if (backupDir !== undefined && !report.dryRun) {
    if (manifest === undefined) writeManifest(report.backups);
    report.manifest = manifest;
  }
  return report;
}

/**
 * Restores what {@link applyNodePlan} backed up into `backupDir` (the runtime must be stopped).
 * Returns the files restored.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { rollbackNodePlan } from 'kubelet-hash/node';
 * const empty = mkdtempSync(join(tmpdir(), 'backup-'));
 * await rollbackNodePlan(empty).catch((e) => e.code); // → 'STORE_IO'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function rollbackNodePlan(backupDir: string): Promise<BackupEntry[]> {
  const path = join(resolve(backupDir), MANIFEST_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StoreError('STORE_IO', [], `a backup manifest at ${path}`, (e as { code?: string }).code ?? String(e));
  }
  const expected = `a kubelet-hash backup manifest at ${path}`;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StoreError('STORE_CORRUPT', [], expected, String(e));
  }
  // The path names the field inside the manifest.
  const manifest = parseWith(
    manifestSchema,
    doc,
    ({ path: at, message }) => new StoreError('STORE_CORRUPT', at, expected, message),
  );
  return openStore(manifest.store).restore(manifest.backups);
}

/**
 * Options of {@link verifyNode}.
 *
 * @example
 * ```ts
 * import type { VerifyNodeInput } from 'kubelet-hash/node';
 * const input: VerifyNodeInput = { kubelet: '1.31', pods: [], store: { runtime: 'docker', root: '/var/lib/docker' } };
 * input.kubelet; // → '1.31'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface VerifyNodeInput {
  /** The kubelet version now on the node (after the upgrade). */
  kubelet: string;
  /** The node's pods as the apiserver serves them. */
  pods:
    | readonly unknown[]
    | {
        /** The pods of a `PodList`. */
        items: readonly unknown[];
      };
  /** That kubelet's feature gates. */
  featureGates?: FeatureGates;
  /** Where the records are. */
  store: StoreSpec;
  /** The node's name (see {@link PlanNodeUpgradeInput.nodeName}). */
  nodeName?: string;
}

/**
 * Checks that every container's stored hash is what `kubelet` computes and that its restart rule
 * keeps the container: `ok` is true only then. The entries say why for the others.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { verifyNode } from 'kubelet-hash/node';
 * const root = mkdtempSync(join(tmpdir(), 'docker-'));
 * (await verifyNode({ kubelet: '1.31', pods: [], store: { runtime: 'docker', root } })).ok; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function verifyNode(input: VerifyNodeInput): Promise<{
  /** True when every container is kept by `kubelet` as it stands. */
  ok: boolean;
  /** The verification as a plan from `kubelet` to itself: the entries that are not `keep` say why. */
  plan: NodeUpgradePlan;
}> {
  const store = normalizeStoreSpec(input.store);
  const { records, unreadable } = await readNodeRecords(store);
  const plan = planFromRecords(
    {
      pods: input.pods,
      from: input.kubelet,
      to: input.kubelet,
      ...(input.featureGates ? { featureGates: input.featureGates } : {}),
      ...(input.nodeName !== undefined ? { nodeName: input.nodeName } : {}),
    },
    store,
    records,
    unreadable,
  );
  return { ok: plan.entries.every((e) => e.action === 'keep'), plan };
}
