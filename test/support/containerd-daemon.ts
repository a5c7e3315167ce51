/**
 * A real containerd for integration tests: started as root with a config, root, state and socket
 * in a temporary directory, stopped by the PID we started (never by name), and gRPC clients for
 * containerd's containers service and the CRI RuntimeService (subset protos in ./protos).
 */
import { spawnSync } from 'node:child_process';
import { SpawnedDaemon, terminateChild } from './child-process.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const PROTOS = join(dirname(fileURLToPath(import.meta.url)), 'protos');

/** Why a real containerd cannot run here, or `undefined` when it can. */
export function containerdUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root';
  const probe = spawnSync('containerd', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return 'containerd is not installed (apt-get install -y --no-install-recommends containerd)';
  if (spawnSync('flock', ['--version']).error) return 'util-linux flock(1) is missing';
  return undefined;
}

export function containerdVersion(): string {
  return spawnSync('containerd', ['--version'], { encoding: 'utf8' }).stdout.trim();
}

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
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export class ContainerdDaemon {
  readonly root: string;
  readonly state: string;
  readonly socket: string;
  readonly config: string;
  private daemon: SpawnedDaemon | undefined;

  constructor(readonly dir: string) {
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
        '  disable_cgroup = true',
        '  disable_apparmor = true',
        '  restrict_oom_score_adj = true',
        '  [plugins."io.containerd.grpc.v1.cri".containerd]',
        '    snapshotter = "native"',
        '  [plugins."io.containerd.grpc.v1.cri".cni]',
        `    bin_dir = "${join(dir, 'cni-bin')}"`,
        `    conf_dir = "${join(dir, 'cni-conf')}"`,
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
    const daemon = (this.daemon = new SpawnedDaemon('containerd', ['--config', this.config]));
    const deadline = Date.now() + timeoutMs;
    await daemon.waitFor('booting', () => daemon.log.includes('containerd successfully booted'), deadline, 50);
    // The CRI plugin recovers containers before it serves; wait until it answers.
    await daemon.waitFor('CRI answer', async () => Boolean(await this.criVersion()), deadline);
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

  /** CRI ListContainers: what the kubelet reads back. */
  async criListContainers(): Promise<CriContainer[]> {
    const c = this.criClient();
    try {
      const res = await call<{ containers: CriContainer[] }>(c, 'ListContainers', {});
      return res.containers;
    } finally {
      c.close();
    }
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
