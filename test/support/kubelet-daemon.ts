/**
 * A real kubelet without an apiserver, for integration tests: static pods from a manifest directory,
 * the CRI of a containerd the test started, cgroupfs with per-QoS cgroups off, no authentication
 * and no ports of its own but an unused one for its server. Started from the binary a provision
 * script built (real-systems.ts) and stopped by the PID we started: SIGTERM leaves its containers
 * running, as on a node whose kubelet is stopped for an upgrade.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { inNetns, SpawnedDaemon, terminateChild } from './child-process.js';

/** A TCP port nothing listens on right now (for the kubelet's server, which cannot be turned off). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/** How a kubelet registered to an apiserver runs (test/support/cluster.ts); without it, static pods only. */
export interface KubeletApiOptions {
  /** The kubeconfig naming the apiserver and the credentials the kubelet uses. */
  kubeconfig: string;
  /** The node's address: the kubelet's server listens there and reports it as the node IP. */
  nodeIp: string;
  /** The network namespace to run in (`/var/run/netns/NAME`). */
  netns: string;
}

/** The kubelet's minor release (`1.31.14` → 31), which decides the flags and configuration it accepts. */
function minorOf(release: string): number {
  const m = /^1\.(\d+)(?:\.\d+)?$/.exec(release);
  if (!m) throw new Error(`not a kubelet release: ${release}`);
  return Number(m[1]);
}

export class KubeletDaemon {
  readonly manifests: string;
  readonly root: string;
  private readonly config: string;
  private daemon: SpawnedDaemon | undefined;

  constructor(
    readonly dir: string,
    readonly bin: string,
    readonly criSocket: string,
    readonly nodeName: string,
    private readonly api?: KubeletApiOptions,
    /** The binary's release (`1.20.2`, `1.31.14`): flags and configuration differ across releases. */
    readonly release = '1.20.2',
    /** The mount namespace of its runtime, with private /var/log/pods (mount-namespace.ts). */
    private readonly mountns?: string,
    /** With a cgroup of the test's own (cgroup-root.ts): pod cgroups under it (cgroupsPerQOS), which in-place resize needs. */
    private readonly cgroupRoot?: string,
    /** The configuration's `featureGates` (an operator's, e.g. InPlacePodVerticalScaling on a 1.32 node). */
    private readonly featureGates?: Readonly<Record<string, boolean>>,
  ) {
    this.manifests = join(dir, 'manifests');
    this.root = join(dir, 'root');
    this.config = join(dir, 'kubelet-config.json');
    for (const d of [this.manifests, this.root, join(dir, 'pki')]) mkdirSync(d, { recursive: true });
  }

  /** The kubelet's stderr so far (klog). */
  get log(): string {
    return this.daemon?.log ?? '';
  }

  get running(): boolean {
    return this.daemon !== undefined && this.daemon.exited === undefined;
  }

  /**
   * Whether the kubelet has logged pods from `source` (at --v=2): `SyncLoop (ADD, "file")` before
   * structured logging, `"SyncLoop ADD" source="file"` after it (1.2x on).
   */
  sawPods(source: 'file' | 'api'): boolean {
    return this.log.includes(`SyncLoop (ADD, "${source}")`) || this.log.includes(`"SyncLoop ADD" source="${source}"`);
  }

  /** Writes a static pod manifest (JSON is YAML too); the kubelet picks it up within fileCheckFrequency. */
  writeManifest(name: string, pod: unknown): void {
    writeFileSync(join(this.manifests, `${name}.json`), JSON.stringify(pod, null, 2));
  }

  async start(): Promise<void> {
    if (this.running) throw new Error('kubelet already started');
    const minor = minorOf(this.release);
    writeFileSync(
      this.config,
      JSON.stringify({
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        kind: 'KubeletConfiguration',
        staticPodPath: this.manifests,
        // In the test's own network namespace the usual port is free; on the machine, any unused one.
        address: this.api?.nodeIp ?? '127.0.0.1',
        port: this.api ? 10250 : await unusedPort(),
        readOnlyPort: 0,
        healthzPort: 0,
        cgroupDriver: 'cgroupfs',
        ...(this.cgroupRoot === undefined
          ? { cgroupsPerQOS: false }
          : { cgroupsPerQOS: true, cgroupRoot: this.cgroupRoot }),
        enforceNodeAllocatable: [],
        failSwapOn: false,
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: 'AlwaysAllow' },
        evictionHard: {},
        imageGCHighThresholdPercent: 100,
        fileCheckFrequency: '2s',
        syncFrequency: '5s',
        // These machines run cgroup v1, which a kubelet refuses from 1.35 unless told not to.
        ...(minor >= 35 ? { failCgroupV1: false } : {}),
        ...(this.featureGates === undefined ? {} : { featureGates: this.featureGates }),
      }),
    );
    const apiFlags = this.api ? ['--kubeconfig', this.api.kubeconfig, '--node-ip', this.api.nodeIp] : [];
    const [cmd, args] = inNetns(
      this.api?.netns,
      this.bin,
      [
        '--config',
        this.config,
        // Before 1.24 the default is dockershim; from 1.27 the flag is refused.
        ...(minor < 24 ? ['--container-runtime=remote'] : []),
        '--container-runtime-endpoint',
        `unix://${this.criSocket}`,
        '--root-dir',
        this.root,
        '--cert-dir',
        join(this.dir, 'pki'),
        '--hostname-override',
        this.nodeName,
        '--v=2', // logs each SyncLoop ADD (see sawPods): the sign it has seen the pods
        ...apiFlags,
      ],
      this.mountns,
    );
    this.daemon = new SpawnedDaemon(cmd, args, 4_000_000);
    const daemon = this.daemon;
    // Also on disk (kubelet.log beside its root), for a look while the test runs or after it failed.
    daemon.child.stderr?.on('data', (d: Buffer) => {
      appendFileSync(join(this.dir, 'kubelet.log'), d);
    });
    await daemon.waitFor('start', () => daemon.log.includes('Started kubelet'), Date.now() + 60_000);
  }

  /** SIGTERM to the kubelet we started; its containers keep running. */
  async stop(): Promise<void> {
    const daemon = this.daemon;
    this.daemon = undefined;
    if (daemon) await terminateChild(daemon.child, 20_000);
  }
}
