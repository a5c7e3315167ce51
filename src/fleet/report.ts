/**
 * `fleet report`: per-node plans folded into one go/no-go. A node is ready when its plan has no
 * will-restart and no unknown entry. Exit 0: every node ready; 1: some node has containers that
 * will restart or are unknown (no-go until handled); 2 is left to the CLI for unreadable input.
 */
import {
  PLAN_KIND,
  PLAN_TRAILER_KIND,
  parseNodePlan,
  readPlanTrailer,
  type NodePlanEntry,
  type PlanTrailer,
} from '../upgrade/index.js';
import { OptionError } from '../errors.js';

export interface NodeReport {
  node: string;
  from: string;
  to: string;
  ready: boolean;
  counts: Record<NodePlanEntry['action'], number>;
  /** The entries that are not keep/rewrite: what will restart and why, and the unknowns. */
  findings: { action: 'will-restart' | 'unknown'; pod: string; container: string; reason: string }[];
}

export interface FleetReport {
  nodes: NodeReport[];
  ready: number;
  notReady: number;
  counts: Record<NodePlanEntry['action'], number>;
  /** will-restart entries grouped by reason, most frequent first. */
  restartReasons: { reason: string; containers: number }[];
  go: boolean;
}

const ACTIONS = ['keep', 'rewrite', 'will-restart', 'unknown'] as const;

/** What a node's plan text holds: its entries, releases, and (NDJSON) the node its trailer names. */
interface NodePlanText {
  from: string;
  to: string;
  /** The node the trailer names (`plan --node`), when given. */
  node: string | null;
  entries: NodePlanEntry[];
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
  return { from: plan.from, to: plan.to, node: null, entries: plan.entries };
}

function incomplete(file: string, expected: string, detail: string, at: (string | number)[] = []): OptionError {
  return new OptionError('INCOMPLETE_PLAN', [file, ...at], expected, detail);
}

/** `plan --ndjson` rows and the trailer that must end them: a cut or spliced stream is refused. */
function ndjsonOf(text: string, file: string): NodePlanText {
  const entries: NodePlanEntry[] = [];
  let trailer: PlanTrailer | undefined;
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
  return { from: trailer.from, to: trailer.to, node: trailer.node, entries };
}

function countsOf(entries: readonly NodePlanEntry[]): Record<NodePlanEntry['action'], number> {
  const counts = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  for (const e of entries) counts[e.action]++;
  return counts;
}

/** What tells two node plans apart: the node named, and the runtime's container ids (unique per node). */
const identities = new WeakMap<NodeReport, { file: string; node: string | null; containers: Set<string> }>();

/** One node's plan (a plan file or `plan --ndjson` output). */
export function nodeReport(node: string, text: string, file = node): NodeReport {
  const { from, to, node: named, entries } = planFileOf(text) ?? ndjsonOf(text, file);
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
  const report: NodeReport = { node, from, to, ready: findings.length === 0 && entries.length > 0, counts, findings };
  identities.set(report, { file, node: named, containers });
  return report;
}

/** Refuses the same node twice: one name twice, two trailers naming one node, or plans sharing container ids. */
function checkDistinct(nodes: readonly NodeReport[]): void {
  const byName = new Map<string, NodeReport>();
  const byContainer = new Map<string, NodeReport>();
  const fileOf = (n: NodeReport): string => identities.get(n)?.file ?? n.node;
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

/** The fleet's go/no-go over its nodes' reports. */
export function foldFleet(nodes: readonly NodeReport[]): FleetReport {
  checkDistinct(nodes);
  const counts = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  const reasons = new Map<string, number>();
  for (const n of nodes) {
    for (const a of ACTIONS) counts[a] += n.counts[a];
    for (const f of n.findings)
      if (f.action === 'will-restart') reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
  }
  const ready = nodes.filter((n) => n.ready).length;
  return {
    nodes: [...nodes],
    ready,
    notReady: nodes.length - ready,
    counts,
    restartReasons: [...reasons]
      .map(([reason, containers]) => ({ reason, containers }))
      .sort((a, b) => b.containers - a.containers || a.reason.localeCompare(b.reason)),
    go: nodes.length > 0 && ready === nodes.length,
  };
}
