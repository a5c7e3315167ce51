/**
 * `fleet report`: per-node plans folded into one go/no-go. A node is ready when its plan has no
 * will-restart and no unknown entry, and its trailer counts no restart cause outside the hash. Exit 0: every node ready; 1: some node has containers that
 * will restart or are unknown (no-go until handled), or a node expected (--nodes, --expect) has no
 * plan; 2 is left to the CLI for input that cannot count (unreadable, another upgrade's plan, a
 * file named for another node, a plan older than --max-age).
 */
import {
  PLAN_KIND,
  PLAN_TRAILER_KIND,
  parseNodePlan,
  readPlanTrailer,
  type NodePlanEntry,
  type PlanTrailer,
} from '../node-upgrade/index.js';
import { OptionError } from '../errors.js';

export interface NodeReport {
  node: string;
  from: string;
  to: string;
  ready: boolean;
  counts: Record<NodePlanEntry['action'], number>;
  /** The entries that are not keep/rewrite: what will restart and why, and the unknowns. */
  findings: {
    action: 'will-restart' | 'unknown' | 'restart-cause';
    pod: string;
    container: string;
    reason: string;
  }[];
  /** When, where and by which kubelet-hash the plan was made, when the plan says so (else null). */
  made: PlanProvenance;
}

/**
 * The provenance a plan carries in its audit stamp (`audit` of a plan file, or of the trailer of
 * `plan --ndjson`): `createdAt` (RFC 3339), `host` and `tool` (`kubelet-hash VERSION`). Plans from
 * before the stamp have none; their age is unknown.
 */
interface PlanProvenance {
  createdAt: string | null;
  host: string | null;
  tool: string | null;
}

/** What the fleet must be: the one upgrade, the nodes expected, how old a plan may be. */
export interface FleetReportOptions {
  /** The releases every plan must name (default: those of the first plan). */
  from?: string;
  to?: string;
  /** The nodes that must each have a plan (--node, --nodes); a missing one is NO-GO. */
  expectNodes?: readonly string[];
  /** How many nodes must have a plan (--expect); fewer is NO-GO. */
  expectCount?: number;
  /** Plans made longer ago than this (ms) are refused; a plan without `createdAt` too. */
  maxAgeMs?: number;
  /** The time plans are aged against (default: now). */
  now?: Date;
}

export interface FleetReport {
  nodes: NodeReport[];
  ready: number;
  notReady: number;
  counts: Record<NodePlanEntry['action'], number>;
  /** will-restart entries grouped by reason, most frequent first. */
  restartReasons: { reason: string; containers: number }[];
  /** Nodes expected (--node/--nodes) with no plan, or how many are missing against --expect. */
  missing: { nodes: string[]; count: number };
  go: boolean;
}

const ACTIONS = ['keep', 'rewrite', 'will-restart', 'unknown'] as const;

/** What a node's plan text holds: its entries, releases, and (NDJSON) the node its trailer names. */
interface NodePlanText {
  from: string;
  to: string;
  /** The node the trailer (or plan file) names (`plan --node`), when given. */
  node: string | null;
  /** `plan` or `verify` (a trailer says which; a plan file is a plan). */
  command: 'plan' | 'verify';
  made: PlanProvenance;
  entries: NodePlanEntry[];
  /** The restart causes outside the hash the trailer counts (a plan file carries none). */
  restartCauses: NonNullable<PlanTrailer['restartCauses']>;
}

const textOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The audit stamp of a plan file or trailer, read from the raw document (a stamp of another shape reads as absent). */
function provenanceOf(doc: unknown): PlanProvenance {
  const audit = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['audit'] : undefined;
  const d = (typeof audit === 'object' && audit !== null ? audit : {}) as Record<string, unknown>;
  return {
    createdAt: textOrNull(d['createdAt']),
    host: textOrNull(d['host']),
    tool: textOrNull(d['tool']),
  };
}

/** A plan file: one JSON document of the plan's kind, pretty-printed or on one line (`jq -c`). */
function planFileOf(text: string): NodePlanText | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined; // NDJSON (several documents), or a cut file: read line by line below
  }
  if (!doc || typeof doc !== 'object' || (doc as { kind?: unknown }).kind !== PLAN_KIND) return undefined;
  const plan = parseNodePlan(text);
  const node = textOrNull((doc as { node?: unknown }).node);
  return {
    from: plan.from,
    to: plan.to,
    node,
    command: 'plan',
    made: provenanceOf(doc),
    entries: plan.entries,
    restartCauses: [],
  };
}

function incomplete(file: string, expected: string, detail: string, at: (string | number)[] = []): OptionError {
  return new OptionError('INCOMPLETE_PLAN', [file, ...at], expected, detail);
}

/** `plan --ndjson` rows and the trailer that must end them: a cut or spliced stream is refused. */
function ndjsonOf(text: string, file: string): NodePlanText {
  const entries: NodePlanEntry[] = [];
  let trailer: PlanTrailer | undefined;
  let trailerRow: unknown;
  let trailerLine = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new OptionError(
        'INVALID_OPTION',
        [file, i + 1],
        'a plan file or NDJSON rows of plan --ndjson',
        `line ${i + 1} is not JSON${i === lines.length - 1 ? ' (the file ends inside a row: cut?)' : ''}`,
      );
    }
    if (trailer !== undefined)
      throw incomplete(
        file,
        'one plan --ndjson stream: rows, then its trailer last',
        `line ${i + 1} follows the trailer of line ${trailerLine} (two streams joined?)`,
        [i + 1],
      );
    const r = row as (Partial<NodePlanEntry> & { kind?: unknown }) | null;
    if (r !== null && typeof r === 'object' && r.kind === PLAN_TRAILER_KIND) {
      trailer = readPlanTrailer(row, [file, i + 1]);
      trailerRow = row;
      trailerLine = i + 1;
      continue;
    }
    if (
      r === null ||
      typeof r !== 'object' ||
      !ACTIONS.includes(r.action as (typeof ACTIONS)[number]) ||
      typeof r.reason !== 'string'
    )
      throw new OptionError(
        'INVALID_OPTION',
        [file, i + 1, 'action'],
        'a plan entry with action keep|rewrite|will-restart|unknown and a reason',
        `got ${line.slice(0, 80)}`,
      );
    entries.push(r as NodePlanEntry);
  }
  if (trailer === undefined)
    throw incomplete(
      file,
      `plan --ndjson rows ending with their ${PLAN_TRAILER_KIND} line (rows, counts, node)`,
      `${entries.length} rows and no trailer: the stream was cut, or written by a kubelet-hash without trailers (make the plan again)`,
    );
  const counts = countsOf(entries);
  const short = ACTIONS.filter((a) => counts[a] !== trailer.counts[a]);
  if (trailer.rows !== entries.length || short.length > 0)
    throw incomplete(
      file,
      `the ${trailer.rows} rows its trailer counts (${ACTIONS.map((a) => `${a} ${trailer.counts[a]}`).join(', ')})`,
      `read ${entries.length} rows (${ACTIONS.map((a) => `${a} ${counts[a]}`).join(', ')}): rows are missing or repeated`,
      [trailerLine],
    );
  return {
    from: trailer.from,
    to: trailer.to,
    node: trailer.node,
    command: trailer.command,
    made: provenanceOf(trailerRow),
    entries,
    restartCauses: trailer.restartCauses ?? [],
  };
}

function countsOf(entries: readonly NodePlanEntry[]): Record<NodePlanEntry['action'], number> {
  const counts = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  for (const e of entries) counts[e.action]++;
  return counts;
}

/** What tells two node plans apart: the node named, and the runtime's container ids (unique per node). */
const identities = new WeakMap<NodeReport, { file: string; node: string | null; containers: Set<string> }>();

/**
 * One node's plan (a plan file or `plan --ndjson` output), read from `file`; `named` is the node the
 * file's name says. The node is the one the plan names (the trailer's `node`, from `plan --node`),
 * and a file named for another node is refused: its rows would be counted under the wrong node.
 * Only plans count: `verify` output, or a plan from a release to itself, is refused.
 */
export function nodeReport(named: string, text: string, file = named): NodeReport {
  const { from, to, node: inPlan, command, made, entries, restartCauses } = planFileOf(text) ?? ndjsonOf(text, file);
  if (command !== 'plan')
    throw new OptionError(
      'INVALID_OPTION',
      [file, 'command'],
      'the rows of plan --ndjson (a plan before the upgrade)',
      `got the output of ${command}: it checks a node after apply and says nothing about what apply would do`,
    );
  if (from === to)
    throw new OptionError(
      'INVALID_OPTION',
      [file, 'to'],
      'a plan from one kubelet release to another',
      `from and to are both ${JSON.stringify(from)}: no upgrade`,
    );
  // stdin ("-") has no name to disagree with.
  if (inPlan !== null && named !== inPlan && named !== '-')
    throw new OptionError(
      'INVALID_OPTION',
      [file, 'node'],
      `the plan of node ${JSON.stringify(named)} (the file's name)`,
      `the plan names node ${JSON.stringify(inPlan)}: rename the file ${inPlan}.${/\.json$/.test(file) ? 'json' : 'ndjson'}, or check which node's log it holds`,
    );
  const node = inPlan ?? named;
  const counts = countsOf(entries);
  const findings: NodeReport['findings'] = [];
  const containers = new Set<string>();
  for (const e of entries) {
    if (e.containerId !== undefined && e.containerId !== '') containers.add(e.containerId);
    if (e.action === 'will-restart' || e.action === 'unknown')
      findings.push({
        action: e.action,
        pod: `${e.podNamespace ?? '?'}/${e.podName ?? e.podUid}`,
        container: e.containerName,
        reason: e.reason,
      });
  }
  // A cause outside the hash that plan counted holds the node as a will-restart row does.
  for (const c of restartCauses)
    findings.push({ action: 'restart-cause', pod: c.pod, container: '', reason: `${c.kind}: ${c.reason}` });
  const report: NodeReport = {
    node,
    from,
    to,
    ready: findings.length === 0 && entries.length > 0,
    counts,
    findings,
    made,
  };
  identities.set(report, { file, node: inPlan, containers });
  return report;
}

const fileOf = (n: NodeReport): string => identities.get(n)?.file ?? n.node;

/** Refuses a plan of another upgrade than the fleet's: one from/to for every node. */
function checkOneUpgrade(nodes: readonly NodeReport[], o: FleetReportOptions): void {
  const first = nodes[0];
  const want = { from: o.from ?? first?.from, to: o.to ?? first?.to };
  const source =
    o.from !== undefined || o.to !== undefined ? 'given with --from/--to' : `of ${first ? fileOf(first) : ''}`;
  for (const n of nodes)
    for (const key of ['from', 'to'] as const)
      if (want[key] !== undefined && n[key] !== want[key])
        throw new OptionError(
          'INVALID_OPTION',
          [fileOf(n), key],
          `the fleet's one upgrade, ${want.from} → ${want.to} (${source})`,
          `this plan is ${n.from} → ${n.to}: plans of different upgrades do not add up to one go/no-go`,
        );
}

/** `createdAt` as epoch ms, or undefined when absent or not an RFC 3339 time. */
function timeOf(text: string | null): number | undefined {
  if (text === null || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

/** A clock between the agent's node and this machine may differ a little; more than this is refused. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Refuses plans made longer ago than `maxAgeMs`, and plans whose age is unknown (no createdAt). */
function checkAge(nodes: readonly NodeReport[], maxAgeMs: number, now: number): void {
  for (const n of nodes) {
    const made = timeOf(n.made.createdAt);
    const refuse = (detail: string): OptionError =>
      new OptionError(
        'INVALID_OPTION',
        [fileOf(n), 'createdAt'],
        `a plan made within --max-age (${maxAgeMs / 1000} s)`,
        detail,
      );
    if (made === undefined)
      throw refuse(
        n.made.createdAt === null
          ? 'the plan says not when it was made (a kubelet-hash without createdAt): its age is unknown; make the plan again'
          : `createdAt ${JSON.stringify(n.made.createdAt)} is not an RFC 3339 time`,
      );
    if (made > now + CLOCK_SKEW_MS) throw refuse(`createdAt ${n.made.createdAt} is in the future: a clock is wrong`);
    if (now - made > maxAgeMs)
      throw refuse(
        `made ${Math.round((now - made) / 1000)} s ago (${n.made.createdAt}): the node may have changed since; plan again`,
      );
  }
}

/** Refuses the same node twice: one name twice, two trailers naming one node, or plans sharing container ids. */
function checkDistinct(nodes: readonly NodeReport[]): void {
  const byName = new Map<string, NodeReport>();
  const byContainer = new Map<string, NodeReport>();
  const refuse = (a: NodeReport, b: NodeReport, why: string): OptionError =>
    new OptionError('DUPLICATE_NODE', [fileOf(b)], 'one plan per node', `${fileOf(a)} and ${fileOf(b)} ${why}`);
  for (const n of nodes) {
    const id = identities.get(n);
    for (const name of new Set([n.node, ...(id?.node != null ? [id.node] : [])])) {
      const seen = byName.get(name);
      if (seen !== undefined && seen !== n) throw refuse(seen, n, `are both node ${JSON.stringify(name)}`);
      byName.set(name, n);
    }
    for (const c of id?.containers ?? []) {
      const seen = byContainer.get(c);
      if (seen !== undefined && seen !== n)
        throw refuse(seen, n, `both hold container ${c.slice(0, 13)}: the same node's plan, given twice`);
      byContainer.set(c, n);
    }
  }
}

/**
 * The fleet's go/no-go over its nodes' reports: GO when there is a plan for every node expected,
 * all of one upgrade, and every node is ready.
 */
export function foldFleet(nodes: readonly NodeReport[], o: FleetReportOptions = {}): FleetReport {
  checkDistinct(nodes);
  checkOneUpgrade(nodes, o);
  if (o.maxAgeMs !== undefined) checkAge(nodes, o.maxAgeMs, (o.now ?? new Date()).getTime());
  const counts = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  const reasons = new Map<string, number>();
  for (const n of nodes) {
    for (const a of ACTIONS) counts[a] += n.counts[a];
    for (const f of n.findings)
      if (f.action === 'will-restart') reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
  }
  const missing = missingNodes(nodes, o);
  const ready = nodes.filter((n) => n.ready).length;
  return {
    nodes: [...nodes],
    ready,
    notReady: nodes.length - ready,
    counts,
    restartReasons: [...reasons]
      .map(([reason, containers]) => ({ reason, containers }))
      .sort((a, b) => b.containers - a.containers || a.reason.localeCompare(b.reason)),
    missing,
    go: nodes.length > 0 && ready === nodes.length && missing.count === 0,
  };
}

/**
 * The expected nodes without a plan. A plan of a node not expected is refused (a typo in a file
 * name, or plans of another pool): counting it would hide the node it stands in for.
 */
function missingNodes(nodes: readonly NodeReport[], o: FleetReportOptions): FleetReport['missing'] {
  const names: string[] = [];
  if (o.expectNodes !== undefined) {
    const expected = new Set(o.expectNodes);
    for (const n of nodes)
      if (!expected.has(n.node))
        throw new OptionError(
          'INVALID_OPTION',
          [fileOf(n), 'node'],
          'a plan of a node named by --node/--nodes',
          `node ${JSON.stringify(n.node)} is not one of the ${expected.size} nodes expected`,
        );
    const have = new Set(nodes.map((n) => n.node));
    names.push(...[...expected].filter((e) => !have.has(e)).sort());
  }
  let count = names.length;
  if (o.expectCount !== undefined) {
    if (nodes.length > o.expectCount)
      throw new OptionError(
        'INVALID_OPTION',
        ['--expect'],
        `at most ${o.expectCount} plans (--expect)`,
        `got ${nodes.length} plans: --expect is wrong, or plans of other nodes were given`,
      );
    count = Math.max(count, o.expectCount - nodes.length);
  }
  return { nodes: names, count };
}
