/**
 * The node's upgrade steps (machine.ts's `NodeSteps`) over the host: the plan made from the store
 * under the host's root and the node's pods, kept in the state directory as plan.json (so a
 * retried run reads the plan it gated, never a new one), apply and rollback with the rollback
 * points in the state directory's backup/, verify against the new kubelet, and the kubelet and the
 * runtime stopped, started and swapped by host commands (host-command.ts): systemd units or the
 * commands the step was given.
 */
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceEntryAtomic } from '../../stores/index.js';
import {
  applyNodePlan,
  formatNodePlan,
  parseNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  verifyNode,
  type AuditStamp,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../../node-upgrade/index.js';
import type { FeatureGates } from '../../kubelet/index.js';
import type { RestartCause, StartBlocker } from '../../plan/index.js';
import { runHost, type HostCommands } from './host-command.js';
import type { NodeSteps } from './machine.js';

/** The commands that stop and start each unit (several, in order; starting runs the runtime's in reverse). */
export interface UnitCommands {
  stop: Record<'kubelet' | 'runtime', readonly (readonly string[])[]>;
  start: Record<'kubelet' | 'runtime', readonly (readonly string[])[]>;
}

/** systemctl stop/start of the kubelet's unit and the runtime's units (stopped in order, started in reverse). */
export function systemdUnits(kubelet: string, runtime: readonly string[]): UnitCommands {
  const cmd = (verb: string) => (u: string) => ['systemctl', verb, u];
  return {
    stop: { kubelet: [cmd('stop')(kubelet)], runtime: runtime.map(cmd('stop')) },
    start: { kubelet: [cmd('start')(kubelet)], runtime: [...runtime].reverse().map(cmd('start')) },
  };
}

/** What the host steps work on. */
export interface HostUpgrade {
  from: string;
  to: string;
  /** The runtime's store, its paths as the agent sees them (under the host's root). */
  store: StoreSpec;
  nodeName?: string;
  /** The node's pods (listed again for verify: the pod list is never written to the node's disk). */
  pods: () => Promise<unknown[]>;
  /** This upgrade's private directory on the host: plan.json and backup/ (the journal beside them). */
  stateDir: string;
  host: HostCommands;
  units: UnitCommands;
  /** Installs the new kubelet (a host command). */
  swap: readonly string[];
  /** Prints the installed kubelet's version (a host command; `kubelet --version`). */
  kubeletVersion: readonly string[];
  audit?: AuditStamp;
  progress?: (line: string) => void;
  /** What would stop the target kubelet from starting (doctor --to's checks), read when the gate runs. */
  startBlockers?: () => Promise<readonly StartBlocker[]>;
  /**
   * The restart causes outside the hash that count for these pods (plan's, without the classes
   * the operator accepted), judged when the gate runs: each holds the upgrade as it fails plan.
   */
  restartCauses?: (pods: readonly unknown[]) => readonly RestartCause[];
  /** The target kubelet's feature gates, for the plan and verify. */
  featureGates?: FeatureGates;
}

/** `1.31` of `Kubernetes v1.31.14`, `v1.31`, `1.31`. */
const minorOf = (text: string): string | undefined => /v?(\d+)\.(\d+)/.exec(text)?.slice(1, 3).join('.');

/** The plan file gated, read back as written (its digest required), never through a symlink. */
function readPlan(path: string): NodeUpgradePlan {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return parseNodePlan(readFileSync(fd, 'utf8'), { requireDigest: true });
  } finally {
    closeSync(fd);
  }
}

/** The steps of `u`. */
export function hostSteps(u: HostUpgrade): NodeSteps {
  const planFile = join(u.stateDir, 'plan.json');
  const backupDir = join(u.stateDir, 'backup');
  let plan: NodeUpgradePlan | undefined;
  const thePlan = (): NodeUpgradePlan => (plan ??= readPlan(planFile));
  // The pods the plan was made from, when it was made by this run: the gate judges the same ones.
  let planned: unknown[] | undefined;
  const say = (line: string): void => u.progress?.(line);
  const runAll = async (argvs: readonly (readonly string[])[]): Promise<void> => {
    for (const argv of argvs) {
      say(`host: ${argv.join(' ')}`);
      await runHost(u.host, argv);
    }
  };
  return {
    async plan() {
      planned = await u.pods();
      const made = await planNodeUpgrade({
        store: u.store,
        pods: planned,
        from: u.from,
        to: u.to,
        ...(u.featureGates ? { featureGates: u.featureGates } : {}),
        ...(u.nodeName !== undefined ? { nodeName: u.nodeName } : {}),
        ...(u.audit ? { audit: u.audit } : {}),
      });
      replaceEntryAtomic(planFile, Buffer.from(formatNodePlan(made)));
      plan = made;
      const c = made.counts;
      say(
        `plan: ${c.keep} keep, ${c.rewrite} rewrite, ${c['will-restart']} will-restart, ${c.unknown} unknown (${planFile})`,
      );
    },
    async gate() {
      const c = thePlan().counts;
      const reasons: string[] = [];
      if (c['will-restart'] + c.unknown > 0)
        reasons.push(`${c['will-restart']} containers would restart, ${c.unknown} unknown`);
      // The same checks as doctor --to: a kubelet that will not start is no upgrade to begin.
      for (const b of (await u.startBlockers?.()) ?? []) {
        say(`start ${b.verdict === 'blocks' ? 'blocker' : 'unknown'}: ${b.subject}: ${b.message} [${b.source}]`);
        reasons.push(`start ${b.verdict === 'blocks' ? 'blocker' : 'unknown'} ${b.subject}`);
      }
      // What restarts containers when the new kubelet starts although every hash is kept: plan's
      // exit 1, so the gate's too (a retried gate, whose plan an earlier run made, lists them again).
      if (u.restartCauses) {
        for (const c of u.restartCauses(planned ?? (await u.pods()))) {
          say(`restart cause ${c.kind} (${c.verdict}, ${c.releases}) pod ${c.pod}: ${c.reason} [${c.source}]`);
          reasons.push(`restart cause ${c.kind} pod ${c.pod}`);
        }
      }
      return reasons;
    },
    stop: (unit) => runAll(u.units.stop[unit]),
    start: (unit) => runAll(u.units.start[unit]),
    async apply() {
      const r = await applyNodePlan(thePlan(), { backupDir, ...(u.audit ? { audit: u.audit } : {}) });
      say(`apply: ${r.alreadyApplied === true ? 'already applied' : `rewrote ${r.changed.length} records`}`);
    },
    async rollback() {
      const r = await rollbackNodePlan(thePlan(), { backupDir });
      say(`rollback: restored ${r.restored.length} records`);
    },
    swap: () => runAll([u.swap]),
    async installedKubelet() {
      const minor = minorOf(await runHost(u.host, u.kubeletVersion));
      return minor === minorOf(u.to) ? 'new' : minor === minorOf(u.from) ? 'old' : 'unknown';
    },
    async verify() {
      const r = await verifyNode({
        store: u.store,
        pods: await u.pods(),
        kubeletVersion: u.to,
        ...(u.featureGates ? { featureGates: u.featureGates } : {}),
        ...(u.nodeName !== undefined ? { nodeName: u.nodeName } : {}),
      });
      const c = r.plan.counts;
      if (!r.ok)
        throw new Error(
          `verify: ${c['will-restart']} will restart, ${c.unknown} unknown of ${r.plan.entries.length} containers`,
        );
      say(`verify: ${c.keep} of ${r.plan.entries.length} containers keep running`);
    },
  };
}
