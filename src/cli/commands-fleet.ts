/**
 * `kubelet-hash fleet manifests|report`: drive a fleet through Kubernetes itself. `manifests`
 * prints the objects that run the read-only plan on every selected node (or a
 * system-upgrade-controller Plan); `report` folds the node plans into one go/no-go.
 */
import { basename } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import {
  IN_CLUSTER_DIR,
  inClusterAccess,
  listNodePods,
  writeNewFile,
  fleetJobs,
  foldFleet,
  nodeReport,
  sucPlan,
  type FleetOptions,
  type FleetReportOptions,
} from '../fleet/index.js';
import { UsageError, flag, list, str, type CommandContext, type CommandDef, type CommandResult } from './command.js';
import { readObjects } from './inputs.js';
import { readInputFile, type CliIO } from './io.js';
import { table } from './table.js';

const RUNTIMES = ['containerd', 'cri-o', 'docker'] as const;
/** The options only the system-upgrade-controller Plan reads. */
const SUC_ONLY = ['concurrency', 'swap-command', 'units', 'docker-config'] as const;
/** The options only `fleet manifests` reads (report refuses them rather than ignore them). */
const MANIFESTS_ONLY = [
  ...SUC_ONLY,
  'image',
  'allow-mutable-image',
  'crio-runroot',
  'namespace',
  'runtime',
  'runtime-root',
  'variant',
] as const;
/** The options only `fleet report` reads. */
const REPORT_ONLY = ['expect', 'max-age'] as const;
/** The options only `fleet pods` reads. */
const PODS_ONLY = ['out', 'api-access', 'server'] as const;

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

/** `name@sha256:<64 hex>`, with or without a tag before the digest. */
const PINNED_IMAGE = /^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$/;

/**
 * The agent's image: pinned by digest (what build:image prints), so every node runs the same bytes
 * and a re-pushed tag cannot change what runs as root on the nodes; a tag alone only with
 * --allow-mutable-image (an image imported on each node by tag, never pulled).
 */
function agentImage(ctx: CommandContext): string {
  const image = str(ctx.values, 'image');
  if (image === undefined)
    throw new UsageError(
      '--image: the agent image by digest, NAME@sha256:… as npm run build:image prints it (a tag alone needs --allow-mutable-image)',
    );
  if (!PINNED_IMAGE.test(image) && !flag(ctx.values, 'allow-mutable-image'))
    throw new UsageError(
      `--image: expected NAME@sha256:<64 hex digits> (as npm run build:image prints it); got ${JSON.stringify(image)}, a reference a registry can change (give --allow-mutable-image to use it anyway)`,
    );
  return image;
}

/** A namespace name: a DNS-1123 label (the Namespace object and the label on cluster-scoped objects need one). */
function namespaceOf(ctx: CommandContext, variant: string): string {
  // The system-upgrade-controller watches Plans in its own namespace only (system-upgrade as shipped).
  const ns = str(ctx.values, 'namespace') ?? (variant === 'suc' ? 'system-upgrade' : 'kubelet-hash');
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(ns))
    throw new UsageError(
      `--namespace: a DNS-1123 label (lowercase letters, digits, -; 63 at most); got ${JSON.stringify(ns)}`,
    );
  return ns;
}

function fleetOptions(ctx: CommandContext, nodes: string[], variant: string): FleetOptions {
  const v = ctx.values;
  const runtime = str(v, 'runtime') ?? 'containerd';
  if (!(RUNTIMES as readonly string[]).includes(runtime))
    throw new UsageError(`--runtime: one of ${RUNTIMES.join(', ')}`);
  const crioRunRoot = str(v, 'crio-runroot');
  if (crioRunRoot !== undefined && runtime !== 'cri-o')
    throw new UsageError('--crio-runroot goes with --runtime cri-o');
  return {
    nodes,
    from: str(v, 'from', true),
    to: str(v, 'to', true),
    image: agentImage(ctx),
    namespace: namespaceOf(ctx, variant),
    runtime: runtime as FleetOptions['runtime'],
    runtimeRoot: str(v, 'runtime-root') ?? '/var/lib/containerd',
    ...(crioRunRoot !== undefined ? { crioRunRoot } : {}),
  };
}

async function manifests(ctx: CommandContext): Promise<CommandResult> {
  const variant = str(ctx.values, 'variant') ?? 'jobs';
  let objects: Record<string, unknown>[];
  if (variant === 'jobs') {
    for (const name of SUC_ONLY)
      if (ctx.values[name] !== undefined) throw new UsageError(`--${name} goes with --variant suc`);
    objects = fleetJobs(fleetOptions(ctx, await selectedNodes(ctx), variant));
  } else if (variant === 'suc') {
    const swap = str(ctx.values, 'swap-command');
    if (swap === undefined) throw new UsageError('--variant suc needs --swap-command (what installs the new kubelet)');
    const concurrency = Number(str(ctx.values, 'concurrency') ?? '1');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError('--concurrency: a whole number ≥ 1');
    const o = fleetOptions(ctx, [], variant);
    const units = str(ctx.values, 'units')?.split(',');
    if (units?.some((u) => u.trim() === '')) throw new UsageError('--units: unit names, comma-separated (U,…)');
    const dockerConfig = str(ctx.values, 'docker-config');
    if (dockerConfig !== undefined && o.runtime !== 'docker')
      throw new UsageError('--docker-config goes with --runtime docker');
    objects = sucPlan({
      ...o,
      concurrency,
      nodeSelector: labelMap(str(ctx.values, 'selector') ?? 'kubelet-hash/upgrade=true', 'selector'),
      swapCommand: swap,
      ...(units ? { units } : {}),
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

/** `fleet pods`: the node's pods from the apiserver, as the plan's --pods reads them (the Job's init container). */
async function pods(ctx: CommandContext): Promise<CommandResult> {
  const nodes = list(ctx.values, 'node');
  if (nodes.length !== 1) throw new UsageError('fleet pods: one --node NAME (the node the pod runs on)');
  const out = str(ctx.values, 'out', true);
  const access = inClusterAccess(
    ctx.io.env ?? process.env,
    str(ctx.values, 'api-access') ?? IN_CLUSTER_DIR,
    str(ctx.values, 'server'),
  );
  const podList = await listNodePods(access, nodes[0]!);
  const text = JSON.stringify(podList);
  if (out !== '-') writeNewFile(out, text);
  return {
    exitCode: 0,
    rows: [],
    summary: { node: nodes[0], pods: podList.items.length, out },
    text: out === '-' ? `${text}\n` : `${podList.items.length} pods of node ${nodes[0]!} written to ${out}\n`,
  };
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
    "`fleet manifests` prints (YAML, or the objects with --json) a Namespace labelled for privileged Pod Security, a ServiceAccount with a ClusterRole to get/list pods, and per selected node a Job pinned with nodeName that tolerates every taint: its init container lists the node's pods with `fleet pods` (a projected 10-minute token, no kubectl), and the agent runs the read-only `plan --ndjson --node NODE` over read-only hostPath mounts of only the runtime's record directories, with every capability dropped and RuntimeDefault seccomp; plan's exit 1 completes the Job (the verdict is in its log). --image takes the agent image by digest. `--variant suc` prints instead a system-upgrade-controller Plan (upgrade.cattle.io/v1: cordon, no drain, --concurrency nodes at a time; in the controller's namespace, system-upgrade) whose upgrade container runs the agent's `upgrade-node` with the host's / at /host: it plans (the gate), stops the units, applies, runs --swap-command chrooted into the host, starts the units and verifies, with upgrade-node's recovery rules and journal (no shell or host tool in the image). `fleet report` reads one plan per node (`plan --ndjson` rows with their trailer, or a plan file), all of one upgrade (--from/--to), each under the node it names, and prints per node ready or not, every container that will restart or is unknown with its reason and every restart cause outside the hash its plan's trailer counts (a node with one is not ready), the nodes expected (--node, --nodes, --expect) without a plan, and the go/no-go: exit 0 when every node expected is ready, 1 otherwise; --max-age refuses old or undated plans. `fleet pods` writes the pods of one node, listed from the apiserver in the pod's own cluster, as plan --pods reads them. See docs/fleet.md.",
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
        'manifests: the agent image by digest, NAME@sha256:… (npm run build:image prints it): /kubelet-hash, the single executable, and /bin/sh',
    },
    'allow-mutable-image': {
      type: 'boolean',
      description: 'manifests: accept an --image without a digest (a tag imported on every node, never pulled)',
    },
    namespace: {
      type: 'string',
      value: 'NS',
      description:
        "manifests: the namespace (default kubelet-hash; system-upgrade with --variant suc, the controller's own: it watches no other)",
    },
    runtime: { type: 'string', value: 'RUNTIME', description: 'manifests: containerd (default), cri-o or docker' },
    'runtime-root': {
      type: 'string',
      value: 'DIR',
      description: "manifests: the runtime's root on the nodes, as doctor reports it (default /var/lib/containerd)",
    },
    out: {
      type: 'string',
      value: 'FILE',
      description: 'pods: the file to write the pod list to (created, never overwritten; - for standard output)',
    },
    'api-access': {
      type: 'string',
      value: 'DIR',
      description: `pods: the directory of the ServiceAccount token and ca.crt (default ${IN_CLUSTER_DIR}, where the Job projects them)`,
    },
    server: {
      type: 'string',
      value: 'URL',
      description:
        'pods: the apiserver, https://HOST:PORT (default from KUBERNETES_SERVICE_HOST and _PORT, set in every pod)',
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
      description:
        'manifests --variant suc: the host command that installs the new kubelet (upgrade-node --swap: words split on spaces, run chrooted into the host; it does not start it)',
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
        "manifests --runtime cri-o: CRI-O's runroot on the nodes, whose config.json copies plan reads and apply rewrites too (default /run/containers/storage)",
    },
    'docker-config': {
      type: 'string',
      value: 'FILE',
      description:
        "manifests --variant suc --runtime docker: dockerd's daemon.json on the nodes, read for live-restore (default /etc/docker/daemon.json)",
    },
  },
  operands: [
    { name: 'manifests|report|pods', description: 'what to do', count: 'one' },
    { name: 'PLAN', description: 'report: one plan per node (NODE.json plan file or NODE.ndjson)', count: 'any' },
  ],
  examples: [
    {
      comment: 'Jobs for two nodes',
      command:
        'kubelet-hash fleet manifests --from 1.30 --to 1.31 --node node-a --node node-b --image registry.example/kubelet-hash:0.1.0@sha256:… | kubectl apply -f -',
    },
    {
      comment: 'the go/no-go over every node of the list, plans at most an hour old',
      command: 'kubelet-hash fleet report plans/*.ndjson --from 1.30 --to 1.31 --nodes nodes.json --max-age 1h',
    },
  ],
  finding: 'report: some node is not ready (containers will restart or are unknown), or a node expected has no plan',
  output: {
    row: z.looseObject({}).describe('manifests: one Kubernetes object; report: one node'),
    summary: z
      .looseObject({})
      .describe(
        'manifests: variant, objects; report: go, ready, notReady, counts, restartReasons, missing; pods: node, pods, out',
      ),
  },
  async run(ctx) {
    const [sub, ...rest] = ctx.operands;
    if (sub === 'manifests') {
      if (rest.length > 0) throw new UsageError('fleet manifests takes no files');
      refuseOptions(ctx, [...REPORT_ONLY, ...PODS_ONLY], sub);
      return manifests(ctx);
    }
    if (sub === 'report') {
      refuseOptions(ctx, [...MANIFESTS_ONLY, ...PODS_ONLY], sub);
      return report(ctx, rest);
    }
    if (sub === 'pods') {
      if (rest.length > 0) throw new UsageError('fleet pods takes no files');
      const allowed = new Set(['node', 'json', 'ndjson', ...PODS_ONLY]);
      refuseOptions(
        ctx,
        Object.keys(ctx.values).filter(
          (k) => !allowed.has(k) && ctx.values[k] !== undefined && ctx.values[k] !== false,
        ),
        sub,
      );
      return pods(ctx);
    }
    throw new UsageError(`fleet: manifests, report or pods, not ${JSON.stringify(sub)}`);
  },
};
