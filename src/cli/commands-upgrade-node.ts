/**
 * `upgrade-node`: the node's in-place kubelet upgrade as one command, run on the node with the
 * host's filesystem mounted (the system-upgrade-controller's Job: / at /host). plan → gate → stop
 * the kubelet and the runtime → apply → swap → start → verify, with the recovery rules of
 * src/fleet/upgrade-node/machine.ts, each step journaled in a private state directory on the host
 * so a retried Job continues or stops and never repeats a step that changed the node.
 */
import { lstatSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import {
  defaultUnits,
  fileJournal,
  hostSteps,
  HOST_EXECS,
  inClusterAccess,
  IN_CLUSTER_DIR,
  listNodePods,
  OUTCOMES,
  systemdUnits,
  upgradeNode,
  type HostExec,
  type UnitCommands,
} from '../fleet/index.js';
import { ensureOwnDirectory } from '../stores/index.js';
import { nodeStartBlockers, type StoreSpec } from '../node-upgrade/index.js';
import { list, str, UsageError, type CommandContext, type CommandDef } from './command.js';
import { readObjects } from './inputs.js';
import { checkGatesFor, featureGates, GATES } from './feature-gates.js';
import { ACCEPT_CAUSE, acceptedCauses, causesOf } from './restart-cause-options.js';
import { commandAudit } from './audit.js';

const RUNTIMES = ['containerd', 'cri-o', 'docker'] as const;
type Runtime = (typeof RUNTIMES)[number];
/** The socket the kubelet talks to when its flags and config name none (the runtime's default; cri-dockerd's for docker). */
const DEFAULT_ENDPOINTS: Record<Runtime, string> = {
  containerd: 'unix:///run/containerd/containerd.sock',
  'cri-o': 'unix:///var/run/crio/crio.sock',
  docker: 'unix:///run/cri-dockerd.sock',
};
const DEFAULT_ROOTS: Record<Runtime, string> = {
  containerd: '/var/lib/containerd',
  'cri-o': '/var/lib/containers/storage',
  docker: '/var/lib/docker',
};

/** A command given as one option value: words split on spaces (no quoting: host commands are plain). */
const words = (option: string, text: string): string[] => {
  const w = text.split(' ').filter((x) => x !== '');
  if (w.length === 0) throw new UsageError(`--${option}: an empty command`);
  return w;
};

/** A path on the host, as the agent sees it (under --host-root). */
const onHost = (hostRoot: string, path: string, option: string): string => {
  if (!isAbsolute(path)) throw new UsageError(`--${option}: an absolute path on the host, not ${JSON.stringify(path)}`);
  const at = join(hostRoot, path);
  // join resolves `..`: /../etc would leave the host root for the agent's own /etc.
  if (relative(hostRoot, at).split(sep)[0] === '..')
    throw new UsageError(`--${option}: ${JSON.stringify(path)} leaves the host's / (--host-root ${hostRoot})`);
  return at;
};

/**
 * Checks, before anything is created, that `dir` (the state directory, under the host root) is
 * reached through real directories: the host root exists, and no existing component below it is a
 * symlink or a file. An absolute symlink on the host resolves in the agent's filesystem, not the
 * host's: a journal written there is lost with the pod, and a retried Job would not know what
 * the last one did. A host root that does not exist means the host is not mounted where said.
 */
function checkHostPath(hostRoot: string, dir: string): void {
  let root;
  try {
    root = statSync(hostRoot);
  } catch {
    throw new UsageError(`--host-root: ${hostRoot} does not exist (is the host's / mounted there?)`);
  }
  if (!root.isDirectory()) throw new UsageError(`--host-root: ${hostRoot} is not a directory`);
  let at = hostRoot;
  for (const part of relative(hostRoot, dir)
    .split(sep)
    .filter((x) => x !== '')) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return; // from here on, created 0700 by us
    }
    if (st.isSymbolicLink())
      throw new UsageError(
        `--state-dir: ${at} is a symlink; on the host it points elsewhere than the agent would follow it (give --state-dir a path of real directories)`,
      );
    if (!st.isDirectory()) throw new UsageError(`--state-dir: ${at} is not a directory`);
  }
}

function storeOf(ctx: CommandContext, hostRoot: string): StoreSpec {
  const runtime = (str(ctx.values, 'runtime') ?? 'containerd') as Runtime;
  if (!RUNTIMES.includes(runtime)) throw new UsageError(`--runtime: one of ${RUNTIMES.join(', ')}`);
  const root = onHost(hostRoot, str(ctx.values, 'runtime-root') ?? DEFAULT_ROOTS[runtime], 'runtime-root');
  if (runtime === 'containerd') return { runtime, root, namespace: 'k8s.io' };
  if (runtime === 'cri-o')
    return {
      runtime,
      graphRoot: root,
      runRoot: onHost(hostRoot, str(ctx.values, 'crio-runroot') ?? '/run/containers/storage', 'crio-runroot'),
    };
  return {
    runtime,
    root,
    daemonConfig: onHost(hostRoot, str(ctx.values, 'docker-config') ?? '/etc/docker/daemon.json', 'docker-config'),
  };
}

function unitsOf(ctx: CommandContext, runtime: Runtime, from: string): UnitCommands {
  const v = ctx.values;
  const services = str(v, 'services') ?? 'systemd';
  if (services === 'systemd') {
    const [kubelet = 'kubelet', ...runtimeUnits] = defaultUnits(runtime, from);
    const given = list(v, 'runtime-unit');
    return systemdUnits(str(v, 'kubelet-unit') ?? kubelet, given.length > 0 ? given : runtimeUnits);
  }
  if (services !== 'commands') throw new UsageError('--services: systemd or commands');
  const cmd = (name: string): string[][] => [words(name, str(v, name, true))];
  return {
    stop: { kubelet: cmd('stop-kubelet'), runtime: cmd('stop-runtime') },
    start: { kubelet: cmd('start-kubelet'), runtime: cmd('start-runtime') },
  };
}

export const upgradeNodeCommand: CommandDef = {
  name: 'upgrade-node',
  summary:
    "upgrade this node's kubelet in place: plan, gate, stop, apply, swap, start, verify, with recovery and a journal on the host",
  description:
    "Runs on the node with the host's / mounted at --host-root (the system-upgrade-controller mounts it at /host). Steps: plan (the node's pods, listed from the apiserver with the projected token, or --pods, joined with the runtime's records under the host root; the plan kept as plan.json in the state directory) → gate (any will-restart or unknown entry, a restart cause outside the hash that plan counts (re-admission, the readiness flap, allocation checkpoints; --accept-cause accepts a class), or a start blocker doctor --to would report — the kubelet's flags from the host's /proc, its config, cgroup v1, its checkpoint files, the runtime's CRI RuntimeConfig on the kubelet's endpoint, else the runtime's default socket: nothing changes, exit 1) → stop the kubelet, then the runtime → apply (rollback point in the state directory's backup/) → swap (--swap, a host command that installs the new kubelet) → start the runtime, then the kubelet → verify (every container kept by the new kubelet). Recovery: a failure before the new kubelet is in place rolls the store back (when apply began) and starts the old units again (exit 1, restored); once it is in place the store is never rolled back: starting is retried and a failure reported (exit 2, start-failed); a failed rollback starts the runtime and no kubelet (exit 2), and a swap that leaves it unknown which kubelet is installed (--kubelet-version-command) starts none either. Every step is journaled (journal.ndjson, 0600, in the 0700 state directory VAR/lib/kubelet-hash/upgrade-FROM-TO on the host, reached through real directories only: a host root that does not exist, a symlink on the way, or a path that leaves the host root is bad input, before anything is created): a second run of a finished upgrade reports it again and changes nothing, but a held one (plan and gate only: nothing changed) is planned and gated again on the node as it is then; a run that died inside a step that changes the node (stop, apply, swap, rollback) is not repeated (exit 2, interrupted) until a person removes the journal. Host commands (systemctl for --services systemd, the default; the given commands for --services commands; --swap; --kubelet-version-command) run with the host's own tools: chrooted into the host root (--host-exec chroot, the default), in PID 1's namespaces through the host's nsenter (nsenter), or as they are (none: an agent on the host itself, or tests). chroot needs the node helper, which the single executable carries; nothing is looked up on the agent's PATH. Exit codes: 0 upgraded, 1 held, restored or verify failed, 2 needs a person (rollback-failed, start-failed, swap-unknown, interrupted) or bad input.",
  options: {
    from: { type: 'string', required: true, value: 'VERSION', description: 'the kubelet release now on the node' },
    to: { type: 'string', required: true, value: 'VERSION', description: 'the kubelet release --swap installs' },
    node: {
      type: 'string',
      value: 'NAME',
      description:
        "this node's name (in the Plan: $(SYSTEM_UPGRADE_NODE_NAME)); its pods are listed from the apiserver unless --pods is given",
    },
    pods: {
      type: 'string',
      value: 'FILE',
      description: 'the pods from a file (kubectl get pods -o json) instead of the apiserver; read again for verify',
    },
    'api-access': {
      type: 'string',
      value: 'DIR',
      description: `the ServiceAccount token and ca.crt for listing the pods (default ${IN_CLUSTER_DIR})`,
    },
    server: { type: 'string', value: 'URL', description: 'the apiserver (default from KUBERNETES_SERVICE_HOST/_PORT)' },
    'host-root': {
      type: 'string',
      value: 'DIR',
      description: "where the host's / is mounted (default /host; / when the agent runs on the host itself)",
    },
    'host-exec': {
      type: 'string',
      value: 'chroot|nsenter|none',
      description:
        'how host commands run: chrooted into --host-root (default), through the host nsenter into PID 1, or as they are',
    },
    runtime: { type: 'string', value: 'containerd|cri-o|docker', description: 'the runtime (default containerd)' },
    'runtime-root': {
      type: 'string',
      value: 'DIR',
      description:
        "the runtime's root on the host (default /var/lib/containerd, /var/lib/containers/storage, /var/lib/docker)",
    },
    'crio-runroot': {
      type: 'string',
      value: 'DIR',
      description: "CRI-O's runroot on the host (default /run/containers/storage)",
    },
    'docker-config': {
      type: 'string',
      value: 'FILE',
      description: "dockerd's daemon.json on the host (default /etc/docker/daemon.json)",
    },
    services: {
      type: 'string',
      value: 'systemd|commands',
      description:
        'how the kubelet and the runtime are stopped and started: systemd units (default) or the --stop-*/--start-* commands',
    },
    'kubelet-unit': { type: 'string', value: 'UNIT', description: "the kubelet's systemd unit (default kubelet)" },
    'runtime-unit': {
      type: 'string',
      multiple: true,
      value: 'UNIT',
      description: "the runtime's systemd units, in stop order (default the runtime's, as fleet manifests names them)",
    },
    'stop-kubelet': { type: 'string', value: 'CMD', description: '--services commands: stops the kubelet' },
    'start-kubelet': { type: 'string', value: 'CMD', description: '--services commands: starts the kubelet' },
    'stop-runtime': { type: 'string', value: 'CMD', description: '--services commands: stops the runtime' },
    'start-runtime': { type: 'string', value: 'CMD', description: '--services commands: starts the runtime' },
    swap: {
      type: 'string',
      required: true,
      value: 'CMD',
      description: 'the host command that installs the new kubelet (it does not start it); words split on spaces',
    },
    'kubelet-version-command': {
      type: 'string',
      value: 'CMD',
      description:
        "prints the installed kubelet's version, to tell after a failed swap which one is installed (default kubelet --version)",
    },
    'state-dir': {
      type: 'string',
      value: 'DIR',
      description: 'on the host: where the upgrade keeps its journal, plan and backups (default /var/lib/kubelet-hash)',
    },
    'feature-gates': GATES,
    'accept-cause': ACCEPT_CAUSE,
    'step-timeout': {
      type: 'string',
      value: 'SECONDS',
      description: 'how long one host command may run (default 600)',
    },
  },
  operands: [],
  examples: [
    {
      comment: 'in the system-upgrade-controller Job (host at /host)',
      command:
        'kubelet-hash upgrade-node --from 1.30 --to 1.31 --node "$NODE" --swap "apt-get install -y kubelet=1.31.14-1.1"',
    },
  ],
  finding: 'not upgraded: held by the gate, restored after a failure, or verify found containers that would restart',
  output: {
    row: z.object({ step: z.string(), event: z.string(), detail: z.string().optional(), at: z.string() }),
    summary: z.object({
      outcome: z.enum(Object.keys(OUTCOMES) as [keyof typeof OUTCOMES, ...(keyof typeof OUTCOMES)[]]),
      detail: z.string(),
      journal: z.string().describe('the journal on the host (as the agent sees it)'),
    }),
  },
  async run(ctx) {
    const v = ctx.values;
    const from = str(v, 'from', true);
    const to = str(v, 'to', true);
    const hostRoot = str(v, 'host-root') ?? '/host';
    const exec = (str(v, 'host-exec') ?? 'chroot') as HostExec;
    if (!HOST_EXECS.includes(exec)) throw new UsageError(`--host-exec: one of ${HOST_EXECS.join(', ')}`);
    const seconds = Number(str(v, 'step-timeout') ?? '600');
    if (!Number.isInteger(seconds) || seconds <= 0) throw new UsageError('--step-timeout: a whole number of seconds');
    const store = storeOf(ctx, hostRoot);
    const gates = featureGates(ctx);
    checkGatesFor(to, gates);
    // Read now: a misspelt class is bad input before anything runs, not a failed gate.
    acceptedCauses(ctx);
    const node = str(v, 'node');
    const podsFile = str(v, 'pods');
    if (node === undefined && podsFile === undefined)
      throw new UsageError('give --node (pods from the apiserver) or --pods');
    const pods = async (): Promise<unknown[]> => {
      if (podsFile !== undefined) return (await readObjects(ctx, [podsFile])).map((o) => o.object.value);
      const access = inClusterAccess(
        ctx.io.env ?? process.env,
        str(v, 'api-access') ?? IN_CLUSTER_DIR,
        str(v, 'server'),
      );
      // The pods themselves, as --pods gives them (readObjects opens a List): the plan, the
      // restart causes and verify each take one array of pods, never a List inside one.
      return (await listNodePods(access, node!)).items;
    };
    const base = onHost(hostRoot, str(v, 'state-dir') ?? '/var/lib/kubelet-hash', 'state-dir');
    const stateDir = join(base, `upgrade-${from}-${to}`);
    checkHostPath(hostRoot, stateDir);
    ensureOwnDirectory(base, 'the state directory');
    ensureOwnDirectory(stateDir, "this upgrade's state directory");
    const journalPath = join(stateDir, 'journal.ndjson');
    const journal = fileJournal(journalPath);
    const result = await upgradeNode(
      hostSteps({
        from,
        to,
        store,
        ...(node !== undefined ? { nodeName: node } : {}),
        pods,
        stateDir,
        host: { exec, hostRoot, timeoutMs: seconds * 1000 },
        units: unitsOf(ctx, store.runtime as Runtime, from),
        swap: words('swap', str(v, 'swap', true)),
        kubeletVersion: words('kubelet-version-command', str(v, 'kubelet-version-command') ?? 'kubelet --version'),
        audit: commandAudit(ctx),
        ...(gates ? { featureGates: gates } : {}),
        restartCauses: (listed) => causesOf(listed, from, to, ctx).filter((c) => !c.accepted),
        startBlockers: async () =>
          (
            await nodeStartBlockers({
              to,
              from,
              fsRoot: hostRoot,
              fallbackEndpoint: DEFAULT_ENDPOINTS[store.runtime as Runtime],
            })
          ).blockers,
        progress: (line) => {
          ctx.progress(0, 1, line);
        },
      }),
      journal,
    );
    const rows = journal.read();
    return {
      exitCode: result.exitCode as 0 | 1 | 2,
      rows,
      summary: { outcome: result.outcome, detail: result.detail, journal: journalPath },
      text:
        rows.map((r) => `${r.at} ${r.step} ${r.event}${r.detail !== undefined ? `: ${r.detail}` : ''}\n`).join('') +
        `# ${result.outcome}: ${result.detail}\n`,
    };
  },
};
