/**
 * What stops the target kubelet from starting at all, checked before the window opens: a flag it
 * no longer parses (the kubelet exits on an unknown flag), and cgroup v1 where the target refuses it
 * by default. Each blocker names the release range and where upstream shows it; everything here was
 * read in the kubelet's sources at the release tags named.
 */
import { parseKubeletVersion } from '../releases/index.js';

/** One reason the target kubelet will not start (`blocks`), or may not and only the runtime can tell (`unknown`). */
export interface StartBlocker {
  kind: 'removed-flag' | 'cgroup-v1' | 'runtime-config' | 'cgroup-driver' | 'checkpoint';
  verdict: 'blocks' | 'unknown';
  /** `--pod-infra-container-image`, `cgroup v1`. */
  subject: string;
  /** The targets it applies to: `≥ 1.35`. */
  releases: string;
  /** Where upstream shows it. */
  source: string;
  message: string;
}

/**
 * The runtime's answer to CRI RuntimeConfig, as discovery's CRI client reports it (its
 * `CriRuntimeConfig`, the same shape: declared here so the pure plan imports nothing of the node's).
 */
type RuntimeConfigAnswer =
  | { answer: 'served'; cgroupDriver?: number }
  | { answer: 'unimplemented'; details: string }
  | { answer: 'failed'; status: string; details: string };

/** What the node runs the kubelet with. */
export interface StartBlockerInput {
  /** The target release (`1.35`, `v1.35.2`). */
  to: string;
  /** The kubelet's command line (after the binary), as the service starts it. */
  flags?: readonly string[];
  /** The kubelet's configuration file, parsed (a KubeletConfiguration). */
  config?: Record<string, unknown>;
  /** The node's cgroup hierarchy; unknown when not given. */
  cgroup?: 'v1' | 'v2';
  /** The release running now: tells whether its kubelet already took the cgroup driver from the runtime. */
  from?: string;
  /**
   * The runtime's answer to CRI RuntimeConfig, or why it was not asked (no endpoint). Without it the
   * runtime is not checked at all (a library caller that does not care).
   */
  runtimeConfig?: RuntimeConfigAnswer | { answer: 'not-asked'; reason: string };
  /** The kubelet's checkpoint files' text, by name under its root dir (`cpu_manager_state`, `dra_manager_state`); absent ones left out. */
  checkpoints?: Readonly<Record<string, string>>;
}

interface RemovedFlag {
  flags: readonly string[];
  since: number;
  source: string;
}

// cAdvisor flags the kubelet registered as deprecated through 1.36 (cmd/kubelet/app/options/
// globalflags_linux.go at v1.36.0); at v1.37.2 only housekeeping-interval is left.
const CADVISOR_FLAGS = [
  'application-metrics-count-limit',
  'boot-id-file',
  'container-hints',
  'containerd',
  'containerd-namespace',
  'enable-load-reader',
  'event-storage-age-limit',
  'event-storage-event-limit',
  'global-housekeeping-interval',
  'log-cadvisor-usage',
  'machine-id-file',
  'storage-driver-buffer-duration',
  'storage-driver-db',
  'storage-driver-host',
  'storage-driver-password',
  'storage-driver-secure',
  'storage-driver-table',
  'storage-driver-user',
];

const REMOVED_FLAGS: readonly RemovedFlag[] = [
  {
    flags: ['pod-infra-container-image'],
    since: 35,
    source:
      'kubernetes#133779: deprecated in cmd/kubelet/app/server.go at v1.34.0 ("will be removed in 1.35"), no longer registered at v1.35.0 (unknown flag: the kubelet exits); the sandbox image is the runtime’s setting',
  },
  {
    flags: CADVISOR_FLAGS,
    since: 37,
    source:
      'cmd/kubelet/app/options/globalflags_linux.go: registered deprecated ("a cadvisor flag that was mistakenly registered") at v1.36.0, gone at v1.37.2',
  },
];

/** `--boot_id_file=x` → `boot-id-file` (pflag, as the kubelet sets it up, takes _ for -). */
function flagName(arg: string): string | undefined {
  if (!arg.startsWith('--') || arg === '--') return undefined;
  return arg.slice(2).split('=')[0]!.replaceAll('_', '-');
}

/** A boolean flag's last value: `--name=false`, or `true` when given bare (pflag takes no separate value for booleans). */
function boolFlag(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (const arg of flags) {
    if (flagName(arg) !== name) continue;
    const eq = arg.indexOf('=');
    value = eq >= 0 ? arg.slice(eq + 1) : 'true';
  }
  return value;
}

/** Every reason the `to` kubelet will not start with these flags, this configuration, on this cgroup hierarchy. */
export function startBlockers(input: StartBlockerInput): StartBlocker[] {
  const target = parseKubeletVersion(input.to, ['to']);
  const flags = input.flags ?? [];
  const given = new Set(flags.map(flagName).filter((f) => f !== undefined));
  const out: StartBlocker[] = [];
  for (const removed of REMOVED_FLAGS) {
    if (target.minor < removed.since) continue;
    for (const flag of removed.flags)
      if (given.has(flag))
        out.push({
          kind: 'removed-flag',
          verdict: 'blocks',
          subject: `--${flag}`,
          releases: `≥ 1.${removed.since}`,
          source: removed.source,
          message: `the ${target.release} kubelet does not know --${flag} and exits ("unknown flag"): remove it from the kubelet's command line before starting it`,
        });
  }
  if (target.minor >= 35 && input.cgroup === 'v1') {
    // The flag wins over the file (kubelet flag precedence); either may turn the check off.
    const flag = boolFlag(flags, 'fail-cgroupv1');
    const configured = input.config?.['failCgroupV1'];
    const off = flag !== undefined ? flag === 'false' : configured === false;
    if (!off)
      out.push({
        kind: 'cgroup-v1',
        verdict: 'blocks',
        subject: 'cgroup v1',
        releases: '≥ 1.35',
        source:
          'KEP-5573: failCgroupV1 defaults to true from v1.35.0 (pkg/kubelet/apis/config/v1beta1/defaults.go), and validation_linux.go refuses to start on a cgroup v1 host with it',
        message: `the ${target.release} kubelet refuses to start on a cgroup v1 host unless its configuration sets failCgroupV1: false (or --fail-cgroupv1=false)`,
      });
  }
  out.push(...checkpointBlockers(input, target.minor));
  if (input.runtimeConfig !== undefined) out.push(...runtimeConfigBlockers(input, target.minor, input.runtimeConfig));
  return out;
}

/** The last value of a gate in `--feature-gates` (comma-separated Name=bool, every occurrence) over the file's featureGates. */
function gateSetting(flags: readonly string[], config: Record<string, unknown> | undefined, gate: string) {
  let value: boolean | undefined;
  const inFile = config?.['featureGates'];
  if (inFile && typeof inFile === 'object') {
    const v = (inFile as Record<string, unknown>)[gate];
    if (typeof v === 'boolean') value = v;
  }
  flags.forEach((arg, i) => {
    if (flagName(arg) !== 'feature-gates') return;
    const eq = arg.indexOf('=');
    const list = eq >= 0 ? arg.slice(eq + 1) : (flags[i + 1] ?? '');
    for (const pair of list.split(',')) {
      const [name, v] = pair.split('=').map((x) => x.trim());
      if (name === gate && v !== undefined) value = ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
    }
  });
  return value;
}

/** A string flag's last value (`--name=v` or `--name v`). */
function stringFlag(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  flags.forEach((arg, i) => {
    if (flagName(arg) !== name) return;
    const eq = arg.indexOf('=');
    value = eq >= 0 ? arg.slice(eq + 1) : flags[i + 1];
  });
  return value;
}

/**
 * Whether a kubelet of `minor` asks the runtime for its cgroup driver at start: KubeletCgroupDriverFromCRI,
 * alpha (off) at 1.28, beta (on) at 1.31, GA and locked on at 1.34 (pkg/features/kube_features.go at
 * v1.34.4), from where cmd/kubelet/app/server.go calls getCgroupDriverFromCRI without the gate.
 */
function asksRuntime(minor: number, flags: readonly string[], config: Record<string, unknown> | undefined): boolean {
  if (minor < 28) return false;
  if (minor >= 34) return true;
  return gateSetting(flags, config, 'KubeletCgroupDriverFromCRI') ?? minor >= 31;
}

const RUNTIME_CONFIG_SOURCE =
  'cmd/kubelet/app/server.go getCgroupDriverFromCRI (v1.30.14:1393–1404, v1.34.4:1387–1400, v1.37.2:1466–1479): UNIMPLEMENTED falls back to the configured cgroupDriver; any other error is retried three times, 2 s apart, then the kubelet exits; a driver other than SYSTEMD/CGROUPFS is an error';
const DRIVERS = ['systemd', 'cgroupfs'];

/** What the runtime's RuntimeConfig answer means for the target (nothing when the target does not ask). */
function runtimeConfigBlockers(
  input: StartBlockerInput,
  minor: number,
  runtime: NonNullable<StartBlockerInput['runtimeConfig']>,
): StartBlocker[] {
  const flags = input.flags ?? [];
  if (!asksRuntime(minor, flags, input.config)) return [];
  const to = `1.${minor}`;
  const base = { releases: '≥ 1.28 (gate), ≥ 1.31 (default), ≥ 1.34 (always)', source: RUNTIME_CONFIG_SOURCE };
  if (runtime.answer === 'not-asked')
    return [
      {
        kind: 'runtime-config',
        verdict: 'unknown',
        subject: 'CRI RuntimeConfig',
        ...base,
        message: `the ${to} kubelet asks the runtime for its cgroup driver at start; the runtime was not asked: ${runtime.reason}`,
      },
    ];
  // An older runtime: the kubelet keeps its configured driver (1.37.2 counts it in the
  // cri_losing_support metric labelled 1.38.0, so a later release may refuse it).
  if (runtime.answer === 'unimplemented') return [];
  if (runtime.answer === 'failed')
    return [
      {
        kind: 'runtime-config',
        verdict: 'unknown',
        subject: 'CRI RuntimeConfig',
        ...base,
        message: `the runtime answered RuntimeConfig with ${runtime.status} (${runtime.details}): the ${to} kubelet exits when that persists over its three tries`,
      },
    ];
  if (runtime.cgroupDriver === undefined) return []; // no linux section: the configured driver stays
  const driver = DRIVERS[runtime.cgroupDriver];
  if (driver === undefined)
    return [
      {
        kind: 'runtime-config',
        verdict: 'blocks',
        subject: 'CRI RuntimeConfig',
        ...base,
        message: `the runtime reports cgroup driver ${runtime.cgroupDriver}, neither SYSTEMD (0) nor CGROUPFS (1): the ${to} kubelet exits ("runtime returned an unknown cgroup driver")`,
      },
    ];
  const configured = stringFlag(flags, 'cgroup-driver') ?? configString(input.config, 'cgroupDriver') ?? 'cgroupfs';
  if (configured === driver) return [];
  const from = input.from === undefined ? undefined : parseKubeletVersion(input.from, ['from']).minor;
  if (from !== undefined && asksRuntime(from, flags, input.config)) return []; // it already runs with the runtime's
  return [
    {
      kind: 'cgroup-driver',
      verdict: from === undefined ? 'unknown' : 'blocks',
      subject: `cgroup driver ${configured} → ${driver}`,
      ...base,
      source: `${RUNTIME_CONFIG_SOURCE}; cri-api api.proto LinuxRuntimeConfiguration (v0.37.2:2370–2378): the driver must not change while containers run, a change needs every pod removed`,
      message:
        from === undefined
          ? `the ${to} kubelet takes cgroup driver ${driver} from the runtime, not the configured ${configured}; whether the running kubelet already does is unknown (give the release it runs)`
          : `the ${to} kubelet takes cgroup driver ${driver} from the runtime where the running 1.${from} kubelet uses the configured ${configured}: the running pods' cgroups were made under ${configured}; set cgroupDriver: ${driver} (and match the runtime) before the window`,
    },
  ];
}

const configString = (config: Record<string, unknown> | undefined, key: string): string | undefined => {
  const v = config?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** The JSON object of a checkpoint file, or undefined when it is not one. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checkpoint files the target cannot read, each read in the kubelet's sources per release:
 * - cpu_manager_state in the v1 form (entries: container → cpuset string): 1.36.3 still migrates it
 *   (state_checkpoint.go migrateV1CheckpointToV2Checkpoint), 1.37.2 reads v2 as its oldest form, and
 *   NewCheckpointState refuses to start ("could not restore state from checkpoint … please drain this
 *   node and delete the CPU manager checkpoint file"). A v1 file without entries differs from v2 only
 *   in its checksum, which is not recomputed here.
 * - dra_manager_state in the ≤ 1.30 form (`version`, `entries`): from 1.31 the file is
 *   {Data, Checksum} over a DRACheckpoint (cm/dra/state/checkpoint.go at v1.31.14); the old form's
 *   checksum does not verify, GetOrCreate fails and container_manager_linux.go returns the error, so
 *   the kubelet does not start — where the DRA manager runs: DynamicResourceAllocation on (1.31–1.33
 *   by the gate, on by default at 1.34, locked at 1.35; kube_features.go at v1.35.4).
 * - read and found to block nothing on a crossing: memory_manager_state (1.36 and 1.37 migrate every
 *   older form), allocated_pods_state (one form 1.33–1.37; a ≤ 1.32 pod_status_manager_state is not
 *   read from 1.33), device-plugins/kubelet_internal_checkpoint (an unreadable one is logged and the
 *   kubelet goes on: devicemanager/manager.go Start at v1.37.2).
 * A file that is no JSON object at all: the CPU and memory managers refuse to start on it in every release.
 */
function checkpointBlockers(input: StartBlockerInput, minor: number): StartBlocker[] {
  const files = input.checkpoints ?? {};
  const out: StartBlocker[] = [];
  const to = `1.${minor}`;
  const found = (subject: string, releases: string, source: string, message: string): void => {
    out.push({ kind: 'checkpoint', verdict: 'blocks', subject, releases, source, message });
  };
  for (const name of ['cpu_manager_state', 'memory_manager_state']) {
    const text = files[name];
    if (text !== undefined && jsonObject(text) === undefined)
      found(
        name,
        'every release',
        `${name === 'cpu_manager_state' ? 'cm/cpumanager' : 'cm/memorymanager'}/state/state_checkpoint.go NewCheckpointState`,
        `${name} is not a JSON object: the ${to} kubelet refuses to start ("could not restore state from checkpoint"); drain the node and delete it`,
      );
  }
  const cpu = files['cpu_manager_state'] === undefined ? undefined : jsonObject(files['cpu_manager_state']);
  const entries = cpu?.['entries'];
  if (
    minor >= 37 &&
    entries !== null &&
    typeof entries === 'object' &&
    Object.values(entries).some((v) => typeof v === 'string')
  )
    found(
      'cpu_manager_state',
      '≥ 1.37',
      'cm/cpumanager/state/state_checkpoint.go: migrateV1CheckpointToV2Checkpoint at v1.36.3, gone at v1.37.2 (v2 the oldest form read)',
      `cpu_manager_state is in the v1 form (entries by container): the ${to} kubelet cannot read it and refuses to start; drain the node and delete it, or let a ≤ 1.36 kubelet rewrite it`,
    );
  const dra = files['dra_manager_state'] === undefined ? undefined : jsonObject(files['dra_manager_state']);
  const draOn =
    minor >= 35 ||
    (minor >= 31 && (gateSetting(input.flags ?? [], input.config, 'DynamicResourceAllocation') ?? minor >= 34));
  if (draOn && dra !== undefined && 'version' in dra && !Object.keys(dra).some((k) => k.toLowerCase() === 'data'))
    found(
      'dra_manager_state',
      '≥ 1.31 with DynamicResourceAllocation (default from 1.34)',
      'cm/dra/state/checkpoint.go: {version, entries} at v1.30.14, {Data, Checksum} of a DRACheckpoint from v1.31.14; claiminfo.go newClaimInfoCache fails on a checksum that does not verify and container_manager_linux.go returns it',
      `dra_manager_state is in the ≤ 1.30 form: the ${to} kubelet's DRA manager cannot read it and the kubelet does not start; drain the node and delete it`,
    );
  return out;
}
