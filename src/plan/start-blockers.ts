/**
 * What stops the target kubelet from starting at all, checked before the window opens: a flag it
 * no longer parses (the kubelet exits on an unknown flag), and cgroup v1 where the target refuses it
 * by default. Each blocker names the release range and where upstream shows it; everything here was
 * read in the kubelet's sources at the release tags named.
 */
import { parseKubeletVersion } from '../releases/index.js';

/** One reason the target kubelet will not start. */
export interface StartBlocker {
  kind: 'removed-flag' | 'cgroup-v1';
  /** `--pod-infra-container-image`, `cgroup v1`. */
  subject: string;
  /** The targets it applies to: `≥ 1.35`. */
  releases: string;
  /** Where upstream shows it. */
  source: string;
  message: string;
}

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
        subject: 'cgroup v1',
        releases: '≥ 1.35',
        source:
          'KEP-5573: failCgroupV1 defaults to true from v1.35.0 (pkg/kubelet/apis/config/v1beta1/defaults.go), and validation_linux.go refuses to start on a cgroup v1 host with it',
        message: `the ${target.release} kubelet refuses to start on a cgroup v1 host unless its configuration sets failCgroupV1: false (or --fail-cgroupv1=false)`,
      });
  }
  return out;
}
