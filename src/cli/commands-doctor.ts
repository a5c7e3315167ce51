/**
 * `kubelet-hash doctor`: node-local and read-only. Says which runtime the kubelet talks to, where
 * its root is and how that was found, which kubelet release runs, and the plan/apply/verify
 * commands it would run; with --pods and --to it also plans (reading the store, writing nothing).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { discoverRuntime, requireRuntimeRoot } from '../discovery/index.js';
import { nodeStartBlockers, planNodeUpgrade } from '../node-upgrade/index.js';
import type { StartBlocker } from '../plan/index.js';
import { str, type CommandContext, type CommandDef } from './command.js';
import { KUBELET_SOURCE_OPTIONS, kubeletVersionOf, storeSpecOfDiscovery } from './discovery-options.js';
import { readObjects, within } from './inputs.js';
import { readInputFile, type CliIO } from './io.js';
import { readDocuments } from '../manifests/index.js';
import { table } from './table.js';

const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';

/** containerRuntimeEndpoint from a KubeletConfiguration file, when it names one (read as every input is). */
function endpointOfKubeletConfig(file: string, io: CliIO): string | undefined {
  const text = readInputFile(file, io);
  const doc = within(file, null, [], () => readDocuments(text))[0]?.value;
  const v = doc && typeof doc === 'object' ? (doc as Record<string, unknown>)['containerRuntimeEndpoint'] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The kubelet's flags from --kubelet-cmdline (a /proc/PID/cmdline copy, NUL-separated, or the
 * flags on lines or separated by spaces); undefined without it (the running kubelet's are read).
 */
function givenKubeletFlags(ctx: CommandContext): { args: string[]; how: string } | undefined {
  const file = str(ctx.values, 'kubelet-cmdline');
  if (file === undefined) return undefined;
  const text = readInputFile(file, ctx.io);
  let args = (text.includes('\0') ? text.split('\0') : text.split(/\s+/)).filter((a) => a !== '');
  if (args[0] !== undefined && !args[0].startsWith('-')) args = args.slice(1); // the binary
  return { args, how: file };
}

export const doctor: CommandDef = {
  name: 'doctor',
  summary: 'say what this node runs (runtime, its root, kubelet release) and what plan/apply would do; read-only',
  description:
    "Finds the container runtime from --runtime-endpoint, else the kubelet config's containerRuntimeEndpoint (--kubelet-config, default /var/lib/kubelet/config.yaml), else the first known socket that exists (containerd, k3s, rke2, k0s, CRI-O, cri-dockerd); then the process listening on it (its --config and --root flags), the runtime's config file (containerd's config.toml `root`, CRI-O's storage.conf `graphroot`, docker's daemon.json `data-root`) or the layout's default root. Reads the kubelet release from --kubelet-binary or --node-object. Prints each step and the commands it would run. With --to it checks what would stop the target kubelet from starting: a flag of the kubelet's command line (--kubelet-cmdline, else the running kubelet's) that the target removed (--pod-infra-container-image from 1.35, cAdvisor's deprecated flags from 1.37) a cgroup v1 host for targets from 1.35 unless the configuration says failCgroupV1: false, the kubelet's checkpoint files under its --root-dir the target cannot read (cpu_manager_state in the v1 form from 1.37, dra_manager_state in the ≤ 1.30 form where the DRA manager runs), and the runtime's answer to CRI RuntimeConfig where the target asks it (KubeletCgroupDriverFromCRI: by default from 1.31, always from 1.34): a cgroup driver other than the configured one where the running kubelet did not ask, a driver it does not know, or no answer (unknown); any is exit 1. upgrade-node's gate runs the same checks. With --pods and --to it plans too (the store is read, nothing is written). --fs-root reads a node mounted elsewhere (a hostPath mount of / in a pod).",
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
    'kubelet-cmdline': {
      type: 'string',
      value: 'FILE',
      goesWith: ['to'],
      description:
        "with --to: the kubelet's command line (a copy of /proc/PID/cmdline, or its flags on lines), checked for what the target refuses (default: the running kubelet's)",
    },
  },
  operands: [],
  examples: [
    { comment: 'on a node', command: 'kubelet-hash doctor --kubelet-binary /usr/bin/kubelet --to 1.31' },
    { comment: 'in a pod with the host mounted at /host', command: 'kubelet-hash doctor --fs-root /host --to 1.31' },
  ],
  finding:
    'with --to: the target kubelet will not start, or whether it starts is unknown (a flag it removed, cgroup v1 without failCgroupV1: false, a checkpoint file it cannot read, the runtime’s CRI RuntimeConfig)',
  output: {
    row: z.object({ what: z.string(), value: z.string(), how: z.string() }),
    summary: z.looseObject({
      runtime: z.string(),
      layout: z.string(),
      root: z.string(),
      from: z.string().nullable(),
      to: z.string().nullable(),
      counts: z.record(z.string(), z.number().int()).nullable().describe('the plan, when --pods and --to were given'),
      startBlockers: z
        .array(
          z.object({
            kind: z.string(),
            verdict: z.enum(['blocks', 'unknown']),
            subject: z.string(),
            releases: z.string(),
            source: z.string(),
            message: z.string(),
          }),
        )
        .describe(
          'with --to: why the target kubelet will not start (verdict blocks) or may not (unknown): a removed flag, cgroup v1, a checkpoint file, CRI RuntimeConfig; any is exit 1',
        ),
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
    let blockers: StartBlocker[] = [];
    if (to !== null) {
      const given = givenKubeletFlags(ctx);
      const kubeletConfig = str(v, 'kubelet-config');
      const start = await nodeStartBlockers({
        to,
        ...(from !== null ? { from } : {}),
        fsRoot,
        ...(given ? { flags: given } : {}),
        ...(kubeletConfig !== undefined ? { configFile: kubeletConfig } : {}),
        endpoint: `unix://${found.socket}`,
      });
      for (const w of start.warnings) ctx.warn(w);
      blockers = start.blockers;
      rows.push({ what: 'kubelet flags', value: `${start.flags.length} flags`, how: start.flagsFrom });
      if (start.cgroup !== undefined) rows.push({ what: 'cgroup', value: start.cgroup, how: '/sys/fs/cgroup' });
      const a = start.runtime.answer;
      rows.push({
        what: 'CRI RuntimeConfig',
        value:
          a.answer === 'served'
            ? `cgroup driver ${a.cgroupDriver === undefined ? 'not said' : (['systemd', 'cgroupfs'][a.cgroupDriver] ?? String(a.cgroupDriver))}`
            : a.answer === 'failed'
              ? `failed: ${a.status}`
              : a.answer,
        how: start.runtime.endpoint ?? ('reason' in a ? a.reason : ''),
      });
      if (start.checkpoints.length > 0)
        rows.push({ what: 'checkpoints', value: start.checkpoints.join(', '), how: start.rootDir });
      for (const b of blockers)
        rows.push({
          what: `start ${b.verdict === 'blocks' ? 'blocker' : 'unknown'} (${b.releases})`,
          value: b.subject,
          how: `${b.message} [${b.source}]`,
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
      exitCode: blockers.length > 0 ? 1 : 0,
      rows,
      summary: {
        runtime: found.runtime,
        layout: found.layout,
        root: found.root,
        from,
        to,
        counts,
        startBlockers: blockers,
      },
      text,
    };
  },
};
