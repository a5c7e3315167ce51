/**
 * Apply, verify and roll back an in-place upgrade plan. Apply re-reads every record of the plan and
 * refuses when any fingerprint changed, then hands the rewrites to the store (one bbolt
 * transaction for containerd; an atomic replace per file for CRI-O and docker), which refuses
 * while the runtime runs. With a backup directory it writes a manifest there that rollback reads.
 */
import { mkdirSync } from 'node:fs';
import { readBounded } from './bounded-read.js';
import { join, resolve } from 'node:path';
import { lazySchema } from '../on-demand.js';
import { parseWith, StoreError } from '../errors.js';
import type { FeatureGates } from '../kubelet/index.js';
import {
  fingerprinter,
  writeFileAtomic,
  type ApplyReport,
  type BackupEntry,
  type CommitHooks,
  type RecordPrint,
  type RestoreReport,
  type StoreRewrite,
} from '../stores/index.js';
import { checkNodePlan, formatNodePlan, storeSpecSchema, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { planFromRecords, readNodeRecords } from './node-plan.js';
import { normalizeStoreSpec, openStore } from './store-spec.js';
import { checkRecomputedTargets } from './recompute-targets.js';
import { checkSandboxesAsPlanned } from './sandbox-view.js';
import type { AuditStamp } from './audit.js';

/** The manifest apply leaves in the backup directory. */
export const MANIFEST_NAME = 'kubelet-hash-backup.json';

const manifestSchema = lazySchema((z) =>
  z.object({
    kind: z.literal('kubelet-hash/backup'),
    version: z.literal(1),
    plan: z.string(),
    store: storeSpecSchema(),
    backups: z.array(
      z.object({
        original: z.string(),
        backup: z.string(),
        fingerprint: z.string(),
        mode: z.number().int().optional(),
        uid: z.number().int().optional(),
        gid: z.number().int().optional(),
        after: z.string().optional(),
      }),
    ),
    // The store's records before apply (`fingerprint`) and as apply left them (`after`); absent in
    // manifests of kubelet-hash 0.1.0.
    records: z
      .array(
        z.object({ containerId: z.string(), fingerprint: z.string(), after: z.string(), name: z.string().optional() }),
      )
      .optional(),
  }),
);

/** Every record the plan read from the store, as a print (the whole store as planned). */
function plannedRecords(plan: NodeUpgradePlan): RecordPrint[] {
  return plan.entries.flatMap((e) =>
    e.containerId !== undefined && e.fingerprint !== undefined
      ? [
          {
            containerId: e.containerId,
            fingerprint: e.fingerprint,
            name: `${e.podNamespace ?? ''}/${e.podName ?? e.podUid} ${e.containerName}`,
          },
        ]
      : [],
  );
}

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
  /** When, where and by what this apply runs ({@link auditStamp}): the report carries it. */
  audit?: AuditStamp;
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
  /** The plan's own audit stamp (when it has one) and this apply's ({@link ApplyNodePlanOptions.audit}). */
  audit?: { plan?: AuditStamp; apply?: AuditStamp };
}

/**
 * Applies the rewrites of a plan to the node's runtime store. Refuses (nothing written) a plan that
 * is not consistent ({@link checkNodePlan}), and ({@link StoreError}) a store whose records are not
 * exactly those the plan read (a record added, removed or changed), a runtime that holds its store,
 * a store that fails its checks, or a store or backup directory that cannot be written.
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
  checkNodePlan(plan);
  // The targets are apply's own: computed again from each rewrite's container.
  checkRecomputedTargets(plan);
  const progress = options.progress ?? (() => {});
  const store = openStore(plan.store);
  const planned = plannedRecords(plan);
  const rewrites: StoreRewrite[] = plan.entries.flatMap((e) =>
    e.action === 'rewrite' && e.containerId !== undefined && e.fingerprint !== undefined
      ? [{ containerId: e.containerId, fingerprint: e.fingerprint, change: e.change }]
      : [],
  );
  progress(
    `${options.dryRun ? 'checking' : 'applying'} ${rewrites.length} rewrites over ${planned.length} ${plan.store.runtime} records`,
  );
  const backupDir = options.backupDir !== undefined ? resolve(options.backupDir) : undefined;
  const fp = await fingerprinter();
  let manifest: string | undefined;
  // The manifest is made durable before the store's first write: a crash in the middle of the write
  // leaves a node that rollback can restore. It is written again once the store is written, with
  // each file as apply left it.
  const writeManifest = (backups: BackupEntry[], after: readonly RecordPrint[]): void => {
    if (backupDir === undefined) return;
    manifest = join(backupDir, MANIFEST_NAME);
    mkdirSync(backupDir, { recursive: true });
    const afterOf = new Map(after.map((a) => [a.containerId, a.fingerprint]));
    const body = {
      kind: 'kubelet-hash/backup',
      version: 1,
      plan: fp(Buffer.from(formatNodePlan(plan))),
      store: plan.store,
      backups,
      records: planned.map((p) => ({ ...p, after: afterOf.get(p.containerId) ?? p.fingerprint })),
    };
    writeFileAtomic(manifest, Buffer.from(`${JSON.stringify(body, null, 2)}\n`));
  };
  const report: ApplyNodePlanReport = await store.apply(rewrites, {
    planned,
    ...(backupDir !== undefined ? { backupDir } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    checkView: () => {
      checkSandboxesAsPlanned(plan);
    },
    beforeWrite: writeManifest,
  });
  if (plan.audit || options.audit)
    report.audit = {
      ...(plan.audit ? { plan: plan.audit } : {}),
      ...(options.audit ? { apply: options.audit } : {}),
    };
  if (report.alreadyApplied) {
    progress('already applied: every record is as this plan leaves it; nothing written');
    return report;
  }
  if (backupDir !== undefined && !report.dryRun) {
    writeManifest(report.backups, report.after ?? planned);
    report.manifest = manifest;
  }
  return report;
}

/**
 * Options of {@link rollbackNodePlan}.
 *
 * @example
 * ```ts
 * import type { RollbackNodePlanOptions } from 'kubelet-hash/node';
 * const options: RollbackNodePlanOptions = { force: true };
 * options.force; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RollbackNodePlanOptions {
  /** Restore even when the store changed since apply; the report lists what was lost. */
  force?: boolean;
  /** The most bytes the backup manifest may have; a bigger one is refused (`STORE_IO`, EFBIG) before it is read whole. Default: no limit (the CLI passes `--max-input-size`). */
  maxManifestBytes?: number;
}

/**
 * Restores what {@link applyNodePlan} backed up into `backupDir` (the runtime must be stopped).
 * Refuses (`STORE_CHANGED`) a store that changed since apply (a container recorded, removed or
 * changed since: the restore would lose it) unless `force`, and a manifest without the post-apply
 * state (kubelet-hash 0.1.0) unless `force`. Returns the files restored and what was lost.
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
export async function rollbackNodePlan(
  backupDir: string,
  options: RollbackNodePlanOptions = {},
): Promise<RestoreReport> {
  const path = join(resolve(backupDir), MANIFEST_NAME);
  const text = readBounded(path, options.maxManifestBytes ?? Number.MAX_SAFE_INTEGER, 'a backup manifest').toString(
    'utf8',
  );
  const expected = `a kubelet-hash backup manifest at ${path}`;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StoreError('STORE_CORRUPT', [], expected, String(e), path);
  }
  // The path names the field inside the manifest.
  const manifest = parseWith(
    manifestSchema(),
    doc,
    ({ path: at, message }) => new StoreError('STORE_CORRUPT', at, expected, message, path),
  );
  return openStore(manifest.store).restore(manifest.backups, {
    ...(manifest.records ? { records: manifest.records } : {}),
    ...(options.force ? { force: true } : {}),
  });
}

/**
 * Options of {@link verifyNode}.
 *
 * @example
 * ```ts
 * import type { VerifyNodeInput } from 'kubelet-hash/node';
 * const input: VerifyNodeInput = { kubeletVersion: '1.31', pods: [], store: { runtime: 'docker', root: '/var/lib/docker' } };
 * input.kubeletVersion; // → '1.31'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface VerifyNodeInput {
  /** The kubelet version now on the node (after the upgrade). */
  kubeletVersion: string;
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
  /** The most bytes one record file may have (see {@link PlanNodeUpgradeInput.maxRecordFileBytes}). */
  maxRecordFileBytes?: number;
}

/**
 * What {@link verifyNode} found.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { verifyNode, type VerifyNodeResult } from 'kubelet-hash/node';
 * const root = mkdtempSync(join(tmpdir(), 'docker-'));
 * const result: VerifyNodeResult = await verifyNode({ kubeletVersion: '1.31', pods: [], store: { runtime: 'docker', root } });
 * result.plan.to; // → '1.31'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface VerifyNodeResult {
  /** True when every container is kept by the kubelet as it stands. */
  ok: boolean;
  /** The verification as a plan from the kubelet to itself: the entries that are not `keep` say why. */
  plan: NodeUpgradePlan;
}

/**
 * Checks that every container's stored hash is what `kubeletVersion` computes and that its restart rule
 * keeps the container: `ok` is true only then. The entries say why for the others.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { verifyNode } from 'kubelet-hash/node';
 * const root = mkdtempSync(join(tmpdir(), 'docker-'));
 * (await verifyNode({ kubeletVersion: '1.31', pods: [], store: { runtime: 'docker', root } })).ok; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function verifyNode(
  input:
    | VerifyNodeInput
    | (Omit<VerifyNodeInput, 'kubeletVersion'> & {
        /** @deprecated The release is `kubeletVersion`, as everywhere else; `kubelet` is still read. */
        kubelet: string;
      }),
): Promise<VerifyNodeResult> {
  // The one reader of the older spelling.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const kubelet = 'kubeletVersion' in input ? input.kubeletVersion : input.kubelet;
  const store = normalizeStoreSpec(input.store);
  const { records, unreadable } = await readNodeRecords(store, input.maxRecordFileBytes);
  const plan = planFromRecords(
    {
      pods: input.pods,
      from: kubelet,
      to: kubelet,
      ...(input.featureGates ? { featureGates: input.featureGates } : {}),
      ...(input.nodeName !== undefined ? { nodeName: input.nodeName } : {}),
    },
    store,
    records,
    unreadable,
  );
  return { ok: plan.entries.every((e) => e.action === 'keep'), plan };
}
