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

  /** Writes a static pod manifest (JSON is YAML too); the kubelet picks it up within fileCheckFrequency. */
  writeManifest(name: string, pod: unknown): void {
    writeFileSync(join(this.manifests, `${name}.json`), JSON.stringify(pod, null, 2));
  }

  async start(): Promise<void> {
    if (this.running) throw new Error('kubelet already started');
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
        cgroupsPerQOS: false,
        enforceNodeAllocatable: [],
        failSwapOn: false,
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: 'AlwaysAllow' },
        evictionHard: {},
        imageGCHighThresholdPercent: 100,
        fileCheckFrequency: '2s',
        syncFrequency: '5s',
      }),
    );
    const apiFlags = this.api ? ['--kubeconfig', this.api.kubeconfig, '--node-ip', this.api.nodeIp] : [];
    const [cmd, args] = inNetns(this.api?.netns, this.bin, [
      '--config',
      this.config,
      '--container-runtime=remote', // before 1.24 the default is dockershim
      '--container-runtime-endpoint',
      `unix://${this.criSocket}`,
      '--root-dir',
      this.root,
      '--cert-dir',
      join(this.dir, 'pki'),
      '--hostname-override',
      this.nodeName,
      '--v=2', // logs "SyncLoop (ADD, "file")" per pod: the sign it has seen them
      ...apiFlags,
    ]);
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
