/**
 * A real dockerd for integration tests: Debian's docker.io started as root with its data root,
 * exec root, pidfile, socket and daemon.json (`live-restore`) in a temporary directory, vfs storage
 * and no iptables or bridge, so it needs no network setup. Spoken to over its Engine API on the
 * unix socket (no docker client needed). Stopped by the PIDs we started (dockerd, and the
 * containerd it supervises if that outlives it), never by name.
 */
import { SpawnedDaemon, terminateChild } from './child-process.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** An empty tar archive (two zero blocks): `docker import` makes an image of nothing from it. */
const EMPTY_TAR = Buffer.alloc(10240);

export class DockerDaemon {
  readonly root: string;
  readonly execRoot: string;
  readonly socket: string;
  readonly config: string;
  private daemon: SpawnedDaemon | undefined;

  constructor(
    readonly dir: string,
    readonly bin = 'dockerd',
  ) {
    this.root = join(dir, 'root');
    this.execRoot = join(dir, 'exec');
    this.socket = join(dir, 'docker.sock');
    this.config = join(dir, 'daemon.json');
    mkdirSync(this.root, { recursive: true });
    writeFileSync(this.config, JSON.stringify({ 'live-restore': true, 'storage-driver': 'vfs' }));
  }

  async start(timeoutMs = 60_000): Promise<void> {
    const args = [
      '--config-file',
      this.config,
      '--data-root',
      this.root,
      '--exec-root',
      this.execRoot,
      '--pidfile',
      join(this.dir, 'docker.pid'),
      '-H',
      `unix://${this.socket}`,
      '--iptables=false',
      '--ip6tables=false',
      '--bridge=none',
    ];
    const daemon = (this.daemon = new SpawnedDaemon(this.bin, args, 200_000));
    const ping = async (): Promise<boolean> => (await this.api('GET', '/_ping')).status === 200;
    await daemon.waitFor('API answer', ping, Date.now() + timeoutMs);
  }

  /** Stops our dockerd (SIGTERM to its PID), then the containerd it started, if that is still alive. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const daemon = this.daemon;
    this.daemon = undefined;
    if (daemon) await terminateChild(daemon.child, timeoutMs);
    const pidfile = join(this.execRoot, 'containerd', 'containerd.pid');
    if (existsSync(pidfile)) {
      const pid = Number(readFileSync(pidfile, 'utf8').trim());
      if (pid > 0 && isAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** One Engine API call over the unix socket. */
  api(
    method: string,
    path: string,
    body?: Buffer | object,
    contentType = 'application/json',
  ): Promise<{ status: number; json: unknown }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
      const req = request(
        {
          socketPath: this.socket,
          path,
          method,
          headers: payload ? { 'content-type': contentType, 'content-length': payload.length } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown = text;
            try {
              json = JSON.parse(text);
            } catch {
              // streamed progress lines, or empty
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** `docker import` of an empty tarball as `repo:tag`. */
  async importEmptyImage(repo: string, tag: string): Promise<void> {
    const r = await this.api(
      'POST',
      `/images/create?fromSrc=-&repo=${encodeURIComponent(repo)}&tag=${tag}`,
      EMPTY_TAR,
      'application/x-tar',
    );
    if (r.status !== 200) throw new Error(`import failed: ${r.status} ${JSON.stringify(r.json)}`);
  }

  /** `docker create` with labels; returns the id. */
  async createContainer(name: string, image: string, labels: Record<string, string>): Promise<string> {
    const r = await this.api('POST', `/containers/create?name=${encodeURIComponent(name)}`, {
      Image: image,
      Cmd: ['/pause'],
      Labels: labels,
    });
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.json)}`);
    return (r.json as { Id: string }).Id;
  }

  /** `docker inspect`: the container's labels. */
  async labels(id: string): Promise<Record<string, string>> {
    const r = await this.api('GET', `/containers/${id}/json`);
    if (r.status !== 200) throw new Error(`inspect failed: ${r.status}`);
    return (r.json as { Config: { Labels: Record<string, string> } }).Config.Labels;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
