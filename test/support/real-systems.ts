/**
 * The one registry of the real systems the integration tests run against (containerd releases,
 * dockerd, kubelets, …), how a test finds them, and the rule for when one is missing.
 *
 * A provision script (`.ci/provision/NN-*.sh`) builds or unpacks a system into the cache outside the
 * clone and records it with `record_system NAME VERSION BIN=… [KEY=…]` (lib.sh): a file
 * `$KUBELET_HASH_CACHE/systems/NAME-VERSION.env`, written last. A test asks for systems with
 * {@link describeReal}; the suite runs when every record is there (and we are root on Linux), fails in
 * CI (`CI=true`) when one is missing, and is skipped elsewhere with the command that provisions it.
 * `real-systems-reporter.ts` prints one line per suite: `real: containerd 1.7.24 — 14 tests passed`.
 *
 * Adding a system is one entry in {@link REAL_SYSTEMS} plus the provision script that records it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';

/** A real system a test can ask for. */
interface RealSystemEntry {
  /** The system's name, as recorded (`containerd`, `kubelet`, …). */
  readonly system: string;
  /** Its version, as recorded (`1.7.24`). */
  readonly version: string;
  /** The provision scripts that install or build it and record it (run as root, in this order). */
  readonly provision: readonly string[];
  /** How suite names and `real:` lines call it, when not `system version`. */
  readonly label?: string;
}

const BOOKWORM = '.ci/provision/10-bookworm-systems.sh';
const RECORDS = '.ci/provision/20-real-system-records.sh';

const REAL_SYSTEMS: readonly RealSystemEntry[] = [
  { system: 'containerd', version: '1.6.20', provision: [BOOKWORM, RECORDS] },
  { system: 'containerd', version: '1.7.24', provision: [RECORDS] },
  { system: 'containerd', version: '2.1.9', provision: [RECORDS] },
  { system: 'dockerd', version: '20.10.24', provision: [BOOKWORM, RECORDS] },
  { system: 'kubelet', version: '1.20.2', provision: ['.ci/provision/30-kubelet-1.20.sh'] },
  { system: 'kubectl', version: '1.20.2', provision: ['.ci/provision/55-kubectl.sh'] },
  // Releases built from the Go module proxy (kubelet, kube-apiserver, kube-controller-manager and the
  // etcd each apiserver requires); 1.37.2 is the newest 1.37 patch the proxy served; 1.33.13 judges the
  // apiserver where the resize subresource turned on by default.
  ...['1.30.14', '1.31.14', '1.33.13', '1.37.2'].map((version) => ({
    system: 'kubernetes',
    version,
    provision: ['.ci/provision/60-kubernetes-modules.sh'],
  })),
  {
    // A one-node cluster crossing 1.30 → 1.31 (control plane, then kubelet): 60's two releases, 55's kubectl.
    system: 'cluster',
    version: '1.30.14-1.31.14',
    provision: ['.ci/provision/55-kubectl.sh', '.ci/provision/60-kubernetes-modules.sh'],
    label: 'cluster (apiserver 1.30.14 → 1.31.14, kubelet 1.30.14 → 1.31.14)',
  },
  {
    // A node crossing 1.32 → 1.33 under a 1.33.13 control plane throughout: 60's kubelet-only build of
    // 1.32.13 and its whole 1.33.13, 55's kubectl.
    system: 'cluster',
    version: '1.32.13-1.33.13',
    provision: ['.ci/provision/55-kubectl.sh', '.ci/provision/60-kubernetes-modules.sh'],
    label: 'cluster (apiserver 1.33.13, kubelet 1.32.13 → 1.33.13)',
  },
  {
    // A node crossing 1.34 → 1.35 under a 1.37.2 control plane (upgraded first, within the kubelets'
    // skew): 60's kubelet-only builds of 1.34.4 and 1.35.4 and its whole 1.37.2, 55's kubectl.
    system: 'cluster',
    version: '1.34.4-1.35.4',
    provision: ['.ci/provision/55-kubectl.sh', '.ci/provision/60-kubernetes-modules.sh'],
    label: 'cluster (apiserver 1.37.2, kubelet 1.34.4 → 1.35.4)',
  },
  {
    // kruise-manager and kruise-daemon built from the Go module proxy; its CRDs and webhook manifests
    // are read from the module cache (test/support/openkruise-judge.ts).
    system: 'openkruise',
    version: '1.8.2',
    provision: ['.ci/provision/65-openkruise.sh'],
    label: 'OpenKruise 1.8.2',
  },
  {
    // A one-node cluster of the newest release (control plane and kubelet): 60's build, 55's kubectl.
    system: 'cluster',
    version: '1.37.2',
    provision: ['.ci/provision/55-kubectl.sh', '.ci/provision/60-kubernetes-modules.sh'],
    label: 'cluster (apiserver 1.37.2, kubelet 1.37.2)',
  },
  {
    // A one-node 1.33 cluster (the resize subresource's first default-on release): 60's build, 55's kubectl.
    system: 'cluster',
    version: '1.33.13',
    provision: ['.ci/provision/55-kubectl.sh', '.ci/provision/60-kubernetes-modules.sh'],
    label: 'cluster (apiserver 1.33.13, kubelet 1.33.13)',
  },
  {
    // A one-node cluster's components (test/support/cluster.ts): the kubelet it records is 30's, kubectl 55's.
    system: 'cluster',
    version: '1.20.2',
    provision: ['.ci/provision/30-kubelet-1.20.sh', '.ci/provision/35-cluster-1.20.sh', '.ci/provision/55-kubectl.sh'],
    label: 'cluster (apiserver 1.20.2, kubelet 1.20.2)',
  },
];

/** Every containerd release the containerd tests run on. */
export const CONTAINERD_RELEASES = REAL_SYSTEMS.filter((s) => s.system === 'containerd').map((s) => s.version);

/** A system found where its provision script recorded it. */
export interface FoundSystem {
  readonly system: string;
  readonly version: string;
  /** The binary to run (`BIN=` of the record). */
  readonly bin: string;
  /** Every `KEY=VALUE` line of the record. */
  readonly record: Readonly<Record<string, string>>;
}

/** Where provision scripts cache builds and record systems (lib.sh's default). */
function cacheDir(): string {
  return process.env.KUBELET_HASH_CACHE ?? '/var/cache/kubelet-hash';
}

function entryOf(system: string, version: string): RealSystemEntry {
  const entry = REAL_SYSTEMS.find((s) => s.system === system && s.version === version);
  if (!entry) throw new Error(`${system} ${version} is not in REAL_SYSTEMS (test/support/real-systems.ts)`);
  return entry;
}

/** The recorded system, or why it cannot run here. */
function findSystem(system: string, version: string): FoundSystem | { missing: string } {
  entryOf(system, version);
  if (process.platform !== 'linux') return { missing: 'not Linux' };
  if (process.getuid?.() !== 0) return { missing: 'not running as root' };
  const file = join(cacheDir(), 'systems', `${system}-${version}.env`);
  if (!existsSync(file)) return { missing: `${system} ${version} is not provisioned (no ${file})` };
  const record: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) record[line.slice(0, eq)] = line.slice(eq + 1);
  }
  const bin = record.BIN;
  if (bin === undefined || !existsSync(bin)) return { missing: `${file} names no existing BIN` };
  return { system, version, bin, record };
}

/** `system version` pairs a suite needs, e.g. `[['kubelet', '1.20.2'], ['containerd', '1.6.20']]`. */
export type SystemNeeds = readonly (readonly [system: string, version: string])[];

/** The suite's name, which is also its summary line: `real: kubelet 1.20.2 on containerd 1.6.20`. */
function realSuiteName(needs: SystemNeeds, what?: string): string {
  const [first, ...rest] = needs.map(([s, v]) => entryOf(s, v).label ?? `${s} ${v}`);
  return `real: ${first ?? ''}${rest.length ? ` on ${rest.join(', ')}` : ''}${what ? ` (${what})` : ''}`;
}

/** The one command that provisions every missing system of `needs` (root, from the clone's root). */
function provisionCommand(needs: SystemNeeds): string {
  const scripts = [...new Set(needs.flatMap(([s, v]) => entryOf(s, v).provision))].sort();
  return `sudo sh -c '${scripts.map((s) => `bash ${s}`).join(' && ')}' (or CI=true bash .ci/run)`;
}

/**
 * A suite that runs on real systems. `body` gets the found systems by name and registers the tests;
 * it is called only when all of them are there. Missing one: in CI the suite fails (one failing test
 * saying what is missing); elsewhere it is skipped with the provision command.
 */
export function describeReal(
  needs: SystemNeeds,
  body: (systems: ReadonlyMap<string, FoundSystem>) => void,
  what?: string,
): void {
  const name = realSuiteName(needs, what);
  const found = new Map<string, FoundSystem>();
  const missing: string[] = [];
  for (const [system, version] of needs) {
    const f = findSystem(system, version);
    if ('missing' in f) missing.push(f.missing);
    else found.set(system, f);
  }
  if (missing.length === 0) {
    describe(name, () => {
      body(found);
    });
    return;
  }
  const why = [...new Set(missing)].join('; ');
  const how = provisionCommand(needs);
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('has its real systems (required in CI)', () => {
        throw new Error(`CI requires ${name.slice('real: '.length)}, but ${why}. Provision: ${how}`);
      });
    });
    return;
  }
  describe.skip(name, () => {
    it(`did not run: ${why}; to run it: ${how}`, () => {});
  });
}
