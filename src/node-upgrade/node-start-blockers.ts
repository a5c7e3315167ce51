/**
 * The start blockers of one node, read from the node itself: the kubelet's command line (given, or
 * the running kubelet's from /proc), the configuration file it names, the cgroup hierarchy, the
 * checkpoint files under its root dir, and the runtime's answer to CRI RuntimeConfig on the endpoint
 * the kubelet is configured with. `doctor --to` and `upgrade-node`'s gate both ask this one reader,
 * so the two never disagree. Read-only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupVersion, criRuntimeConfig, kubeletProcesses, type CriRuntimeConfig } from '../discovery/index.js';
import { readDocuments } from '../manifests/index.js';
import { startBlockers, type StartBlocker } from '../plan/index.js';

/** Where the kubelet keeps its config (kubeadm's) and its state, unless its flags say otherwise. */
const DEFAULT_KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';
const DEFAULT_ROOT_DIR = '/var/lib/kubelet';
const CHECKPOINTS = ['cpu_manager_state', 'memory_manager_state', 'dra_manager_state'];

export interface NodeStartOptions {
  to: string;
  /** The release running now (for the cgroup driver's change). */
  from?: string;
  /** The node's / (default /). */
  fsRoot?: string;
  /** The kubelet's flags and where they came from; default the running kubelet's (/proc under fsRoot). */
  flags?: { args: readonly string[]; how: string };
  /** The kubelet's config file on the node when its flags name none (default /var/lib/kubelet/config.yaml). */
  configFile?: string;
  /** The runtime endpoint on the node; default the kubelet's --container-runtime-endpoint, else its config's, else `fallbackEndpoint`. */
  endpoint?: string;
  /** The runtime's usual socket, asked when the kubelet names none. */
  fallbackEndpoint?: string;
  /** How long the runtime may take to answer (default 10 s). */
  timeoutMs?: number;
}

export interface NodeStart {
  blockers: StartBlocker[];
  flags: readonly string[];
  /** Where the flags came from: the file given, /proc/PID/cmdline, or why there are none. */
  flagsFrom: string;
  /** The config file read (node path), when there was one. */
  config?: string;
  cgroup?: 'v1' | 'v2';
  /** The endpoint asked, and its answer (or why it was not asked). */
  runtime: { endpoint?: string; answer: CriRuntimeConfig | { answer: 'not-asked'; reason: string } };
  /** The kubelet's root dir and the checkpoint files found in it. */
  rootDir: string;
  checkpoints: string[];
  /** What could not be read as expected, for people. */
  warnings: string[];
}

/** A flag's last value, `--name=v` or `--name v` (pflag). */
function flagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  args.forEach((a, i) => {
    if (a === `--${name}`) value = args[i + 1];
    else if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
  });
  return value;
}

const onNode = (fsRoot: string, path: string): string => (fsRoot === '/' ? path : join(fsRoot, path));

/** Reads the node's start blockers for a move to `o.to`. */
export async function nodeStartBlockers(o: NodeStartOptions): Promise<NodeStart> {
  const fsRoot = o.fsRoot ?? '/';
  const warnings: string[] = [];
  let flags: readonly string[];
  let flagsFrom: string;
  if (o.flags) ({ args: flags, how: flagsFrom } = o.flags);
  else {
    const found = kubeletProcesses(onNode(fsRoot, '/proc'));
    if (found.length > 1) {
      warnings.push(
        `${found.length} kubelet processes (${found.map((p) => p.pid).join(', ')}): their flags are not checked; give the node's`,
      );
      flags = [];
      flagsFrom = 'several kubelets running';
    } else {
      flags = found[0]?.args ?? [];
      flagsFrom = found[0] ? `/proc/${found[0].pid}/cmdline` : 'no kubelet running';
    }
  }
  const configPath = flagValue(flags, 'config') ?? o.configFile ?? DEFAULT_KUBELET_CONFIG;
  let config: Record<string, unknown> | undefined;
  if (existsSync(onNode(fsRoot, configPath))) {
    const doc = readDocuments(readFileSync(onNode(fsRoot, configPath), 'utf8'))[0]?.value;
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) config = doc as Record<string, unknown>;
    else warnings.push(`${configPath} is not a KubeletConfiguration object`);
  }
  const cgroup = cgroupVersion(fsRoot);
  const rootDir = flagValue(flags, 'root-dir') ?? DEFAULT_ROOT_DIR;
  const checkpoints: Record<string, string> = {};
  for (const name of CHECKPOINTS) {
    const file = onNode(fsRoot, join(rootDir, name));
    if (existsSync(file)) checkpoints[name] = readFileSync(file, 'utf8');
  }
  const configured = config?.['containerRuntimeEndpoint'];
  const endpoint =
    o.endpoint ??
    flagValue(flags, 'container-runtime-endpoint') ??
    (typeof configured === 'string' && configured !== '' ? configured : undefined) ??
    o.fallbackEndpoint;
  let answer: NodeStart['runtime']['answer'];
  if (endpoint === undefined)
    answer = { answer: 'not-asked', reason: "no runtime endpoint: the kubelet's flags and config name none" };
  else if (!endpoint.startsWith('unix://') && !endpoint.startsWith('/'))
    answer = { answer: 'not-asked', reason: `${endpoint} is not a unix socket` };
  else {
    const socket = onNode(fsRoot, endpoint.replace(/^unix:\/\//, ''));
    answer = await criRuntimeConfig(socket, o.timeoutMs);
  }
  const blockers = startBlockers({
    to: o.to,
    flags,
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(cgroup !== undefined ? { cgroup } : {}),
    runtimeConfig: answer,
    checkpoints,
  });
  return {
    blockers,
    flags,
    flagsFrom,
    ...(config !== undefined ? { config: configPath } : {}),
    ...(cgroup !== undefined ? { cgroup } : {}),
    runtime: { ...(endpoint !== undefined ? { endpoint } : {}), answer },
    rootDir,
    checkpoints: Object.keys(checkpoints),
    warnings,
  };
}
