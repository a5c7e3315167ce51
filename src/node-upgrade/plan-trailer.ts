/**
 * The trailer that ends a `plan --ndjson` / `verify --ndjson` stream: the rows' count and counts
 * per action, the releases, the node and the store. Rows alone cannot tell a cut stream from a
 * smaller node (unknowns sort last, so a cut drops exactly them); a reader that requires the
 * trailer and checks it against the rows can.
 */
import { lazySchema } from '../on-demand.js';
import { OptionError, parseWith } from '../errors.js';
import { storeSpecSchema, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { auditStampSchema, type AuditStamp } from './audit.js';

/** The trailer's `kind`. */
export const PLAN_TRAILER_KIND = 'kubelet-hash/plan-trailer' as const;

/** The last line of a `plan --ndjson` / `verify --ndjson` stream. */
export interface PlanTrailer {
  kind: typeof PLAN_TRAILER_KIND;
  version: 1;
  /** `plan` or `verify`. */
  command: 'plan' | 'verify';
  from: string;
  to: string;
  /** The node's name given with `--node` (null when none was given). */
  node: string | null;
  store: StoreSpec;
  /** How many rows came before the trailer. */
  rows: number;
  counts: NodeUpgradePlan['counts'];
  /** When, where and by what the stream was made (absent from streams of older kubelet-hash). */
  audit?: AuditStamp;
  /**
   * The restart causes outside the hash that count (not accepted with --accept-cause): a node with
   * one is not ready, as with a will-restart row (absent from streams of older kubelet-hash).
   */
  restartCauses?: { kind: string; pod: string; reason: string }[];
}

const trailerSchema = lazySchema((z) => {
  const count = z.number().int().min(0);
  return z.object({
    kind: z.literal(PLAN_TRAILER_KIND),
    version: z.literal(1),
    command: z.enum(['plan', 'verify']),
    from: z.string(),
    to: z.string(),
    node: z.string().nullable(),
    store: storeSpecSchema(),
    rows: count,
    counts: z.object({ keep: count, rewrite: count, 'will-restart': count, unknown: count }),
    audit: auditStampSchema().optional(),
    restartCauses: z.array(z.object({ kind: z.string(), pod: z.string(), reason: z.string() })).optional(),
  });
});

/** The trailer of `plan`'s rows. */
export function planTrailer(
  plan: NodeUpgradePlan,
  command: 'plan' | 'verify',
  node: string | null,
  audit?: AuditStamp,
  restartCauses?: PlanTrailer['restartCauses'],
): PlanTrailer {
  return {
    kind: PLAN_TRAILER_KIND,
    version: 1,
    command,
    from: plan.from,
    to: plan.to,
    node,
    store: plan.store,
    rows: plan.entries.length,
    counts: { ...plan.counts },
    ...(audit !== undefined ? { audit } : {}),
    ...(restartCauses !== undefined ? { restartCauses } : {}),
  };
}

/** Reads a trailer row (a row whose `kind` is the trailer's), its errors rooted at `path`. */
export function readPlanTrailer(row: unknown, path: readonly (string | number)[]): PlanTrailer {
  return parseWith(
    trailerSchema(),
    row,
    ({ path: at, message }) =>
      new OptionError('INVALID_OPTION', at, `a ${PLAN_TRAILER_KIND} row (version 1) ending the stream`, message),
    [...path],
  );
}
