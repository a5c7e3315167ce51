/**
 * The plan file of an in-place kubelet upgrade (`kubelet-hash plan --out PLAN.json`): versioned,
 * validated with zod when read, and written canonically (keys sorted with
 * fast-json-stable-stringify, entries in store order, no timestamps) so that the same node state
 * gives a byte-identical file.
 */
import stableStringify from 'fast-json-stable-stringify';
import { z } from 'zod';
import { CONTAINER_LISTS } from '../pod/locate.js';
import { OptionError, parseWith } from '../errors.js';
import { gateSettingsSchema, RESTART_RULES, type GateSettings, type RestartRuleId } from '../kubelet/index.js';
import type { PlanEntry } from './plan-upgrade.js';

/** The plan file's `kind`. */
export const PLAN_KIND = 'kubelet-hash/upgrade-plan' as const;
/** The plan file format version this package writes and reads. */
export const PLAN_VERSION = 1 as const;

/**
 * Where the records of a plan live: a runtime's persisted store, or record files given on the
 * command line (those can be planned, not applied: they are read-only views).
 *
 * @example
 * ```ts
 * import type { StoreSpec } from 'kubelet-hash/node';
 * const spec: StoreSpec = { runtime: 'containerd', root: '/var/lib/containerd', namespace: 'k8s.io' };
 * spec.runtime; // → 'containerd'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type StoreSpec =
  | {
      /** containerd's meta.db. */
      runtime: 'containerd';
      /** containerd's root directory. */
      root: string;
      /** The CRI plugin's containerd namespace. */
      namespace: string;
    }
  | {
      /** CRI-O's config.json files. */
      runtime: 'cri-o';
      /** containers/storage graphroot. */
      graphRoot: string;
      /** containers/storage runroot (its copies are rewritten too). */
      runRoot?: string;
    }
  | {
      /** docker's config.v2.json files. */
      runtime: 'docker';
      /** dockerd's data root. */
      root: string;
      /** dockerd's daemon.json (read for `live-restore`). */
      daemonConfig?: string;
    }
  | {
      /** Record files (crictl inspect, docker inspect, config.v2.json): plan only. */
      runtime: 'records';
      /** The files, absolute. */
      files: string[];
    };

/**
 * Where a node plan entry's record lives: the runtime, the file or bucket, and the record's
 * fingerprint as read (absent for an API container without record).
 *
 * @example
 * ```ts
 * import type { NodeRecordLocation } from 'kubelet-hash/node';
 * const where: NodeRecordLocation = { runtime: 'containerd', location: '/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db#v1/k8s.io/containers/c0ffee', fingerprint: '0123456789abcdef' };
 * where.runtime; // → 'containerd'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface NodeRecordLocation {
  /** The runtime that persisted the record. */
  runtime?: string;
  /** Where the record lives (a file, or `meta.db#bucket/path`). */
  location?: string;
  /** xxHash64 of the record as read (16 hex digits); apply refuses when it changed. */
  fingerprint?: string;
}

/**
 * One container of a plan file: `planUpgrade`'s entry (the same union by `action`, so a `rewrite`
 * always has its `change`) with where its record lives instead of its index in `records`.
 *
 * @example
 * ```ts
 * import type { NodePlanEntry } from 'kubelet-hash/node';
 * const entry: NodePlanEntry = { action: 'keep', reason: 'init containers are not compared', podUid: 'u1', containerName: 'setup', observed: {}, computed: {} };
 * entry.action; // → 'keep'
 * const hashes = (e: NodePlanEntry) => (e.action === 'rewrite' ? `${e.change.from.hash} -> ${e.change.to.hash}` : e.action);
 * hashes(entry); // → 'keep'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type NodePlanEntry = PlanEntry<NodeRecordLocation>;

/**
 * An in-place upgrade plan for one node: the releases, where the records are, and per container
 * what to do, with the record's fingerprint as read.
 *
 * @example
 * ```ts
 * import { parseNodePlan, type NodeUpgradePlan } from 'kubelet-hash/node';
 * const plan: NodeUpgradePlan = parseNodePlan(JSON.stringify({
 *   kind: 'kubelet-hash/upgrade-plan', version: 1, from: '1.30', to: '1.31',
 *   store: { runtime: 'docker', root: '/var/lib/docker' },
 *   counts: { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 }, entries: [],
 * }));
 * plan.store.runtime; // → 'docker'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface NodeUpgradePlan {
  /** Always `kubelet-hash/upgrade-plan`. */
  kind: typeof PLAN_KIND;
  /** The format version, 1. */
  version: typeof PLAN_VERSION;
  /** The current kubelet release (minor). */
  from: string;
  /** The release the node moves to. */
  to: string;
  /** The `to` kubelet's feature gates, as read (booleans, names the library models). */
  featureGates?: GateSettings;
  /** Where the records are. */
  store: StoreSpec;
  /** How many entries have each action. */
  counts: {
    /** Entries the new kubelet keeps as they are. */
    keep: number;
    /** Entries apply rewrites. */
    rewrite: number;
    /** Entries that restart whatever is done. */
    'will-restart': number;
    /** Entries that could not be verified (not rewritten). */
    unknown: number;
  };
  /** One entry per container: records in store order, then containers without a record. */
  entries: NodePlanEntry[];
  /** The pod sandboxes: what was checked, and the pods the kubelet recreates whole (PodSandboxChanged). */
  sandboxes?: {
    /** What was read, or why sandboxes were not checked. */
    note: string;
    /** One per pod whose sandbox makes the kubelet recreate it. */
    findings: {
      /** The pod uid. */
      podUid: string;
      /** The pod's namespace. */
      podNamespace?: string;
      /** The pod's name. */
      podName?: string;
      /** What the kubelet finds. */
      reason: string;
    }[];
  };
}

const hashPair = z.object({ hash: z.string(), hashWithoutResources: z.string().optional() });

export const storeSpecSchema: z.ZodType<StoreSpec> = z.discriminatedUnion('runtime', [
  z.object({ runtime: z.literal('containerd'), root: z.string(), namespace: z.string() }),
  z.object({ runtime: z.literal('cri-o'), graphRoot: z.string(), runRoot: z.string().optional() }),
  z.object({ runtime: z.literal('docker'), root: z.string(), daemonConfig: z.string().optional() }),
  z.object({ runtime: z.literal('records'), files: z.array(z.string()) }),
]);

const RULE_IDS: ReadonlySet<string> = new Set(RESTART_RULES.map((r) => r.id));
const ruleIdSchema = z.custom<RestartRuleId>((v) => typeof v === 'string' && RULE_IDS.has(v), {
  error: 'a restart rule id (RESTART_RULES)',
});

/** The fields of every action (PlanEntryFields and NodeRecordLocation). */
const entryFields = {
  reason: z.string(),
  runtime: z.string().optional(),
  containerId: z.string().optional(),
  location: z.string().optional(),
  fingerprint: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  podUid: z.string(),
  podNamespace: z.string().optional(),
  podName: z.string().optional(),
  containerName: z.string(),
  list: z.enum(CONTAINER_LISTS).optional(),
  role: z.enum(['container', 'sidecar', 'init', 'ephemeral']).optional(),
  observed: z.object({ hash: z.string().optional(), hashWithoutResources: z.string().optional() }),
  computed: z.object({ from: z.string().optional(), to: z.string().optional() }),
  ruleId: ruleIdSchema.optional(),
  ruleSource: z.string().optional(),
};
const noChange = z.undefined({ error: 'no change: only a rewrite entry has one' }).optional();
const noCandidates = z.undefined({ error: 'no candidates: only an unknown entry has them' }).optional();
const noRule = z.undefined({ error: 'no rule: no kubelet rule decides an unknown entry' }).optional();

/** A plan file entry: the union by `action` of {@link NodePlanEntry} (its type is checked against it). */
const entrySchema: z.ZodType<NodePlanEntry> = z.discriminatedUnion('action', [
  z.object({ ...entryFields, action: z.literal('keep'), change: noChange, candidates: noCandidates }),
  z.object({
    ...entryFields,
    action: z.literal('rewrite'),
    change: z.object({ from: hashPair, to: hashPair }),
    observed: hashPair,
    computed: z.object({ from: z.string(), to: z.string() }),
    candidates: noCandidates,
  }),
  z.object({ ...entryFields, action: z.literal('will-restart'), change: noChange, candidates: noCandidates }),
  z.object({
    ...entryFields,
    action: z.literal('unknown'),
    change: noChange,
    candidates: z.string().optional(),
    ruleId: noRule,
    ruleSource: noRule,
  }),
]);

/** The plan file, as zod reads it (its type is checked against {@link NodeUpgradePlan}). */
const planFileSchema: z.ZodType<NodeUpgradePlan> = z.object({
  kind: z.literal(PLAN_KIND),
  version: z.literal(PLAN_VERSION),
  from: z.string(),
  to: z.string(),
  featureGates: gateSettingsSchema.optional(),
  store: storeSpecSchema,
  counts: z.object({ keep: z.number(), rewrite: z.number(), 'will-restart': z.number(), unknown: z.number() }),
  entries: z.array(entrySchema),
  sandboxes: z
    .object({
      note: z.string(),
      findings: z.array(
        z.object({
          podUid: z.string(),
          podNamespace: z.string().optional(),
          podName: z.string().optional(),
          reason: z.string(),
        }),
      ),
    })
    .optional(),
});

/**
 * Reads a plan file's text, checking it against the schema ({@link OptionError} naming the path).
 *
 * @example
 * ```ts
 * import { parseNodePlan } from 'kubelet-hash/node';
 * try {
 *   parseNodePlan('{"kind":"kubelet-hash/upgrade-plan","version":2}');
 * } catch (e) {
 *   (e as { code: string }).code; // → 'INVALID_OPTION'
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function parseNodePlan(text: string): NodeUpgradePlan {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new OptionError('INVALID_OPTION', [], 'a plan file (JSON)', String(e));
  }
  return parseWith(
    planFileSchema,
    doc,
    ({ path, message }) =>
      new OptionError('INVALID_OPTION', path, `a kubelet-hash upgrade plan, version ${PLAN_VERSION}`, message),
  );
}

/**
 * The plan as canonical text: keys sorted, two-space indentation, a final newline.
 *
 * @example
 * ```ts
 * import { formatNodePlan, parseNodePlan } from 'kubelet-hash/node';
 * const text = '{"version":1,"kind":"kubelet-hash/upgrade-plan","to":"1.31","from":"1.30",' +
 *   '"store":{"runtime":"records","files":[]},"counts":{"keep":0,"rewrite":0,"will-restart":0,"unknown":0},"entries":[]}';
 * formatNodePlan(parseNodePlan(text)).split('\n')[1]; // → '  "counts": {'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function formatNodePlan(plan: NodeUpgradePlan): string {
  // Sorted-key JSON, then indented; parsing it back keeps the sorted order (no integer-like keys).
  return `${JSON.stringify(JSON.parse(stableStringify(plan)), null, 2)}\n`;
}
