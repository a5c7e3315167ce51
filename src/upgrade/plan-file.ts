/**
 * The plan file of an in-place kubelet upgrade (`kubelet-hash plan --out PLAN.json`): versioned,
 * validated with zod when read, and written canonically (keys sorted with
 * fast-json-stable-stringify, entries in store order, no timestamps) so that the same node state
 * gives a byte-identical file.
 */
import stableStringify from 'fast-json-stable-stringify';
import { z } from 'zod';
import { OptionError } from '../errors.js';

/** The plan file's `kind`. */
export const PLAN_KIND = 'kubelet-hash/upgrade-plan';
/** The plan file format version this package writes and reads. */
export const PLAN_VERSION = 1;

const hashPair = z.object({ hash: z.string(), hashWithoutResources: z.string().optional() });

/** Where the records live: a runtime store, or record files given on the command line (plan only). */
export const storeSpecSchema = z.discriminatedUnion('runtime', [
  z.object({ runtime: z.literal('containerd'), root: z.string(), namespace: z.string() }),
  z.object({ runtime: z.literal('cri-o'), graphRoot: z.string(), runRoot: z.string().optional() }),
  z.object({ runtime: z.literal('docker'), root: z.string(), daemonConfig: z.string().optional() }),
  z.object({ runtime: z.literal('records'), files: z.array(z.string()) }),
]);

/** Where the records of a plan live. */
export type StoreSpec = z.infer<typeof storeSpecSchema>;

const entrySchema = z.object({
  action: z.enum(['keep', 'rewrite', 'will-restart', 'unknown']),
  reason: z.string(),
  runtime: z.string().optional(),
  containerId: z.string().optional(),
  location: z.string().optional(),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  podUid: z.string(),
  podNamespace: z.string().optional(),
  podName: z.string().optional(),
  containerName: z.string(),
  observed: z.object({ hash: z.string().optional(), hashWithoutResources: z.string().optional() }),
  computed: z.object({ from: z.string().optional(), to: z.string().optional() }),
  change: z.object({ from: hashPair, to: hashPair }).optional(),
  candidates: z.string().optional(),
});

/** The plan file, as zod reads it. */
export const planFileSchema = z.object({
  kind: z.literal(PLAN_KIND),
  version: z.literal(PLAN_VERSION),
  from: z.string(),
  to: z.string(),
  featureGates: z.record(z.string(), z.boolean()).optional(),
  store: storeSpecSchema,
  counts: z.object({ keep: z.number(), rewrite: z.number(), 'will-restart': z.number(), unknown: z.number() }),
  entries: z.array(entrySchema),
});

/** One container of a plan file. */
export type NodePlanEntry = z.infer<typeof entrySchema>;

/**
 * An in-place upgrade plan for one node: the releases, where the records are, and per container
 * what to do, with the record's fingerprint as read.
 *
 * @example
 * ```ts
 * import { parseNodePlan, type NodeUpgradePlan } from 'kubelet-hash';
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
export type NodeUpgradePlan = z.infer<typeof planFileSchema>;

/**
 * Reads a plan file's text, checking it against the schema ({@link OptionError} naming the path).
 *
 * @example
 * ```ts
 * import { parseNodePlan } from 'kubelet-hash';
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
  const r = planFileSchema.safeParse(doc);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new OptionError(
    'INVALID_OPTION',
    issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
    `a kubelet-hash upgrade plan, version ${PLAN_VERSION}`,
    issue.message,
  );
}

/**
 * The plan as canonical text: keys sorted, two-space indentation, a final newline.
 *
 * @example
 * ```ts
 * import { formatNodePlan, parseNodePlan } from 'kubelet-hash';
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
