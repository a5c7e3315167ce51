/**
 * A real one-node Kubernetes cluster a test starts and stops: 1.20.2 by default (the components from
 * .ci/provision/35-cluster-1.20.sh, the kubelet from 30-kubelet-1.20.sh), or any release's components
 * given as {@link ClusterComponents} (the Go module builds of 60-kubernetes-modules.sh), and containerd
 * from the containerd records. The control plane and the kubelet can each be replaced by another
 * release's while the cluster runs (an upgrade: {@link Cluster.upgradeControlPlane},
 * {@link Cluster.startNode}). Everything runs inside a network namespace the test creates, holding only
 * loopback, a bridge with the node's address (no port: nothing leaves it) and the CNI bridge the
 * plugins make for pods: etcd on loopback, the apiserver on the node address (a serving certificate
 * and a service-account signing key made here with openssl, a static token for the test's admin,
 * the ServiceAccount and LimitRanger admission plugins, Node and RBAC authorization), the controller
 * manager (the controllers the tests need), kube-proxy, containerd and the kubelet registered to the
 * apiserver. There is no scheduler: pods name their node. The test talks to the apiserver with
 * kubectl entered into the namespace and to containerd over its socket.
 *
 * containerd and the kubelet run in a mount namespace of the cluster's own, with private
 * /var/log/pods (mount-namespace.ts), so that clusters and kubelets of other tests run beside it.
 *
 * Teardown stops only the processes started here, by PID, kills the containers and shims of our
 * containerd, releases the mount namespace, unmounts what is left under our directory and removes
 * the network namespace.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBusyboxImage } from './busybox-image.js';
import { CgroupRoot } from './cgroup-root.js';
import { inNetns, SpawnedDaemon, terminateChild } from './child-process.js';
import { ContainerdDaemon } from './containerd-daemon.js';
import { KubeletDaemon } from './kubelet-daemon.js';
import { LogMountNamespace } from './mount-namespace.js';
import { unmountUnder } from './process-tree.js';
import type { FoundSystem } from './real-systems.js';

/** The local image every pod runs (imported, never pulled), and a second name of it for image patches. */
export const CLUSTER_IMAGE = 'kubelet-hash.local/busybox:1';
export const CLUSTER_IMAGE_2 = 'kubelet-hash.local/busybox:2';

/** The node's address, the pods' subnet and the services' range: private, and only inside the namespace. */
const NODE_IP = '10.250.0.1';
const POD_SUBNET = '10.251.0.0/24';
const SERVICE_RANGE = '10.96.0.0/24';
const KUBERNETES_SERVICE_IP = '10.96.0.1';
const APISERVER_PORT = 6443;

/**
 * What a cluster needs: a `cluster` record (real-systems.ts: KUBECTL, ETCD and CNI_BIN_DIR, and for
 * 1.20.2 its components) and a `containerd` record.
 */
export interface ClusterSystems {
  cluster: FoundSystem;
  /** The node's runtime; not needed by {@link Cluster.startApiserverOnly}. */
  containerd?: FoundSystem;
}

/** One release's control plane and kubelet. */
export interface ClusterComponents {
  /** `1.20.2`, `1.31.14`: flags differ across releases. */
  release: string;
  apiserver: string;
  controllerManager: string;
  kubelet: string;
  /** kube-proxy, when the release has one built (1.20.2's); without it, no Service reaches a pod. */
  proxy?: string;
  /** More kube-apiserver flags (`--feature-gates=…`; `--enable-aggregator-routing=true`: webhooks reached through Endpoints). */
  apiserverFlags?: readonly string[];
  /** The kubelet's release when it is not the control plane's (`release`): a node crossing under one control plane. */
  kubeletRelease?: string;
  /** The kubelet configuration's feature gates (its `featureGates`). */
  kubeletFeatureGates?: Readonly<Record<string, boolean>>;
}

/** The minor of `1.31.14` (31). */
const minorOf = (release: string): number => Number(release.split('.')[1]);

/** kubectl's result; `code` 0 is success. */
export interface KubectlResult {
  code: number;
  out: string;
  err: string;
}

export class Cluster {
  readonly node: string;
  /** The namespace's name (`ip netns`) and its path, which the processes enter. */
  readonly netnsName: string;
  readonly netns: string;
  readonly dir: string;
  private runtimeDaemon: ContainerdDaemon | undefined;
  private kubeletDaemon: KubeletDaemon | undefined;
  private readonly daemons: SpawnedDaemon[] = [];
  private readonly token = randomBytes(16).toString('hex');
  private readonly logs: LogMountNamespace;
  /** Pod cgroups under a cgroup of the cluster's own, when asked for (in-place resize needs them). */
  private readonly cgroups: CgroupRoot | undefined;
  /** More controllers and flags for the controller manager (the constructor's `controllers`, `args`). */
  private readonly manager: { controllers: readonly string[]; args: readonly string[] };
  private netnsMade = false;
  /** The running control plane's daemons (replaced by {@link upgradeControlPlane}). */
  private controlPlane: SpawnedDaemon[] = [];
  /** The components running now: the control plane's and the kubelet's may be of different releases. */
  private controlPlaneComponents: ClusterComponents;
  private kubeletComponents: ClusterComponents;

  constructor(
    private readonly systems: ClusterSystems,
    components?: ClusterComponents,
    /**
     * `podCgroups`: pod cgroups under a cgroup of the cluster's own (a resize needs them); `controllers`
     * (`node-lifecycle-controller`) and `args`: more for the controller manager, for the tests that need them.
     */
    options: { podCgroups?: boolean; controllers?: readonly string[]; args?: readonly string[] } = {},
  ) {
    const r = systems.cluster.record;
    // A one-release record: 1.20.2's (with kube-proxy) or a module build's (RELEASE=, no kube-proxy).
    this.controlPlaneComponents = this.kubeletComponents = components ?? {
      release: r.RELEASE ?? '1.20.2',
      apiserver: r.APISERVER!,
      controllerManager: r.CONTROLLER_MANAGER!,
      kubelet: r.KUBELET!,
      ...(r.PROXY === undefined ? {} : { proxy: r.PROXY }),
    };
    const id = randomBytes(3).toString('hex');
    this.node = `kh-node-${id}`;
    this.netnsName = `kh-cluster-${id}`;
    this.netns = `/var/run/netns/${this.netnsName}`;
    this.dir = mkdtempSync(join(tmpdir(), 'kh-cluster-'));
    this.logs = new LogMountNamespace(this.dir);
    this.cgroups = options.podCgroups ? new CgroupRoot(`kh-cluster-${id}`) : undefined;
    this.manager = { controllers: options.controllers ?? [], args: options.args ?? [] };
  }

  /** The node's containerd (started by {@link start}). */
  get runtime(): ContainerdDaemon {
    if (!this.runtimeDaemon) throw new Error('the cluster is not started');
    return this.runtimeDaemon;
  }

  /** The node's kubelet (started by {@link start}). */
  get kubelet(): KubeletDaemon {
    if (!this.kubeletDaemon) throw new Error('the cluster is not started');
    return this.kubeletDaemon;
  }

  private get record(): Readonly<Record<string, string>> {
    return this.systems.cluster.record;
  }

  private path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  /** Runs `args` inside the namespace (nsenter), synchronously; throws with stderr when it fails. */
  private inside(bin: string, args: readonly string[]): string {
    const [cmd, full] = inNetns(this.netns, bin, args);
    return execFileSync(cmd, full, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** kubectl as the test's admin, inside the namespace; `stdin` for `apply -f -` and the like. */
  kubectl(args: readonly string[], stdin?: string): KubectlResult {
    const [cmd, full] = inNetns(this.netns, this.record.KUBECTL!, [
      '--kubeconfig',
      this.path('admin.kubeconfig'),
      ...args,
    ]);
    const r = spawnSync(cmd, full, { encoding: 'utf8', input: stdin ?? '', maxBuffer: 256 * 1024 * 1024 });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr + (r.error ? String(r.error) : '') };
  }

  /** kubectl that must succeed; returns stdout. */
  kubectlOk(args: readonly string[], stdin?: string): string {
    const r = this.kubectl(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${String(r.code)}: ${r.err}`);
    return r.out;
  }

  /** `kubectl get … -o json`, parsed. */
  getJson(args: readonly string[]): unknown {
    return JSON.parse(this.kubectlOk(['get', ...args, '-o', 'json']));
  }

  /** Starts every component and waits until the node is registered and Ready. */
  async start(): Promise<void> {
    this.makeNetns();
    this.logs.create();
    this.cgroups?.create();
    this.makeCredentials();
    await this.startEtcd();
    await this.startControlPlane();
    await this.startNodeRuntime();
    const proxy = this.kubeletComponents.proxy;
    if (proxy === undefined) return this.waitForNodeReady();
    this.startDaemon('kube-proxy', proxy, [
      '--kubeconfig',
      this.path('admin.kubeconfig'),
      '--hostname-override',
      this.node,
      '--proxy-mode=iptables',
      `--bind-address=${NODE_IP}`,
      `--cluster-cidr=${POD_SUBNET}`,
      '--metrics-bind-address=127.0.0.1:10249',
      '--healthz-bind-address=127.0.0.1:10256',
      // Conntrack limits are the machine's, not the namespace's: leave them alone.
      '--conntrack-max-per-core=0',
      '--conntrack-min=0',
      '--conntrack-tcp-timeout-established=0',
      '--conntrack-tcp-timeout-close-wait=0',
    ]);
    await this.waitForNodeReady();
  }

  /**
   * Only etcd and the apiserver, for judges of the apiserver alone (no controller, no kubelet).
   * Namespaces made by {@link createBareNamespace}.
   */
  async startApiserverOnly(): Promise<void> {
    this.makeNetns();
    this.makeCredentials();
    await this.startEtcd();
    this.controlPlane = [await this.startApiserver()];
  }

  /** The admin's kubeconfig (a token, the CA by path; the server is the node address inside the namespace). */
  get kubeconfigPath(): string {
    return this.path('admin.kubeconfig');
  }

  /**
   * A namespace and its `default` ServiceAccount made by hand (no controller manager runs with
   * {@link startApiserverOnly}); the account mounts no token, so pods need no token secret.
   */
  createBareNamespace(base: string): string {
    const name = `${base}-${this.node.slice('kh-node-'.length)}`;
    this.kubectlOk(['create', 'namespace', name]);
    this.kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default', namespace: name },
        automountServiceAccountToken: false,
      }),
    );
    return name;
  }

  private async waitForNodeReady(): Promise<void> {
    await this.waitFor(
      'the node Ready',
      () => {
        const r = this.kubectl([
          'get',
          'node',
          this.node,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
        ]);
        return r.code === 0 && r.out.trim() === 'True';
      },
      240_000,
    );
  }

  /** The release of the running apiserver and controller manager. */
  get controlPlaneRelease(): string {
    return this.controlPlaneComponents.release;
  }

  /** The release of the node's kubelet. */
  get kubeletRelease(): string {
    return this.kubeletComponents.kubeletRelease ?? this.kubeletComponents.release;
  }

  /**
   * Starts containerd and the kubelet again after {@link stopNode} (a node upgrade's restart); with
   * `upgrade`, its kubelet instead of the one that ran (same directories, as a package upgrade does).
   */
  async startNode(upgrade?: ClusterComponents): Promise<void> {
    await this.runtime.start();
    if (upgrade) {
      this.kubeletComponents = upgrade;
      this.kubeletDaemon = this.makeKubelet();
    }
    await this.kubelet.start();
  }

  /**
   * Replaces the apiserver and the controller manager with `to`'s (SIGTERM to the PIDs we started;
   * etcd and the data it holds stay), and waits until the new apiserver is ready.
   */
  async upgradeControlPlane(to: ClusterComponents): Promise<void> {
    for (const d of [...this.controlPlane].reverse()) {
      await terminateChild(d.child, 20_000);
      this.daemons.splice(this.daemons.indexOf(d), 1);
    }
    this.controlPlaneComponents = to;
    await this.startControlPlane();
  }

  private async startControlPlane(): Promise<void> {
    const { release, controllerManager } = this.controlPlaneComponents;
    const apiserver = await this.startApiserver();
    const manager = this.startDaemon(`kube-controller-manager-${release}`, controllerManager, [
      '--kubeconfig',
      this.path('admin.kubeconfig'),
      // A projected token volume (every pod's from 1.21; the fleet Job's on any release) also needs
      // the namespace's kube-root-ca.crt ConfigMap, which root-ca-cert-publisher makes (RootCAConfigMap:
      // beta and on by default in 1.20, as a stock controller manager runs it): without it no such pod starts.
      `--controllers=job,namespace,serviceaccount,serviceaccount-token,garbagecollector,deployment,replicaset,statefulset,daemonset${minorOf(release) >= 20 ? ',root-ca-cert-publisher' : ''}${this.manager.controllers.map((c) => `,${c}`).join('')}`,
      '--service-account-private-key-file',
      this.path('sa.key'),
      '--root-ca-file',
      this.path('ca.crt'),
      '--leader-elect=false',
      // 1.20 still serves plain HTTP on 10252 unless told not to; the flag is gone from 1.24.
      ...(minorOf(release) < 24 ? ['--port=0'] : []),
      '--secure-port=0',
      '--concurrent-gc-syncs=2',
      ...this.manager.args,
    ]);
    this.controlPlane = [apiserver, manager];
  }

  /** Stops the kubelet, then containerd (SIGTERM: containers keep running, as on a node being upgraded). */
  async stopNode(): Promise<void> {
    await this.kubelet.stop();
    await this.runtime.stop();
  }

  private makeNetns(): void {
    execFileSync('ip', ['netns', 'add', this.netnsName]);
    this.netnsMade = true;
    this.inside('ip', ['link', 'set', 'lo', 'up']);
    this.inside('ip', ['link', 'add', 'kh-node', 'type', 'bridge']);
    this.inside('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', 'kh-node']);
    this.inside('ip', ['link', 'set', 'kh-node', 'up']);
    // Components look for a default route to pick an address; it leads to the portless bridge.
    this.inside('ip', ['route', 'add', 'default', 'dev', 'kh-node']);
  }

  /** A CA, the apiserver's serving certificate, the service-account key pair, the admin's token. */
  private makeCredentials(): void {
    const ssl = (args: string[]): void => {
      execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    };
    ssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=kh-test-ca',
    ]);
    ssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'apiserver.key',
      '-out',
      'apiserver.csr',
      '-subj',
      '/CN=kube-apiserver',
    ]);
    const names = [
      `IP:${NODE_IP}`,
      `IP:${KUBERNETES_SERVICE_IP}`,
      'IP:127.0.0.1',
      'DNS:kubernetes',
      'DNS:kubernetes.default',
      'DNS:kubernetes.default.svc',
      'DNS:kubernetes.default.svc.cluster.local',
    ];
    writeFileSync(this.path('apiserver.ext'), `subjectAltName=${names.join(',')}\n`);
    ssl([
      'x509',
      '-req',
      '-in',
      'apiserver.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'apiserver.ext',
      '-out',
      'apiserver.crt',
    ]);
    ssl(['genrsa', '-out', 'sa.key', '2048']);
    ssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
    writeFileSync(this.path('tokens.csv'), `${this.token},kh-admin,kh-admin,system:masters\n`);
    writeFileSync(
      this.path('admin.kubeconfig'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'kh',
            cluster: {
              server: `https://${NODE_IP}:${String(APISERVER_PORT)}`,
              'certificate-authority': this.path('ca.crt'),
            },
          },
        ],
        users: [{ name: 'kh-admin', user: { token: this.token } }],
        contexts: [{ name: 'kh', context: { cluster: 'kh', user: 'kh-admin' } }],
        'current-context': 'kh',
      }),
    );
  }

  private startDaemon(name: string, bin: string, args: readonly string[]): SpawnedDaemon {
    const [cmd, full] = inNetns(this.netns, bin, args);
    const daemon = new SpawnedDaemon(cmd, full, 2_000_000);
    daemon.child.stderr?.on('data', (d: Buffer) => {
      writeFileSync(this.path(`${name}.log`), d, { flag: 'a' });
    });
    this.daemons.push(daemon);
    return daemon;
  }

  private async waitFor(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      for (const d of this.daemons)
        if (d.exited) throw new Error(`${d.name} ${d.exited} before ${what}:\n${d.log.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`no ${what} in ${String(timeoutMs / 1000)} s (logs in ${this.dir})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async startEtcd(): Promise<void> {
    const etcd = this.startDaemon('etcd', this.record.ETCD!, [
      '--name=kh',
      `--data-dir=${this.path('etcd')}`,
      '--listen-client-urls=http://127.0.0.1:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=kh=http://127.0.0.1:2380',
    ]);
    await etcd.waitFor('serving', () => etcd.log.includes('ready to serve client requests'), Date.now() + 120_000);
  }

  private async startApiserver(): Promise<SpawnedDaemon> {
    const { release, apiserver: bin, apiserverFlags = [] } = this.controlPlaneComponents;
    const apiserver = this.startDaemon(`kube-apiserver-${release}`, bin, [
      `--etcd-servers=http://127.0.0.1:2379`,
      `--bind-address=${NODE_IP}`,
      `--advertise-address=${NODE_IP}`,
      `--secure-port=${String(APISERVER_PORT)}`,
      ...(minorOf(release) < 24 ? ['--insecure-port=0'] : []), // gone from 1.24
      `--cert-dir=${this.path('apiserver-certs')}`,
      `--tls-cert-file=${this.path('apiserver.crt')}`,
      `--tls-private-key-file=${this.path('apiserver.key')}`,
      `--token-auth-file=${this.path('tokens.csv')}`,
      `--service-account-key-file=${this.path('sa.pub')}`,
      `--service-account-signing-key-file=${this.path('sa.key')}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=ServiceAccount,LimitRanger',
      `--service-cluster-ip-range=${SERVICE_RANGE}`,
      '--allow-privileged=true',
      // kubectl logs/exec: reach the kubelet at the node's address, not its name (no DNS in the namespace).
      '--kubelet-preferred-address-types=InternalIP',
      '--profiling=false',
      ...apiserverFlags,
    ]);
    await this.waitFor(
      'apiserver /readyz',
      () => {
        if (apiserver.exited) return false;
        return this.kubectl(['get', '--raw', '/readyz']).out.trim() === 'ok';
      },
      240_000,
    );
    return apiserver;
  }

  private async startNodeRuntime(): Promise<void> {
    const confDir = this.path('cni-conf');
    mkdirSync(confDir, { recursive: true });
    writeFileSync(
      join(confDir, '10-kh.conflist'),
      JSON.stringify({
        cniVersion: '0.4.0',
        name: 'kh-pods',
        plugins: [
          {
            type: 'bridge',
            bridge: 'kh-cni0',
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: POD_SUBNET }]],
              routes: [{ dst: '0.0.0.0/0' }],
              dataDir: this.path('cni-ipam'), // not /var/lib/cni
            },
          },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      }),
    );
    const containerd = this.systems.containerd;
    if (!containerd) throw new Error('a node needs a containerd record (ClusterSystems.containerd)');
    this.runtimeDaemon = new ContainerdDaemon(this.path('containerd'), {
      bin: containerd.bin,
      sandboxImage: CLUSTER_IMAGE,
      netns: this.netns,
      mountns: this.logs.file,
      cgroups: this.cgroups !== undefined,
      cni: { binDir: this.record.CNI_BIN_DIR!, confDir },
    });
    await this.runtime.start();
    this.runtime.importImage(buildBusyboxImage(this.path('image'), containerd.record.BUSYBOX!, CLUSTER_IMAGE));
    this.runtime.ctr(['-n', 'k8s.io', 'images', 'tag', CLUSTER_IMAGE, CLUSTER_IMAGE_2]);
    this.kubeletDaemon = this.makeKubelet();
    await this.kubelet.start();
  }

  private makeKubelet(): KubeletDaemon {
    const { kubelet, kubeletFeatureGates } = this.kubeletComponents;
    return new KubeletDaemon(
      this.path('kubelet'),
      kubelet,
      this.runtime.socket,
      this.node,
      { kubeconfig: this.path('admin.kubeconfig'), nodeIp: NODE_IP, netns: this.netns },
      this.kubeletRelease,
      this.logs.file,
      this.cgroups && `/${this.cgroups.name}`,
      kubeletFeatureGates,
    );
  }

  /**
   * Creates a namespace (its name gets the cluster's suffix, so log directories are ours) and waits
   * until its `default` ServiceAccount has its token secret (before 1.24; from 1.24 no secret is
   * made: until the account itself exists): before that, the admission plugin refuses pods. From
   * 1.20 also until its kube-root-ca.crt ConfigMap exists, which projected token volumes need.
   * Returns the namespace's name.
   */
  async createNamespace(base: string): Promise<string> {
    const name = `${base}-${this.node.slice('kh-node-'.length)}`;
    this.kubectlOk(['create', 'namespace', name]);
    if (minorOf(this.controlPlaneRelease) < 24) await this.serviceAccountToken(name, 'default');
    else await this.serviceAccount(name, 'default');
    if (minorOf(this.controlPlaneRelease) >= 20)
      await this.waitFor(
        `the ConfigMap ${name}/kube-root-ca.crt`,
        () => this.kubectl(['-n', name, 'get', 'configmap', 'kube-root-ca.crt']).code === 0,
        120_000,
      );
    return name;
  }

  /** Waits until the ServiceAccount exists (the serviceaccount controller's work). */
  async serviceAccount(namespace: string, account: string): Promise<void> {
    await this.waitFor(
      `the ServiceAccount ${namespace}/${account}`,
      () => this.kubectl(['-n', namespace, 'get', 'serviceaccount', account]).code === 0,
      120_000,
    );
  }

  /** Waits until the ServiceAccount has a token secret (the token controller's work); returns the secret's name. */
  async serviceAccountToken(namespace: string, account: string): Promise<string> {
    let secret = '';
    await this.waitFor(
      `a token for ${namespace}/${account}`,
      () => {
        const r = this.kubectl([
          '-n',
          namespace,
          'get',
          'serviceaccount',
          account,
          '-o',
          'jsonpath={.secrets[0].name}',
        ]);
        secret = r.code === 0 ? r.out.trim() : '';
        return secret !== '';
      },
      120_000,
    );
    return secret;
  }

  /** Everything started here, gone; the namespace removed. Safe to call after a failed start. */
  async teardown(): Promise<void> {
    if (this.kubeletDaemon) await this.kubeletDaemon.stop();
    for (const d of [...this.daemons].reverse()) await terminateChild(d.child, 20_000);
    if (this.runtimeDaemon) await this.runtimeDaemon.teardown();
    this.logs.remove();
    this.cgroups?.remove();
    unmountUnder(this.dir);
    if (this.netnsMade) spawnSync('ip', ['netns', 'delete', this.netnsName]);
    // A shim killed a moment ago may still be removing its task directory: retried on ENOTEMPTY.
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
