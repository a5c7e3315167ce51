/**
 * `kubelet-hash doctor`: node-local and read-only. Says which runtime the kubelet talks to, where
 * its root is and how that was found, which kubelet release runs, and the plan/apply/verify
 * commands it would run; with --pods and --to it also plans (reading the store, writing nothing).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { discoverRuntime, requireRuntimeRoot } from '../discovery/index.js';
import { planNodeUpgrade } from '../upgrade/index.js';
import { str, type CommandDef } from './command.js';
import { KUBELET_SOURCE_OPTIONS, kubeletVersionOf, storeSpecOfDiscovery } from './discovery-options.js';
import { readObjects, within } from './inputs.js';
import { readInputFile, type CliIO } from './io.js';
import { readDocuments } from '../pod/read-documents.js';
import { table } from './table.js';

const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';

/** containerRuntimeEndpoint from a KubeletConfiguration file, when it names one (read as every input is). */
function endpointOfKubeletConfig(file: string, io: CliIO): string | undefined {
  const text = readInputFile(file, io);
  const doc = within(file, null, [], () => readDocuments(text))[0]?.value;
  const v = doc && typeof doc === 'object' ? (doc as Record<string, unknown>)['containerRuntimeEndpoint'] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export const doctor: CommandDef = {
  name: 'doctor',
  summary: 'say what this node runs (runtime, its root, kubelet release) and what plan/apply would do; read-only',
  description:
    "Finds the container runtime from --runtime-endpoint, else the kubelet config's containerRuntimeEndpoint (--kubelet-config, default /var/lib/kubelet/config.yaml), else the first known socket that exists (containerd, k3s, rke2, k0s, CRI-O, cri-dockerd); then the process listening on it (its --config and --root flags), the runtime's config file (containerd's config.toml `root`, CRI-O's storage.conf `graphroot`, docker's daemon.json `data-root`) or the layout's default root. Reads the kubelet release from --kubelet-binary or --node-object. Prints each step and the commands it would run; with --pods and --to it plans too (the store is read, nothing is written). --fs-root reads a node mounted elsewhere (a hostPath mount of / in a pod).",
  options: {
    'runtime-endpoint': {
      type: 'string',
      value: 'ENDPOINT',
      description: "the kubelet's --container-runtime-endpoint (default: from the kubelet config, else probed)",
    },
    'runtime-config': {
      type: 'string',
      value: 'FILE',
      description: "the runtime's config file, when not the layout's",
    },
    'kubelet-config': {
      type: 'string',
      value: 'FILE',
      description: `the kubelet's config file, read for containerRuntimeEndpoint (default ${KUBELET_CONFIG} when present)`,
    },
    ...KUBELET_SOURCE_OPTIONS,
    to: { type: 'string', value: 'VERSION', description: 'the kubelet release the node moves to' },
    pods: {
      type: 'string',
      value: 'FILE',
      goesWith: ['to'],
      description: 'with --to: the API pods, to plan now (read-only)',
    },
    'fs-root': { type: 'string', value: 'DIR', description: "the node's / (default /)" },
  },
  operands: [],
  examples: [
    { comment: 'on a node', command: 'kubelet-hash doctor --kubelet-binary /usr/bin/kubelet --to 1.31' },
    { comment: 'in a pod with the host mounted at /host', command: 'kubelet-hash doctor --fs-root /host --to 1.31' },
  ],
  output: {
    row: z.object({ what: z.string(), value: z.string(), how: z.string() }),
    summary: z.looseObject({
      runtime: z.string(),
      layout: z.string(),
      root: z.string(),
      from: z.string().nullable(),
      to: z.string().nullable(),
      counts: z.record(z.string(), z.number().int()).nullable().describe('the plan, when --pods and --to were given'),
    }),
  },
  async run(ctx) {
    const v = ctx.values;
    const fsRoot = str(v, 'fs-root') ?? '/';
    const rows: { what: string; value: string; how: string }[] = [];
    let endpoint = str(v, 'runtime-endpoint');
    if (endpoint !== undefined) rows.push({ what: 'runtime endpoint', value: endpoint, how: 'given' });
    else {
      const configFile = str(v, 'kubelet-config') ?? KUBELET_CONFIG;
      const onDisk = fsRoot === '/' ? configFile : join(fsRoot, configFile);
      if (existsSync(onDisk)) {
        endpoint = endpointOfKubeletConfig(onDisk, ctx.io);
        if (endpoint !== undefined)
          rows.push({ what: 'runtime endpoint', value: endpoint, how: `containerRuntimeEndpoint in ${configFile}` });
      }
    }
    const runtimeConfig = str(v, 'runtime-config');
    const found = discoverRuntime({
      fsRoot,
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(runtimeConfig !== undefined ? { config: runtimeConfig } : {}),
    });
    if (endpoint === undefined) rows.push({ what: 'runtime endpoint', value: `unix://${found.socket}`, how: 'probed' });
    rows.push({ what: 'runtime', value: `${found.runtime} (${found.layout} layout)`, how: 'socket path' });
    if (found.listener)
      rows.push({ what: 'runtime process', value: `pid ${found.listener.pid}`, how: found.listener.argv.join(' ') });
    rows.push({
      what: 'runtime config',
      value: found.config.path,
      how: found.config.found ? 'read' : 'not there (defaults apply)',
    });
    rows.push({ what: 'runtime root', value: found.root, how: found.rootFrom });
    if (found.runRoot) rows.push({ what: 'runtime runroot', value: found.runRoot.root, how: found.runRoot.from });
    // A root that is not there is no node to report on (another layout's leftover, a wrong config).
    requireRuntimeRoot(found);
    const fromKnown = str(v, 'kubelet-binary') !== undefined || str(v, 'node-object') !== undefined;
    const from = fromKnown ? await kubeletVersionOf(ctx, 'from') : null;
    if (from !== null)
      rows.push({
        what: 'kubelet release',
        value: from,
        how: str(v, 'kubelet-binary') !== undefined ? `${str(v, 'kubelet-binary')!} --version` : 'Node status.nodeInfo',
      });
    const to = str(v, 'to') ?? null;
    const rootFlag =
      found.runtime === 'containerd'
        ? '--containerd-root'
        : found.runtime === 'cri-o'
          ? '--crio-root'
          : '--docker-root';
    const runRootArg = found.runRoot ? ` --crio-runroot ${found.runRoot.root}` : '';
    const pods = str(v, 'pods');
    let counts: Record<string, number> | null = null;
    if (pods !== undefined && to !== null && from !== null) {
      const plan = await planNodeUpgrade({
        pods: (await readObjects(ctx, [pods])).map((o) => o.object.value),
        from,
        to,
        store: storeSpecOfDiscovery(found),
      });
      counts = plan.counts;
      rows.push({
        what: 'plan (read-only)',
        value: Object.entries(counts)
          .map(([k, n]) => `${k} ${n}`)
          .join(', '),
        how: `${from} -> ${to}`,
      });
    }
    const fromArg = from ?? 'FROM';
    const runtimeName = found.layout === 'containerd' ? 'containerd' : `the ${found.layout} runtime`;
    const steps = [
      'stop the kubelet',
      `kubelet-hash plan --from ${fromArg} --to ${to ?? 'TO'} --pods pods.yaml ${rootFlag} ${found.root}${runRootArg} --out plan.json`,
      `stop ${runtimeName}`,
      'kubelet-hash apply plan.json --backup-dir /var/backups/kubelet-hash',
      `start ${runtimeName}`,
      `kubelet-hash verify --kubelet ${to ?? 'TO'} --pods pods.yaml ${rootFlag} ${found.root}${runRootArg}`,
      `install the ${to ?? 'TO'} kubelet and start it`,
    ];
    const text =
      table(
        ['what', 'value', 'how'],
        rows.map((r) => [r.what, r.value, r.how]),
      ) +
      '# would do:\n' +
      steps.map((s, i) => `#  ${i + 1}. ${s}\n`).join('');
    return {
      exitCode: 0,
      rows,
      summary: { runtime: found.runtime, layout: found.layout, root: found.root, from, to, counts },
      text,
    };
  },
};
