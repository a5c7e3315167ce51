/**
 * A real containerd for integration tests: started as root from the binary a provision script
 * recorded (see real-systems.ts), with a config, root, state and socket in a temporary directory;
 * stopped by the PID we started (never by name); gRPC clients for containerd's containers service and
 * the CRI RuntimeService (subset protos in ./protos). One version-2 config serves 1.6, 1.7 and 2.x
 * (2.x migrates it at load).
 */
import { spawnSync } from 'node:child_process';
import { inNetns, SpawnedDaemon, terminateChild } from './child-process.js';
import { killShimsOf, unmountUnder } from './process-tree.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** Go's GOARCH for this machine (ctr 2.x needs the platform to unpack for). */
const GOARCH = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;

const PROTOS = join(dirname(fileURLToPath(import.meta.url)), 'protos');

type Unary = (req: unknown, meta: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

function client(socket: string, file: string, service: string): Record<string, Unary> & grpc.Client {
  const def = protoLoader.loadSync(join(PROTOS, file), {
    keepCase: true,
    longs: String,
    enums: Number,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as Record<string, unknown>;
  let ctor: unknown = pkg;
  for (const part of service.split('.')) ctor = (ctor as Record<string, unknown>)[part];
  const Ctor = ctor as new (addr: string, creds: grpc.ChannelCredentials) => Record<string, Unary> & grpc.Client;
  return new Ctor(`unix://${socket}`, grpc.credentials.createInsecure());
}

function call<T>(c: Record<string, Unary>, method: string, req: unknown, namespace?: string): Promise<T> {
  const meta = new grpc.Metadata();
  if (namespace) meta.set('containerd-namespace', namespace);
  return new Promise((resolve, reject) => {
    c[method]!.call(c, req, meta, (err, res) => {
      if (err) reject(err);
      else resolve(res as T);
    });
  });
}

export interface CriContainer {
  id: string;
  pod_sandbox_id: string;
  metadata: { name: string; attempt: number };
  /** 0 CREATED, 1 RUNNING, 2 EXITED, 3 UNKNOWN */
  state: number;
  created_at: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface CriSandbox {
  id: string;
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  /** 0 READY, 1 NOTREADY */
  state: number;
  created_at: string;
  labels: Record<string, string>;
}

export interface ContainerdOptions {
  /** The binary (default `containerd` on PATH); its directory's shims and `ctr` are used with it. */
  bin?: string;
  /** CRI `sandbox_image` (an image imported beforehand, so nothing is pulled). */
  sandboxImage?: string;
  /**
   * Run inside this network namespace (`/var/run/netns/NAME`, entered with nsenter): pod networks
   * made by the CNI plugins, and host-network pods, then live there, not on the machine.
   */
  netns?: string;
  /**
   * Run inside this mount namespace (mount-namespace.ts: private /var/log/pods), the kubelet's: the
   * runtime opens container log files at the paths the kubelet gives it.
   */
  mountns?: string;
  /** Put containers in the cgroups the kubelet names (pod cgroups); by default no container gets a cgroup. */
  cgroups?: boolean;
  /** CNI plugins and network configs (default: empty directories of our own, so no pod network). */
  cni?: { binDir: string; confDir: string };
  /** runc's `SystemdCgroup` option of the default runtime (what containerd reports to CRI RuntimeConfig); unset by default. */
  systemdCgroup?: boolean;
}

export class ContainerdDaemon {
  readonly root: string;
  readonly state: string;
  readonly socket: string;
  readonly config: string;
  readonly bin: string;
  private readonly netns: string | undefined;
  private readonly mountns: string | undefined;
  private daemon: SpawnedDaemon | undefined;

  constructor(
    readonly dir: string,
    options: ContainerdOptions = {},
  ) {
    this.bin = options.bin ?? 'containerd';
    this.netns = options.netns;
    this.mountns = options.mountns;
    const cni = options.cni ?? { binDir: join(dir, 'cni-bin'), confDir: join(dir, 'cni-conf') };
    this.root = join(dir, 'root');
    this.state = join(dir, 'state');
    this.socket = join(dir, 'containerd.sock');
    this.config = join(dir, 'config.toml');
    for (const d of [this.root, this.state, join(dir, 'cni-bin'), join(dir, 'cni-conf')])
      mkdirSync(d, { recursive: true });
    writeFileSync(
      this.config,
      [
        'version = 2',
        `root = "${this.root}"`,
        `state = "${this.state}"`,
        'disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]',
        '[grpc]',
        `  address = "${this.socket}"`,
        '[plugins."io.containerd.grpc.v1.cri"]',
        ...(options.cgroups ? [] : ['  disable_cgroup = true']),
        '  disable_apparmor = true',
        '  restrict_oom_score_adj = true',
        ...(options.sandboxImage ? [`  sandbox_image = "${options.sandboxImage}"`] : []),
        // Pod network namespaces are bind-mounted under our state directory, not /var/run/netns.
        ...(options.netns ? ['  netns_mounts_under_state_dir = true'] : []),
        '  [plugins."io.containerd.grpc.v1.cri".containerd]',
        '    snapshotter = "native"',
        ...(options.systemdCgroup !== undefined
          ? [
              '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
              '    runtime_type = "io.containerd.runc.v2"',
              '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
              `    SystemdCgroup = ${String(options.systemdCgroup)}`,
            ]
          : []),
        '  [plugins."io.containerd.grpc.v1.cri".cni]',
        `    bin_dir = "${cni.binDir}"`,
        `    conf_dir = "${cni.confDir}"`,
        '',
      ].join('\n'),
    );
  }

  get pid(): number | undefined {
    return this.daemon?.exited ? undefined : this.daemon?.child.pid;
  }

  /** Starts containerd and waits until it has booted (and the CRI service answers). */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.daemon && !this.daemon.exited) throw new Error('containerd already started');
    const [cmd, args] = inNetns(this.netns, this.bin, ['--config', this.config], this.mountns);
    const daemon = (this.daemon = new SpawnedDaemon(cmd, args, 1_000_000, this.env()));
    const deadline = Date.now() + timeoutMs;
    await daemon.waitFor('booting', () => daemon.log.includes('containerd successfully booted'), deadline, 50);
    // The CRI plugin recovers containers before it serves; wait until it answers.
    await daemon.waitFor('CRI answer', async () => Boolean(await this.criVersion()), deadline);
  }

  /** PATH with the binary's own directory first: containerd finds its shims there, as does `ctr`. */
  private env(): NodeJS.ProcessEnv {
    if (!isAbsolute(this.bin)) return process.env;
    return { ...process.env, PATH: `${dirname(this.bin)}:${process.env.PATH ?? ''}` };
  }

  /** What `containerd --version` says, e.g. `containerd github.com/containerd/containerd 1.7.24~ds1 …`. */
  version(): string {
    return spawnSync(this.bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  }

  /** Runs this release's `ctr` against our socket; throws with its stderr when it fails. */
  ctr(args: readonly string[]): string {
    const ctr = isAbsolute(this.bin) ? join(dirname(this.bin), 'ctr') : 'ctr';
    const r = spawnSync(ctr, ['--address', this.socket, ...args], { encoding: 'utf8', env: this.env() });
    if (r.error || r.status !== 0) throw new Error(`ctr ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
    return r.stdout;
  }

  /** Imports a docker-archive tarball into the CRI namespace, unpacked for the native snapshotter. */
  importImage(tarball: string): void {
    // 2.x imports through its transfer service by default, which has no unpack platforms with our
    // config: `--local` imports client-side, as 1.x always does.
    const local = this.version().includes('/containerd/v2 ') ? ['--local'] : [];
    this.ctr([
      '-n',
      'k8s.io',
      'images',
      'import',
      ...local,
      '--snapshotter',
      'native',
      '--platform',
      `linux/${GOARCH}`,
      tarball,
    ]);
  }

  /**
   * Everything this containerd started, gone: the containers and shims it started (found by our
   * socket on their command line), then containerd itself, then mounts left under our directory.
   */
  async teardown(): Promise<void> {
    await killShimsOf(this.socket);
    await this.stop();
    unmountUnder(this.dir);
  }

  /** Stops the containerd we started (SIGTERM to its PID; SIGKILL after the timeout). */
  async stop(timeoutMs = 20_000): Promise<void> {
    const daemon = this.daemon;
    this.daemon = undefined;
    if (daemon) await terminateChild(daemon.child, timeoutMs);
  }

  private containersClient(): Record<string, Unary> & grpc.Client {
    return client(this.socket, 'containerd-containers.proto', 'containerd.services.containers.v1.Containers');
  }

  private criClient(): Record<string, Unary> & grpc.Client {
    return client(this.socket, 'cri-runtime.proto', 'runtime.v1.RuntimeService');
  }

  async criVersion(): Promise<{ runtime_name: string; runtime_version: string }> {
    const c = this.criClient();
    try {
      return await call(c, 'Version', { version: 'v1' });
    } finally {
      c.close();
    }
  }

  /** One CRI RuntimeService call on a fresh connection. */
  async cri<T>(method: string, req: unknown): Promise<T> {
    const c = this.criClient();
    try {
      return await call<T>(c, method, req);
    } finally {
      c.close();
    }
  }

  /** CRI ListContainers: what the kubelet reads back. */
  async criListContainers(): Promise<CriContainer[]> {
    return (await this.cri<{ containers: CriContainer[] }>('ListContainers', {})).containers;
  }

  /** CRI ListPodSandbox. */
  async criListSandboxes(): Promise<CriSandbox[]> {
    return (await this.cri<{ items: CriSandbox[] }>('ListPodSandbox', {})).items;
  }

  /** The pod sandboxes CRI serves: uid, network namespace mode (0 POD, 2 NODE) and IP, as the kubelet reads them. */
  async criPodSandboxes(): Promise<{ id: string; uid: string; network: number; ip: string }[]> {
    const c = this.criClient();
    try {
      const res = await call<{ items: { id: string; metadata: { uid: string } }[] }>(c, 'ListPodSandbox', {});
      const out: { id: string; uid: string; network: number; ip: string }[] = [];
      for (const item of res.items) {
        const st = await call<{
          status: { network: { ip: string } | null; linux: { namespaces: { options: { network: number } } } | null };
        }>(c, 'PodSandboxStatus', { pod_sandbox_id: item.id });
        out.push({
          id: item.id,
          uid: item.metadata.uid,
          network: st.status.linux?.namespaces.options.network ?? 0,
          ip: st.status.network?.ip ?? '',
        });
      }
      return out;
    } finally {
      c.close();
    }
  }

  /** Creates container records through containerd's containers API (in `namespace`). */
  async createContainers(
    records: {
      id: string;
      labels: Record<string, string>;
      spec: Buffer;
      extensions: Record<string, Buffer>;
      sandbox?: string;
    }[],
    namespace: string,
  ): Promise<void> {
    const c = this.containersClient();
    try {
      const queue = [...records];
      const worker = async (): Promise<void> => {
        for (let r = queue.shift(); r; r = queue.shift()) {
          const container = {
            id: r.id,
            labels: r.labels,
            image: 'registry.example.com/team/app:1.0',
            runtime: { name: 'io.containerd.runc.v2' },
            spec: splitAny(r.spec),
            extensions: Object.fromEntries(Object.entries(r.extensions).map(([k, v]) => [k, splitAny(v)])),
          };
          await call(c, 'Create', { container }, namespace);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      c.close();
    }
  }

  /** Deletes a container record through containerd's containers API (the CRI plugin is not told). */
  async deleteContainer(id: string, namespace: string): Promise<void> {
    const c = this.containersClient();
    try {
      await call(c, 'Delete', { id }, namespace);
    } finally {
      c.close();
    }
  }
}

/** An Any's bytes back into {type_url, value} for the gRPC client. */
function splitAny(any: Buffer): { type_url: string; value: Buffer } {
  let pos = 0;
  const out: { type_url: string; value: Buffer } = { type_url: '', value: Buffer.alloc(0) };
  while (pos < any.length) {
    const tag = any[pos++]!;
    let len = 0;
    let mul = 1;
    for (;;) {
      const b = any[pos++]!;
      len += (b & 0x7f) * mul;
      mul *= 128;
      if ((b & 0x80) === 0) break;
    }
    if (tag === 0x0a) out.type_url = any.toString('utf8', pos, pos + len);
    else out.value = any.subarray(pos, pos + len);
    pos += len;
  }
  return out;
}
