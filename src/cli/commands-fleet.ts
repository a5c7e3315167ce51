/**
 * `kubelet-hash fleet manifests|report`: drive a fleet through Kubernetes itself. `manifests`
 * prints the objects that run the read-only plan on every selected node (or a
 * system-upgrade-controller Plan); `report` folds the node plans into one go/no-go.
 */
import { basename } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import {
  fleetJobs,
  foldFleet,
  nodeReport,
  sucPlan,
  type FleetOptions,
  type FleetReportOptions,
} from '../fleet/index.js';
import { UsageError, list, str, type CommandContext, type CommandDef, type CommandResult } from './command.js';
import { readObjects } from './inputs.js';
import { readInputFile, type CliIO } from './io.js';
import { toolVersion } from './version.js';
import { table } from './table.js';

const RUNTIMES = ['containerd', 'cri-o', 'docker'] as const;
/** The options only the system-upgrade-controller Plan reads. */
const SUC_ONLY = ['concurrency', 'swap-command', 'units', 'crio-runroot', 'docker-config'] as const;
/** The options only `fleet manifests` reads (report refuses them rather than ignore them). */
const MANIFESTS_ONLY = [
  ...SUC_ONLY,
  'image',
  'kubectl-image',
  'namespace',
  'runtime',
  'runtime-root',
  'kubelet-root',
  'variant',
] as const;
/** The options only `fleet report` reads. */
const REPORT_ONLY = ['expect', 'max-age'] as const;

/** Refuses each option of `names` that was given: an option a subcommand would ignore is a mistake. */
function refuseOptions(ctx: CommandContext, names: readonly string[], sub: string): void {
  for (const name of names) if (ctx.values[name] !== undefined) throw new UsageError(`fleet ${sub} takes no --${name}`);
}

/** `a=b,c=d` → { a: 'b', c: 'd' }. */
function labelMap(text: string | undefined, option: string): Record<string, string> {
  if (text === undefined || text === '') return {};
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const [k, v, ...rest] = pair.split('=');
      if (!k || v === undefined || rest.length > 0)
        throw new UsageError(`--${option}: expected key=value,…; got ${pair}`);
      return [k.trim(), v.trim()];
    }),
  );
}

/** The nodes named with --node, and those of a NodeList (--nodes) matching --selector. */
async function selectedNodes(ctx: CommandContext): Promise<string[]> {
  const unique = await namedNodes(ctx);
  if (unique.length === 0)
    throw new UsageError('select nodes: --node NAME (repeatable) or --nodes nodes.json [--selector k=v]');
  return unique;
}

/** --node and --nodes (filtered by --selector), sorted, each once; none when neither is given. */
async function namedNodes(ctx: CommandContext): Promise<string[]> {
  const names = list(ctx.values, 'node');
  const file = str(ctx.values, 'nodes');
  const selector = labelMap(str(ctx.values, 'selector'), 'selector');
  if (file !== undefined) {
    for (const { object } of await readObjects(ctx, [file])) {
      const v = object.value;
      const items = v['kind'] === 'List' || v['kind'] === 'NodeList' ? (v['items'] as unknown[]) : [v];
      for (const item of items) {
        const meta = (item as { metadata?: { name?: unknown; labels?: Record<string, string> } }).metadata;
        if (typeof meta?.name !== 'string') continue;
        if (Object.entries(selector).every(([k, want]) => meta.labels?.[k] === want)) names.push(meta.name);
      }
    }
  }
  return [...new Set(names)].sort();
}

function fleetOptions(ctx: CommandContext, nodes: string[]): FleetOptions {
  const v = ctx.values;
  const runtime = str(v, 'runtime') ?? 'containerd';
  if (!(RUNTIMES as readonly string[]).includes(runtime))
    throw new UsageError(`--runtime: one of ${RUNTIMES.join(', ')}`);
  const image = str(v, 'image') ?? `kubelet-hash:${toolVersion()}`;
  return {
    nodes,
    from: str(v, 'from', true),
    to: str(v, 'to', true),
    image,
    // The image build:image writes carries kubectl and /bin/sh too: one image serves both containers.
    kubectlImage: str(v, 'kubectl-image') ?? image,
    namespace: str(v, 'namespace') ?? 'kubelet-hash',
    runtime: runtime as FleetOptions['runtime'],
    runtimeRoot: str(v, 'runtime-root') ?? '/var/lib/containerd',
    kubeletRoot: str(v, 'kubelet-root') ?? '/var/lib/kubelet',
  };
}

async function manifests(ctx: CommandContext): Promise<CommandResult> {
  const variant = str(ctx.values, 'variant') ?? 'jobs';
  let objects: Record<string, unknown>[];
  if (variant === 'jobs') {
    for (const name of SUC_ONLY)
      if (ctx.values[name] !== undefined) throw new UsageError(`--${name} goes with --variant suc`);
    objects = fleetJobs(fleetOptions(ctx, await selectedNodes(ctx)));
  } else if (variant === 'suc') {
    const swap = str(ctx.values, 'swap-command');
    if (swap === undefined) throw new UsageError('--variant suc needs --swap-command (what installs the new kubelet)');
    const concurrency = Number(str(ctx.values, 'concurrency') ?? '1');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError('--concurrency: a whole number ≥ 1');
    const o = fleetOptions(ctx, []);
    const units = str(ctx.values, 'units')?.split(',');
    if (units?.some((u) => u.trim() === '')) throw new UsageError('--units: unit names, comma-separated (U,…)');
    const crioRunRoot = str(ctx.values, 'crio-runroot');
    const dockerConfig = str(ctx.values, 'docker-config');
    if (crioRunRoot !== undefined && o.runtime !== 'cri-o')
      throw new UsageError('--crio-runroot goes with --runtime cri-o');
    if (dockerConfig !== undefined && o.runtime !== 'docker')
      throw new UsageError('--docker-config goes with --runtime docker');
    objects = sucPlan({
      ...o,
      concurrency,
      nodeSelector: labelMap(str(ctx.values, 'selector') ?? 'kubelet-hash/upgrade=true', 'selector'),
      swapCommand: swap,
      ...(units ? { units } : {}),
      ...(crioRunRoot !== undefined ? { crioRunRoot } : {}),
      ...(dockerConfig !== undefined ? { dockerConfig } : {}),
    });
  } else throw new UsageError('--variant: jobs or suc');
  return {
    exitCode: 0,
    rows: objects,
    summary: { variant, objects: objects.length },
    text: objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join(''),
  };
}

/** `30m` → ms: a whole number of seconds, minutes, hours or days. */
function durationMs(text: string, option: string): number {
  const m = /^(\d{1,9})(s|m|h|d)$/.exec(text);
  if (!m || Number(m[1]) === 0) throw new UsageError(`--${option}: a duration such as 90s, 30m, 2h or 1d; got ${text}`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

async function reportOptions(ctx: CommandContext): Promise<FleetReportOptions> {
  const o: FleetReportOptions = {};
  const from = str(ctx.values, 'from');
  const to = str(ctx.values, 'to');
  if (from !== undefined) o.from = from;
  if (to !== undefined) o.to = to;
  if (str(ctx.values, 'selector') !== undefined && str(ctx.values, 'nodes') === undefined)
    throw new UsageError('--selector goes with --nodes');
  if (ctx.values['node'] !== undefined || ctx.values['nodes'] !== undefined) {
    o.expectNodes = await namedNodes(ctx);
    if (o.expectNodes.length === 0) throw new UsageError('--nodes: the file names no node (after --selector)');
  }
  const expect = str(ctx.values, 'expect');
  if (expect !== undefined) {
    if (!/^[1-9]\d{0,6}$/.test(expect)) throw new UsageError(`--expect: a whole number of nodes ≥ 1; got ${expect}`);
    o.expectCount = Number(expect);
  }
  const maxAge = str(ctx.values, 'max-age');
  if (maxAge !== undefined) o.maxAgeMs = durationMs(maxAge, 'max-age');
  return o;
}

async function report(ctx: CommandContext, files: string[]): Promise<CommandResult> {
  const io: CliIO = ctx.io;
  if (files.length === 0)
    throw new UsageError('fleet report: give the node plans (NODE.json or NODE.ndjson, one per node)');
  const options = await reportOptions(ctx);
  const nodes = files.map((f) => nodeReport(basename(f).replace(/\.(nd)?json$/, ''), readInputFile(f, io), f));
  const r = foldFleet(nodes, options);
  const text =
    table(
      ['node', 'ready', 'keep', 'rewrite', 'will-restart', 'unknown'],
      r.nodes.map((n) => [
        n.node,
        n.ready ? 'yes' : 'no',
        String(n.counts.keep),
        String(n.counts.rewrite),
        String(n.counts['will-restart']),
        String(n.counts.unknown),
      ]),
    ) +
    r.nodes
      .flatMap((n) => n.findings.map((f) => `# ${n.node}: ${f.action} ${f.pod} ${f.container}: ${f.reason}\n`))
      .join('') +
    r.restartReasons.map((x) => `# will restart, ${x.containers}×: ${x.reason}\n`).join('') +
    r.missing.nodes.map((n) => `# ${n}: no plan\n`).join('') +
    (r.missing.count > r.missing.nodes.length
      ? `# ${r.missing.count} of the ${options.expectCount} nodes expected (--expect) have no plan\n`
      : '') +
    `# ${r.go ? 'GO' : 'NO-GO'}: ${r.ready} of ${r.nodes.length + r.missing.count} nodes ready; ${r.counts['will-restart']} containers will restart, ${r.counts.unknown} unknown` +
    (r.missing.count > 0 ? `, ${r.missing.count} without a plan` : '') +
    '\n';
  return {
    exitCode: r.go ? 0 : 1,
    rows: r.nodes,
    summary: {
      go: r.go,
      ready: r.ready,
      notReady: r.notReady,
      counts: r.counts,
      restartReasons: r.restartReasons,
      missing: r.missing,
    },
    text,
  };
}

export const fleet: CommandDef = {
  name: 'fleet',
  summary:
    'fleet manifests: the Jobs/RBAC (or a system-upgrade-controller Plan) that run the agent per node; fleet report: go/no-go over node plans',
  description:
    "`fleet manifests` prints (YAML, or the objects with --json) a Namespace, a ServiceAccount with a ClusterRole to get/list pods, and per selected node a Job pinned with nodeName that tolerates every taint, lists the node's pods with kubectl (field selector spec.nodeName) and runs the read-only `plan` over read-only hostPath mounts of the runtime root and the kubelet root, printing the plan file to its log. `--variant suc` prints instead a system-upgrade-controller Plan (upgrade.cattle.io/v1: cordon, no drain, --concurrency nodes at a time) whose upgrade container plans (the gate: a node with will-restart or unknown entries stops there), stops the units, applies, runs --swap-command, starts the units and verifies. `fleet report` reads one plan per node (a plan file or `plan --ndjson` rows; the node is the file name without .json/.ndjson) and prints per node ready or not, every container that will restart or is unknown with its reason, and the go/no-go: exit 0 when every node is ready, 1 otherwise. See docs/fleet.md.",
  options: {
    from: {
      type: 'string',
      value: 'VERSION',
      description: 'manifests: the kubelet release the nodes run; report: the release every plan must start from',
    },
    to: {
      type: 'string',
      value: 'VERSION',
      description: 'manifests: the kubelet release they move to; report: the release every plan must move to',
    },
    node: {
      type: 'string',
      multiple: true,
      value: 'NAME',
      description: 'manifests: a node to run on (repeatable); report: a node that must have a plan',
    },
    nodes: {
      type: 'string',
      value: 'FILE',
      description:
        'kubectl get nodes -o json|yaml; every node in it (filtered by --selector): manifests runs on them, report needs a plan of each (a missing one is NO-GO)',
    },
    expect: {
      type: 'string',
      value: 'N',
      description: 'report: the number of nodes that must have a plan (fewer is NO-GO, more refused)',
    },
    'max-age': {
      type: 'string',
      value: 'DURATION',
      description:
        'report: refuse plans made longer ago than this (90s, 30m, 2h, 1d), and plans that do not say when they were made (their createdAt)',
    },
    selector: {
      type: 'string',
      value: 'K=V,…',
      description: "manifests: node labels to select (suc: the Plan's nodeSelector, default kubelet-hash/upgrade=true)",
    },
    image: {
      type: 'string',
      value: 'IMAGE',
      description:
        'manifests: an image with the single executable at /kubelet-hash (default kubelet-hash:VERSION, the name `npm run build:image` gives the image it writes)',
    },
    'kubectl-image': {
      type: 'string',
      value: 'IMAGE',
      description:
        'manifests: an image with kubectl and /bin/sh for the init container (default: the --image, which build:image gives kubectl 1.20.2)',
    },
    namespace: { type: 'string', value: 'NS', description: 'manifests: the namespace (default kubelet-hash)' },
    runtime: { type: 'string', value: 'RUNTIME', description: 'manifests: containerd (default), cri-o or docker' },
    'runtime-root': {
      type: 'string',
      value: 'DIR',
      description: "manifests: the runtime's root on the nodes, as doctor reports it (default /var/lib/containerd)",
    },
    'kubelet-root': {
      type: 'string',
      value: 'DIR',
      description: "manifests: the kubelet's root (default /var/lib/kubelet)",
    },
    variant: {
      type: 'string',
      value: 'jobs|suc',
      description: 'manifests: per-node Jobs (default) or a system-upgrade-controller Plan',
    },
    concurrency: { type: 'string', value: 'N', description: 'manifests --variant suc: nodes at a time (default 1)' },
    'swap-command': {
      type: 'string',
      value: 'CMD',
      description: 'manifests --variant suc: the shell that installs the new kubelet (host at /host)',
    },
    units: {
      type: 'string',
      value: 'U,…',
      description:
        'manifests --variant suc: systemd units to stop and start, the kubelet first, in stop order (default per --runtime: kubelet,containerd; kubelet,crio; kubelet,cri-docker,docker.socket,docker, without cri-docker when --from is before 1.24)',
    },
    'crio-runroot': {
      type: 'string',
      value: 'DIR',
      description:
        "manifests --variant suc --runtime cri-o: CRI-O's runroot on the nodes, whose config.json copies apply rewrites too (default /run/containers/storage)",
    },
    'docker-config': {
      type: 'string',
      value: 'FILE',
      description:
        "manifests --variant suc --runtime docker: dockerd's daemon.json on the nodes, read for live-restore (default /etc/docker/daemon.json)",
    },
  },
  operands: [
    { name: 'manifests|report', description: 'what to do', count: 'one' },
    { name: 'PLAN', description: 'report: one plan per node (NODE.json plan file or NODE.ndjson)', count: 'any' },
  ],
  examples: [
    {
      comment: 'Jobs for two nodes',
      command: 'kubelet-hash fleet manifests --from 1.30 --to 1.31 --node node-a --node node-b | kubectl apply -f -',
    },
    { comment: 'the go/no-go', command: 'kubelet-hash fleet report plans/*.json' },
  ],
  finding: 'report: some node is not ready (containers will restart or are unknown)',
  output: {
    row: z.looseObject({}).describe('manifests: one Kubernetes object; report: one node'),
    summary: z
      .looseObject({})
      .describe('manifests: variant, objects; report: go, ready, notReady, counts, restartReasons'),
  },
  async run(ctx) {
    const [sub, ...rest] = ctx.operands;
    if (sub === 'manifests') {
      if (rest.length > 0) throw new UsageError('fleet manifests takes no files');
      refuseOptions(ctx, REPORT_ONLY, sub);
      return manifests(ctx);
    }
    if (sub === 'report') {
      refuseOptions(ctx, MANIFESTS_ONLY, sub);
      return report(ctx, rest);
    }
    throw new UsageError(`fleet: manifests or report, not ${JSON.stringify(sub)}`);
  },
};
