/**
 * A real OpenKruise (kruise-manager and kruise-daemon, built from the Go module proxy by
 * .ci/provision/65-openkruise.sh) run against a test cluster (cluster.ts), for the judge of `predict`
 * on OpenKruise workloads (test/real/openkruise.integration.test.ts).
 *
 * - CRDs: the release's own (config/crd/bases in the module cache, named by the record's CRDS).
 * - Webhooks: the release's config/webhook/manifests.yaml with its kustomize patch (patch_manifests.yaml:
 *   per-webhook selectors) merged in, under the names kruise-manager looks for (`kruise-` prefix). The
 *   manager generates its own CA and serving certificate (a Secret in kruise-system), then writes the
 *   caBundle and service into those configurations itself (pkg/webhook/util/controller). It serves on
 *   the node address inside the cluster's network namespace; a Service and Endpoints of ours point at
 *   it, and the apiserver (--enable-aggregator-routing) reaches webhooks through Endpoints, as there is
 *   no kube-proxy.
 * - kruise-daemon reads the node's CRI socket at /hostvarrun only (pkg/daemon/daemon.go), so it runs
 *   chrooted in a private mount namespace whose root is the machine's own directories bound onto a
 *   tmpfs, plus /hostvarrun bound to our containerd's directory: nothing on the machine is written.
 *
 * Stopping kills only the processes started here, by PID.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { inNetns, SpawnedDaemon, terminateChild } from './child-process.js';
import type { Cluster } from './cluster.js';

/** The namespace kruise-manager runs in (its POD_NAMESPACE, and the webhook Service's). */
const KRUISE_NAMESPACE = 'kruise-system';
const WEBHOOK_SERVICE = 'kruise-webhook-service';
const WEBHOOK_PORT = 9876;

type Json = Record<string, unknown>;
type Webhook = Json & { name: string };

/** The manifests' webhook configurations with the patch's fields merged in by webhook name (kustomize's strategic merge). */
function webhookConfigurations(manifests: string, patch: string): Json[] {
  const patches = new Map<string, Webhook>();
  for (const doc of parseAllDocuments(readFileSync(patch, 'utf8'))) {
    const d = doc.toJS() as { webhooks?: Webhook[] } | null;
    for (const w of d?.webhooks ?? []) patches.set(w.name, w);
  }
  const out: Json[] = [];
  for (const doc of parseAllDocuments(readFileSync(manifests, 'utf8'))) {
    const d = doc.toJS() as (Json & { metadata: { name: string }; webhooks: Webhook[] }) | null;
    if (!d) continue;
    out.push({
      ...d,
      // config/default/kustomization.yaml: namePrefix kruise-, the names pkg/webhook/util/configuration reads.
      metadata: { name: `kruise-${d.metadata.name}` },
      webhooks: d.webhooks.map((w) => {
        const clientConfig = w.clientConfig as { service: Json };
        return {
          ...w,
          ...patches.get(w.name),
          clientConfig: {
            ...clientConfig,
            service: { ...clientConfig.service, name: WEBHOOK_SERVICE, namespace: KRUISE_NAMESPACE },
          },
        };
      }),
    });
  }
  return out;
}

/**
 * The chroot for kruise-daemon, made inside `unshare --mount --propagation private`: a tmpfs root
 * holding the machine's top-level directories (bound) and links, and /hostvarrun bound to $2.
 */
const DAEMON_ROOT_SCRIPT = `set -eu
root=$1 varrun=$2
shift 2
mount -t tmpfs kh-kruise-daemon "$root"
for entry in /*; do
  name=\${entry#/}
  if [ -L "$entry" ]; then ln -s "$(readlink "$entry")" "$root/$name"
  elif [ -d "$entry" ]; then
    mkdir "$root/$name"
    # Only the kernel's file systems with what is mounted under them: a recursive bind of /tmp would
    # also copy the containers' rootfs mounts into this namespace.
    case $name in dev | proc | sys) mount --rbind "$entry" "$root/$name" ;; *) mount --bind "$entry" "$root/$name" ;; esac
  fi
done
mkdir "$root/hostvarrun"
mount --bind "$varrun" "$root/hostvarrun"
exec chroot "$root" "$@"
`;

export class Kruise {
  private manager: SpawnedDaemon | undefined;
  private daemon: SpawnedDaemon | undefined;
  private readonly dir: string;

  constructor(
    private readonly cluster: Cluster,
    private readonly record: Readonly<Record<string, string>>,
    /** kruise-manager's --feature-gates (`InPlaceWorkloadVerticalScaling=true`), also given to kruise-daemon. */
    private readonly featureGates: Readonly<Record<string, boolean>> = {},
  ) {
    this.dir = join(cluster.dir, 'kruise');
    mkdirSync(this.dir, { recursive: true });
  }

  /** The ends of both logs, for a failure message. */
  logs(): string {
    return `kruise-manager:\n${this.manager?.log.slice(-4000) ?? ''}\nkruise-daemon:\n${this.daemon?.log.slice(-3000) ?? ''}`;
  }

  private gatesFlag(): string[] {
    const gates = Object.entries(this.featureGates).map(([k, v]) => `${k}=${String(v)}`);
    return gates.length ? [`--feature-gates=${gates.join(',')}`] : [];
  }

  /** Installs CRDs and webhook plumbing, starts kruise-manager and kruise-daemon, waits until both serve. */
  async start(): Promise<void> {
    const c = this.cluster;
    const crds = this.record.CRDS!;
    for (const f of readdirSync(crds)
      .filter((n) => n.endsWith('.yaml'))
      .sort())
      c.kubectlOk(['create', '-f', join(crds, f)]);
    c.kubectlOk(['wait', '--for', 'condition=established', '--timeout=120s', 'crd', '--all']);
    for (const ns of [KRUISE_NAMESPACE, 'kruise-daemon-config']) c.kubectlOk(['create', 'namespace', ns]);
    const nodeIp = c
      .kubectlOk(['get', 'node', c.node, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])
      .trim();
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: WEBHOOK_SERVICE, namespace: KRUISE_NAMESPACE },
      spec: { ports: [{ port: 443, targetPort: WEBHOOK_PORT }] },
    };
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: WEBHOOK_SERVICE, namespace: KRUISE_NAMESPACE },
      subsets: [{ addresses: [{ ip: nodeIp }], ports: [{ port: WEBHOOK_PORT }] }],
    };
    const configs = webhookConfigurations(
      this.record.WEBHOOK_MANIFESTS!,
      join(this.record.WEBHOOK_MANIFESTS!, '..', 'patch_manifests.yaml'),
    );
    c.kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service, endpoints, ...configs] }),
    );

    const kubeconfig = join(c.dir, 'admin.kubeconfig');
    const [cmd, args] = inNetns(c.netns, this.record.MANAGER!, [
      '--enable-leader-election=false',
      '--enable-pprof=false',
      '--metrics-addr=127.0.0.1:18080',
      '--health-probe-addr=127.0.0.1:18000',
      '--v=4',
      ...this.gatesFlag(),
    ]);
    this.manager = new SpawnedDaemon(cmd, args, 4_000_000, {
      ...process.env,
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: KRUISE_NAMESPACE,
      WEBHOOK_PORT: String(WEBHOOK_PORT),
      WEBHOOK_CERT_DIR: join(this.dir, 'webhook-certs'),
    });
    const manager = this.manager;
    this.logTo(manager, 'kruise-manager.log');
    // Ready once it set up its controllers (after its webhook answered its own health check) and the
    // apiserver reaches the webhook: a server-side dry run of a CloneSet goes through the mutating one.
    await manager.waitFor(
      'its controllers set up',
      () => manager.log.includes('setup controllers'),
      Date.now() + 240_000,
      1000,
    );
    await manager.waitFor(
      'the apiserver reaching its webhook',
      () =>
        c.kubectl(
          ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
          JSON.stringify({
            apiVersion: 'apps.kruise.io/v1alpha1',
            kind: 'CloneSet',
            metadata: { name: 'probe', namespace: 'default' },
            spec: {
              selector: { matchLabels: { app: 'probe' } },
              template: { metadata: { labels: { app: 'probe' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
            },
          }),
        ).code === 0,
      Date.now() + 120_000,
      1000,
    );

    const varrun = join(c.runtime.socket, '..');
    const [dcmd, dargs] = inNetns(c.netns, 'unshare', [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      DAEMON_ROOT_SCRIPT,
      'kruise-daemon-root',
      join(this.dir, 'daemon-root'),
      varrun,
      this.record.DAEMON!,
      '--socket-file=containerd.sock',
      '--addr=127.0.0.1:10221',
      '--enable-pprof=false',
      '--v=4',
      ...this.gatesFlag(),
    ]);
    mkdirSync(join(this.dir, 'daemon-root'), { recursive: true });
    this.daemon = new SpawnedDaemon(dcmd, dargs, 4_000_000, {
      ...process.env,
      KUBECONFIG: kubeconfig,
      NODE_NAME: c.node,
      POD_NAMESPACE: KRUISE_NAMESPACE,
    });
    const daemon = this.daemon;
    this.logTo(daemon, 'kruise-daemon.log');
    await daemon.waitFor(
      'the CRI socket',
      () => daemon.log.includes('Find configured CRI socket'),
      Date.now() + 60_000,
      500,
    );
  }

  /** Also on disk, for a look while the test runs or after it failed. */
  private logTo(d: SpawnedDaemon, name: string): void {
    d.child.stderr?.on('data', (b: Buffer) => {
      appendFileSync(join(this.dir, name), b);
    });
  }

  /** Whether both still run. */
  get running(): boolean {
    return this.manager?.exited === undefined && this.daemon?.exited === undefined;
  }

  async stop(): Promise<void> {
    for (const d of [this.daemon, this.manager]) if (d) await terminateChild(d.child, 20_000);
  }
}
