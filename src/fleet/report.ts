/**
 * `fleet report`: per-node plans folded into one go/no-go. A node is ready when its plan has no
 * will-restart and no unknown entry. Exit 0: every node ready; 1: some node has containers that
 * will restart or are unknown (no-go until handled); 2 is left to the CLI for unreadable input.
 */
import { parseNodePlan, type NodePlanEntry } from '../upgrade/index.js';
import { OptionError } from '../errors.js';

export interface NodeReport {
  node: string;
  from: string | null;
  to: string | null;
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

function entriesOf(text: string, file: string): { from: string | null; to: string | null; entries: NodePlanEntry[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') && trimmed.includes('"kubelet-hash/upgrade-plan"')) {
    const firstLine = trimmed.split('\n', 1)[0]!;
    // A plan file (one JSON document), not NDJSON whose first row happens to mention the kind.
    if (!firstLine.includes('"action"')) {
      const plan = parseNodePlan(text);
      return { from: plan.from, to: plan.to, entries: plan.entries };
    }
  }
  const entries: NodePlanEntry[] = [];
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
        `line ${i + 1} is not JSON`,
      );
    }
    const r = row as Partial<NodePlanEntry> | null;
    if (
      !r ||
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
  return { from: null, to: null, entries };
}

/** One node's plan (a plan file or `plan --ndjson` output). */
export function nodeReport(node: string, text: string, file = node): NodeReport {
  const { from, to, entries } = entriesOf(text, file);
  const counts = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  const findings: NodeReport['findings'] = [];
  for (const e of entries) {
    counts[e.action]++;
    if (e.action === 'will-restart' || e.action === 'unknown')
      findings.push({
        action: e.action,
        pod: `${e.podNamespace ?? '?'}/${e.podName ?? e.podUid}`,
        container: e.containerName,
        reason: e.reason,
      });
  }
  return { node, from, to, ready: findings.length === 0 && entries.length > 0, counts, findings };
}

/** The fleet's go/no-go over its nodes' reports. */
export function foldFleet(nodes: readonly NodeReport[]): FleetReport {
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
