/**
 * The plan file of an in-place kubelet upgrade (`kubelet-hash plan --out PLAN.json`): versioned,
 * validated with zod when read, and written canonically (keys sorted with
 * fast-json-stable-stringify, entries in store order) so that the same node state gives a
 * byte-identical file but for its `audit` stamp (when, where and by what it was made; absent unless
 * the caller gives one).
 */
import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { z } from 'zod';
import { lazySchema, type ZodApi } from '../on-demand.js';
import { KubeletHashError, OptionError, parseWith, type JsonPathSegment } from '../errors.js';
import { assertCanonicalHash, storedHashValue } from '../hash/format.js';
import { gateSettingsSchema } from '../kubelet/index.js';
import { releaseInfo } from '../releases/index.js';
import { countActions, PLAN_ACTIONS, planSchemas } from '../plan/index.js';
import { auditStampSchema } from './audit.js';
import { escapesSchema } from '../hash/options.js';

export type { NodePlanEntry, NodeRecordLocation } from '../plan/index.js';

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
// An interface (not a type alias) so the plan keeps its name wherever it is returned.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface NodeUpgradePlan extends z.infer<ReturnType<typeof buildPlanFileSchema>> {}

/** Where a plan's records are, as zod reads it (built on first use: `kubelet-hash/node` loads no zod at import). */
export const storeSpecSchema = lazySchema((z): z.ZodType<StoreSpec> =>
  z.discriminatedUnion('runtime', [
    z.object({ runtime: z.literal('containerd'), root: z.string(), namespace: z.string() }),
    z.object({ runtime: z.literal('cri-o'), graphRoot: z.string(), runRoot: z.string().optional() }),
    z.object({ runtime: z.literal('docker'), root: z.string(), daemonConfig: z.string().optional() }),
    z.object({ runtime: z.literal('records'), files: z.array(z.string()) }),
  ]),
);

/** The digest a plan file carries beside the plan (see {@link digestOf}). */
const digestSchema = lazySchema((z) =>
  z.looseObject({
    digest: z.record(z.string(), z.string().regex(/^[0-9a-f]{16}$/)).optional(),
  }),
);

/** The plan file, as zod reads it: the plan vocabulary's entries, counts and findings. */
function buildPlanFileSchema(z: ZodApi) {
  const { counts, nodeEntry, sandboxFinding, podSandbox } = planSchemas();
  return z.object({
    /** Always `kubelet-hash/upgrade-plan`. */
    kind: z.literal(PLAN_KIND),
    /** The format version, 1. */
    version: z.literal(PLAN_VERSION),
    /** The current kubelet release (minor). */
    from: z.string(),
    /** The release the node moves to. */
    to: z.string(),
    /** The `to` kubelet's feature gates, as read (booleans, names the library models). */
    featureGates: gateSettingsSchema().optional(),
    /** Where the records are. */
    store: storeSpecSchema(),
    /** How many entries have each action. */
    counts,
    /** One entry per container: records in store order, then containers without a record. */
    entries: z.array(nodeEntry),
    /** The pod sandboxes: what was checked, and the pods the kubelet recreates whole (PodSandboxChanged). */
    sandboxes: z
      .object({
        /** What was read, or why sandboxes were not checked. */
        note: z.string().describe('what was read, or why sandboxes were not checked'),
        /** One per pod whose sandbox makes the kubelet recreate it. */
        findings: z.array(sandboxFinding),
        /** Every sandbox record read (absent when none were read): apply refuses a store whose sandboxes differ. */
        records: z.array(podSandbox).optional(),
      })
      .optional(),
    /** The Go JSON escapes of a patch release's toolchain, when `from` or `to` was given as one (apply recomputes with them). */
    jsonEscapes: z
      .object({
        /** The escapes of the Go that built the `from` kubelet (a patch release's). */
        from: escapesSchema().optional(),
        /** The escapes of the Go that built the `to` kubelet. */
        to: escapesSchema().optional(),
      })
      .optional(),
    /** When, where and by what the plan was made (plan --out stamps it; absent in plans of kubelet-hash 0.x before it). */
    audit: auditStampSchema().optional(),
  });
}

const planFileSchema = lazySchema(buildPlanFileSchema);

/** The top-level fields a plan file's digest covers, each on its own (so a refusal names the field). */
const DIGESTED = [
  'audit',
  'counts',
  'entries',
  'featureGates',
  'from',
  'jsonEscapes',
  'sandboxes',
  'store',
  'to',
] as const;

/**
 * The digest of each field of `plan`: the first 16 hex digits of SHA-256 over the field's
 * canonical JSON (sorted keys). SHA-256 from node:crypto because parse and format are synchronous
 * (xxhash-wasm needs an asynchronous compile). It detects edits and damage, it is no signature:
 * whoever edits the file can recompute it.
 */
function digestOf(plan: NodeUpgradePlan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of DIGESTED) {
    const v = plan[k];
    if (v !== undefined) out[k] = createHash('sha256').update(stableStringify(v)).digest('hex').slice(0, 16);
  }
  return out;
}

/** Refuses a plan whose fields do not match the digest written with them, naming the first that differs. */
function checkDigest(plan: NodeUpgradePlan, digest: Record<string, string>): void {
  const now = digestOf(plan);
  for (const k of DIGESTED) {
    if (now[k] === digest[k]) continue;
    throw new OptionError(
      'INVALID_OPTION',
      [k],
      `${k} as plan wrote it (digest.${k} ${digest[k] ?? 'absent'})`,
      `it was ${now[k] === undefined ? 'removed' : digest[k] === undefined ? 'added' : 'edited'} after the plan was written (digest ${now[k] ?? 'absent'}): make a new plan`,
    );
  }
}

const invalid = (path: JsonPathSegment[], expected: string, found: string): OptionError =>
  new OptionError('INVALID_OPTION', path, expected, found);

/** A hash the kubelet writes: canonical hex and not 0 (0 is what the kubelet reads for "no hash"). */
function checkHash(text: string, path: JsonPathSegment[]): void {
  try {
    assertCanonicalHash(text, path);
  } catch (e) {
    if (e instanceof KubeletHashError)
      throw invalid(
        path,
        'lowercase hex without leading zeros, as the kubelet writes a hash',
        `found ${JSON.stringify(text)}`,
      );
    throw e;
  }
  if (text === '0')
    throw invalid(path, 'a hash other than 0 (a kubelet reads 0 as no hash and restarts the container)', 'found "0"');
}

/**
 * Checks that a plan is consistent in itself ({@link OptionError} `INVALID_OPTION` naming the
 * field): `from` and `to` are releases this package models, the counts are the entries' actions, no
 * container id appears twice, every hash is canonical and not 0, and each rewrite writes what
 * `computed` says (`change.from` is `computed.from` and what `observed` stores, `change.to` is
 * `computed.to`, and the two differ). {@link parseNodePlan} and `applyNodePlan` run it.
 *
 * @example
 * ```ts
 * import { checkNodePlan, parseNodePlan } from 'kubelet-hash/node';
 * const plan = parseNodePlan(JSON.stringify({
 *   kind: 'kubelet-hash/upgrade-plan', version: 1, from: '1.30', to: '1.31',
 *   store: { runtime: 'docker', root: '/var/lib/docker' },
 *   counts: { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 }, entries: [],
 * }));
 * plan.counts.keep = 1;
 * try {
 *   checkNodePlan(plan);
 * } catch (e) {
 *   (e as { path: unknown }).path; // → ['counts', 'keep']
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function checkNodePlan(plan: NodeUpgradePlan): void {
  for (const k of ['from', 'to'] as const) {
    try {
      releaseInfo(plan[k], [k]);
    } catch (e) {
      if (e instanceof KubeletHashError)
        throw invalid([k], 'a kubelet release this package models', `found ${JSON.stringify(plan[k])}`);
      throw e;
    }
  }
  const counts = countActions(plan.entries);
  const ids = new Set<string>();
  plan.entries.forEach((e, i) => {
    const at = (...p: JsonPathSegment[]): JsonPathSegment[] => ['entries', i, ...p];
    if (e.containerId !== undefined) {
      if (ids.has(e.containerId))
        throw invalid(at('containerId'), 'one entry per container id', `${e.containerId} appears twice`);
      ids.add(e.containerId);
    }
    if (e.computed.from !== undefined) checkHash(e.computed.from, at('computed', 'from'));
    if (e.computed.to !== undefined) checkHash(e.computed.to, at('computed', 'to'));
    if (e.action !== 'rewrite') return;
    const { from, to } = e.change;
    checkHash(from.hash, at('change', 'from', 'hash'));
    checkHash(to.hash, at('change', 'to', 'hash'));
    if (from.hash !== e.computed.from)
      throw invalid(at('change', 'from', 'hash'), `computed.from, ${e.computed.from}`, `found ${from.hash}`);
    if (to.hash !== e.computed.to)
      throw invalid(at('change', 'to', 'hash'), `computed.to, ${e.computed.to}`, `found ${to.hash}`);
    if (to.hash === from.hash)
      throw invalid(
        at('change', 'to', 'hash'),
        `a hash other than change.from.hash (${from.hash}): nothing to rewrite`,
        `found ${to.hash}`,
      );
    if (storedHashValue(e.observed.hash) !== storedHashValue(from.hash))
      throw invalid(
        at('observed', 'hash'),
        `the stored hash the rewrite expects, ${from.hash}`,
        `found ${e.observed.hash}`,
      );
    if ((from.hashWithoutResources === undefined) !== (to.hashWithoutResources === undefined))
      throw invalid(
        at('change', 'to', 'hashWithoutResources'),
        'change.from and change.to both with a hashWithoutResources, or neither',
        'only one has it',
      );
    if (from.hashWithoutResources !== undefined && to.hashWithoutResources !== undefined) {
      checkHash(from.hashWithoutResources, at('change', 'from', 'hashWithoutResources'));
      checkHash(to.hashWithoutResources, at('change', 'to', 'hashWithoutResources'));
      if (storedHashValue(e.observed.hashWithoutResources) !== storedHashValue(from.hashWithoutResources))
        throw invalid(
          at('observed', 'hashWithoutResources'),
          `the stored hashWithoutResources the rewrite expects, ${from.hashWithoutResources}`,
          `found ${e.observed.hashWithoutResources ?? 'none'}`,
        );
    }
  });
  for (const k of PLAN_ACTIONS) {
    if (plan.counts[k] !== counts[k])
      throw invalid(['counts', k], `${counts[k]}, the number of ${k} entries`, `found ${plan.counts[k]}`);
  }
}

/**
 * Options of {@link parseNodePlan}.
 *
 * @example
 * ```ts
 * import type { ParseNodePlanOptions } from 'kubelet-hash/node';
 * const options: ParseNodePlanOptions = { requireDigest: true };
 * options.requireDigest; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ParseNodePlanOptions {
  /** Refuse a file without a digest (one kubelet-hash 0.1.0 wrote, or one written by hand): `apply` does. */
  requireDigest?: boolean;
}

/**
 * Reads a plan file's text, checking it against the schema ({@link OptionError} naming the path),
 * its digest when it has one (every field as {@link formatNodePlan} wrote it), and its consistency
 * ({@link checkNodePlan}). The digest is not part of the plan returned.
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
export function parseNodePlan(text: string, options: ParseNodePlanOptions = {}): NodeUpgradePlan {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new OptionError('INVALID_OPTION', [], 'a plan file (JSON)', String(e));
  }
  const digest = parseWith(
    digestSchema(),
    doc,
    ({ path, message }) =>
      new OptionError('INVALID_OPTION', path, 'a plan digest: field name to 16 hex digits', message),
  ).digest;
  const plan = parseWith(
    planFileSchema(),
    doc,
    ({ path, message }) =>
      new OptionError('INVALID_OPTION', path, `a kubelet-hash upgrade plan, version ${PLAN_VERSION}`, message),
  );
  if (digest !== undefined) checkDigest(plan, digest);
  else if (options.requireDigest)
    throw new OptionError(
      'INVALID_OPTION',
      ['digest'],
      'a plan file with its digest, as plan --out writes it',
      'it has none (written by kubelet-hash 0.1.0, or by hand): make a new plan',
    );
  checkNodePlan(plan);
  return plan;
}

/**
 * The plan as canonical text: keys sorted, two-space indentation, a final newline, and a `digest`
 * of each field that {@link parseNodePlan} checks (a hand edit is refused, naming the field).
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
  // The digest is over the plan as parseNodePlan will read it back (zod drops keys it does not know).
  const read = planFileSchema().safeParse(JSON.parse(stableStringify(plan)));
  const digest = digestOf(read.success ? read.data : plan);
  return `${JSON.stringify(JSON.parse(stableStringify({ ...plan, digest })), null, 2)}\n`;
}
