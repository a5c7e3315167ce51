/**
 * Apply, verify and roll back an in-place upgrade plan. Apply re-reads every record of the plan and
 * refuses when any fingerprint changed, then hands the rewrites to the store (one bbolt
 * transaction for containerd; an atomic replace per file for CRI-O and docker), which refuses
 * while the runtime runs. With a backup directory it writes a rollback point there (rollback-point.ts),
 * which rollback finds by the plan's digest.
 */
import { resolve } from 'node:path';
import type { FeatureGates } from '../kubelet/index.js';
import type {
  ApplyReport,
  CommitHooks,
  RecordBackup,
  RecordPrint,
  RestoreReport,
  StoreRewrite,
} from '../stores/index.js';
import { checkNodePlan, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { planFromRecords, readNodeRecords } from './node-plan.js';
import { checkBackupDirectory, findRollbackPoint, PLAN_COPY_NAME, writeRollbackPoint } from './rollback-point.js';
import { normalizeStoreSpec, openStore } from './store-spec.js';
import { checkRecomputedTargets } from './recompute-targets.js';
import { checkSandboxesAsPlanned } from './sandbox-view.js';
import type { AuditStamp } from './audit.js';
import { StoreError } from '../errors.js';

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
  /** Where rollback points go (one new directory per apply that writes); without it nothing is backed up. */
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
 * const report: ApplyNodePlanReport = { changed: [], dryRun: false, manifest: '/var/backups/kubelet-hash/0123456789abcdef-20261204T190000000Z/kubelet-hash-backup.json' };
 * report.manifest?.endsWith('kubelet-hash-backup.json'); // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ApplyNodePlanReport extends ApplyReport {
  /** The rollback point's manifest, when apply wrote one (never when it had nothing to rewrite). */
  manifest?: string;
  /** The plan's own audit stamp (when it has one) and this apply's ({@link ApplyNodePlanOptions.audit}). */
  audit?: {
    /** The plan's own stamp: when, where and by what it was made. */
    plan?: AuditStamp;
    /** This apply's. */
    apply?: AuditStamp;
  };
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
  // Before anything (the dry run's writability probe included) goes into it.
  if (backupDir !== undefined) checkBackupDirectory(backupDir);
  let manifest: string | undefined;
  // The rollback point is made durable before the store's first write, complete (the records as
  // they were, and the fingerprints they will have): a crash in the middle leaves a node rollback
  // can restore. Nothing to rewrite: nothing written, no rollback point.
  const writeBackup = (records: RecordBackup[], after: readonly RecordPrint[]): void => {
    if (backupDir !== undefined && records.length > 0)
      manifest = writeRollbackPoint(backupDir, plan, records, planned, after, undefined, options.audit);
  };
  const report: ApplyNodePlanReport = await store.apply(rewrites, {
    planned,
    ...(backupDir !== undefined ? { backupDir } : {}),
    ...(options.dryRun || rewrites.length === 0 ? { dryRun: true } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    checkView: () => {
      checkSandboxesAsPlanned(plan);
    },
    beforeWrite: writeBackup,
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
  if (!options.dryRun) report.dryRun = false;
  if (manifest !== undefined) report.manifest = manifest;
  return report;
}

/**
 * Options of {@link rollbackNodePlan}.
 *
 * @example
 * ```ts
 * import type { RollbackNodePlanOptions } from 'kubelet-hash/node';
 * const options: RollbackNodePlanOptions = { backupDir: '/var/backups/kubelet-hash', force: true };
 * options.force; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RollbackNodePlanOptions {
  /** The backup directory given to apply. */
  backupDir: string;
  /** Put back records that changed again since apply too; the report lists what was lost. */
  force?: boolean;
  /** The most bytes the rollback manifest may have; a bigger one is refused (`STORE_IO`, EFBIG) before it is read. Default: no limit (the CLI passes `--max-input-size`). */
  maxManifestBytes?: number;
}

/**
 * What {@link rollbackNodePlan} did.
 *
 * @example
 * ```ts
 * import type { RollbackNodePlanReport } from 'kubelet-hash/node';
 * const report: RollbackNodePlanReport = { restored: [], unchanged: [], lost: [] };
 * report.restored.length; // → 0
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RollbackNodePlanReport extends RestoreReport {
  /** The rollback point's manifest read (none when the plan rewrites nothing). */
  manifest?: string;
}

/**
 * Puts back the records {@link applyNodePlan} rewrote for `plan`, as they were before, and nothing
 * else (the runtime must be stopped). Reads the plan's own rollback point in `backupDir` (named by
 * the plan's digest; a manifest bound to another plan, store or node, a symlink, a file or
 * directory not ours and private is refused) and hands the records to the store, which refuses a
 * record gone since apply or (unless `force`) changed again since, and reads every record back.
 * Without its rollback point: a plan whose rewritten records all still read as planned (apply
 * stopped before writing) has nothing to roll back; so has a plan without rewrites, unless the
 * backup directory holds other plans' rollback points (the runbook run twice: refused, naming
 * them); anything else is refused (`STORE_IO`).
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { planNodeUpgrade, rollbackNodePlan } from 'kubelet-hash/node';
 * const root = mkdtempSync(join(tmpdir(), 'docker-'));
 * const plan = await planNodeUpgrade({ pods: [], from: '1.30', to: '1.31', store: { runtime: 'docker', root } });
 * (await rollbackNodePlan(plan, { backupDir: join(root, 'backup') })).restored; // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export async function rollbackNodePlan(
  plan: NodeUpgradePlan,
  options: RollbackNodePlanOptions,
): Promise<RollbackNodePlanReport> {
  checkNodePlan(plan);
  const backupDir = resolve(options.backupDir);
  const { own: point, others } = findRollbackPoint(backupDir, plan, options.maxManifestBytes);
  const rewrites = plan.entries.flatMap((e) =>
    e.action === 'rewrite' && e.containerId !== undefined ? [{ id: e.containerId, fingerprint: e.fingerprint }] : [],
  );
  if (!point) {
    // Apply stopped before its rollback point (so before any write): every record it would have
    // rewritten still reads as planned, and that is what a rollback must leave.
    if (rewrites.length > 0) {
      const now = new Map((await openStore(plan.store).list()).map((c) => [c.containerId, c.fingerprint]));
      if (rewrites.every((r) => now.get(r.id) === r.fingerprint))
        return { restored: [], unchanged: rewrites.map((r) => r.id), lost: [] };
    }
    // The runbook run twice: this plan (made after an apply) rewrites nothing, but an earlier one
    // did; saying "restored 0" would leave its hashes in place.
    if (rewrites.length === 0 && others.length === 0) return { restored: [], unchanged: [], lost: [] };
    throw new StoreError(
      'STORE_IO',
      [],
      `the rollback point of this plan in ${backupDir} (apply writes one per plan it applies)`,
      `there is none${rewrites.length === 0 ? ' (this plan rewrites nothing)' : ' and the records it rewrites are not as planned'}${
        others.length > 0
          ? `; rollback points of other plans are there: ${others.join(', ')}; roll one back with the plan kept in it: kubelet-hash rollback ${others[0]}/${PLAN_COPY_NAME} --backup-dir ${backupDir}`
          : ''
      }; nothing was written`,
      backupDir,
    );
  }
  const report = await openStore(plan.store).restoreRecords(point.records, options.force ? { force: true } : {});
  return { ...report, manifest: point.manifest };
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
