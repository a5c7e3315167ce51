/**
 * docker's persisted containers as a {@link RecordStore}: `<docker root>/containers/<id>/config.v2.json`,
 * where dockershim / cri-dockerd keep the kubelet's annotations as `Config.Labels["annotation.<key>"]`.
 * dockerd rewrites these files on state changes and at shutdown, so they are edited only while it
 * is stopped; and stopping dockerd stops every container unless `live-restore` is on, so apply
 * refuses unless daemon.json turns it on.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, StoreError } from '../errors.js';
import { readRuntimeRecords } from '../runtime-records/index.js';
import { rewriteRuntimeRecord } from '../runtime-records/index.js';
import { applyFileRewrites, fingerprintFiles, restoreFileRecords } from './file-store.js';
import { daemonsUsing, flagValue, theirPath } from './files.js';
import type {
  ApplyOptions,
  ApplyReport,
  RecordBackup,
  RecordStore,
  RestoreOptions,
  RestoreReport,
  StoreRewrite,
  StoredContainer,
} from './types.js';

/**
 * Options of {@link DockerStore}.
 *
 * @example
 * ```ts
 * import type { DockerStoreOptions } from 'kubelet-hash/node';
 * const options: DockerStoreOptions = { root: '/var/lib/docker', daemonConfig: '/etc/docker/daemon.json' };
 * options.root; // → '/var/lib/docker'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface DockerStoreOptions {
  /** dockerd's data root (`/var/lib/docker`). */
  root: string;
  /** dockerd's config file, read for `live-restore` (default `/etc/docker/daemon.json`). */
  daemonConfig?: string;
}

/**
 * docker's container records as a store.
 *
 * On a node: `new DockerStore({ root: '/var/lib/docker' })`; apply needs dockerd stopped and
 * `"live-restore": true` in `/etc/docker/daemon.json`.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { DockerStore } from 'kubelet-hash/node';
 * const store = new DockerStore({ root: mkdtempSync(join(tmpdir(), 'docker-')) });
 * await store.list(); // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export class DockerStore implements RecordStore {
  readonly runtime = 'docker' as const;
  readonly root: string;
  private readonly daemonConfig: string;

  constructor(options: DockerStoreOptions) {
    this.root = options.root;
    this.daemonConfig = options.daemonConfig ?? '/etc/docker/daemon.json';
  }

  private file(id: string): string {
    return join(this.root, 'containers', id, 'config.v2.json');
  }

  private ids(): string[] {
    const dir = join(this.root, 'containers');
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((id) => existsSync(this.file(id)))
      .sort();
  }

  async list(): Promise<StoredContainer[]> {
    const out: StoredContainer[] = [];
    for (const id of this.ids()) {
      const file = this.file(id);
      const { fingerprint, texts } = await fingerprintFiles([file]);
      for (const info of readRuntimeRecords(Buffer.concat(texts).toString('utf8'))) {
        // Containers docker runs for others than the kubelet carry no pod labels.
        if (info.podUid === '' && info.containerName === '') continue;
        const s: StoredContainer = {
          runtime: 'docker',
          containerId: info.containerId ?? id,
          podUid: info.podUid,
          podNamespace: info.podNamespace,
          podName: info.podName,
          containerName: info.containerName,
          location: file,
          fingerprint,
        };
        if (info.attempt !== undefined) s.attempt = info.attempt;
        if (info.hash !== undefined) s.hash = info.hash;
        if (info.hashWithoutResources !== undefined) s.hashWithoutResources = info.hashWithoutResources;
        out.push(s);
      }
    }
    return out;
  }

  /** Refuses while a dockerd runs on this data root (its `--data-root`, or `data-root` in its config file). */
  private checkStopped(what: string): void {
    const pids = daemonsUsing('dockerd', this.root, (args, pid) => {
      const flag = flagValue(args, ['--data-root', '-g', '--graph']);
      if (flag !== undefined) return flag;
      // Its config file as it reads it (its root directory may not be ours: a pod, a chroot).
      const configFile = flagValue(args, ['--config-file']) ?? '/etc/docker/daemon.json';
      for (const path of [theirPath(pid, configFile), configFile]) {
        try {
          const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
          return typeof config['data-root'] === 'string' ? config['data-root'] : '/var/lib/docker';
        } catch {
          // not readable there
        }
      }
      // no readable config file: dockerd's default root
      return '/var/lib/docker';
    });
    if (pids.length > 0)
      throw new StoreError(
        'RUNTIME_RUNNING',
        [],
        `dockerd stopped while its records are ${what}`,
        `dockerd runs on ${this.root} as pid ${pids.join(', ')}`,
        this.root,
      );
  }

  /** Refuses unless daemon.json sets `"live-restore": true`. */
  private checkLiveRestore(): void {
    let config: unknown;
    try {
      config = JSON.parse(readFileSync(this.daemonConfig, 'utf8'));
    } catch (e) {
      throw new StoreError(
        'LIVE_RESTORE_OFF',
        [],
        `"live-restore": true in ${this.daemonConfig}`,
        `cannot read it: ${errnoCode(e) ?? String(e)}`,
        this.daemonConfig,
      );
    }
    if ((config as Record<string, unknown> | null)?.['live-restore'] !== true) {
      throw new StoreError(
        'LIVE_RESTORE_OFF',
        [],
        `"live-restore": true in ${this.daemonConfig}`,
        'without it, stopping dockerd stops every container',
        this.daemonConfig,
      );
    }
  }

  async apply(rewrites: readonly StoreRewrite[], options: ApplyOptions = {}): Promise<ApplyReport> {
    this.checkStopped('rewritten');
    this.checkLiveRestore();
    const known = new Set(this.ids());
    return applyFileRewrites(
      rewrites,
      (id) =>
        known.has(id)
          ? {
              files: [this.file(id)],
              rewrite: (text, change) => rewriteRuntimeRecord(text, { ...change, containerId: id }),
            }
          : undefined,
      options,
      () => this.list(),
      `the docker root ${this.root}`,
      (when) => {
        this.checkStopped(when);
      },
    );
  }

  async restoreRecords(records: readonly RecordBackup[], options: RestoreOptions = {}): Promise<RestoreReport> {
    this.checkStopped('restored');
    // Only the store's own records, found by id among those it holds: never a path from a backup.
    const known = new Set(this.ids());
    return restoreFileRecords(
      records,
      (id) => (known.has(id) ? [this.file(id)] : undefined),
      options,
      `the docker root ${this.root}`,
      (when) => {
        this.checkStopped(when);
      },
    );
  }
}
