/**
 * CRI-O's persisted containers as a {@link RecordStore}: `<graphroot>/overlay-containers/<id>/userdata/config.json`
 * (containers/storage) and its copy under the runroot. Each is the container's OCI spec, written by
 * runtime-tools with tab indentation and no trailing newline; CRI-O restores a container's CRI
 * annotations at start from the JSON string in the spec annotation `io.kubernetes.cri-o.Annotations`,
 * and the same keys appear as top-level spec annotations. Both places, in both copies, are rewritten.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RecordError, StoreError } from '../errors.js';
import { findMember, nodeAt, scanJson } from '../json/spans.js';
import { criAttempt, embeddedSites, mapSites, primarySite, type RecordContainer } from '../runtime-records/index.js';
import { rewriteLocated } from '../runtime-records/index.js';
import {
  CRIO_ANNOTATIONS_KEY,
  CONTAINER_NAME_LABEL,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_UID_LABEL,
} from '../runtime-records/index.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/index.js';
import { applyFileRewrites, fingerprintFiles, restoreFileRecords } from './file-store.js';
import { daemonsUsing, flagValue } from './files.js';
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

const LABELS_KEY = 'io.kubernetes.cri-o.Labels';
const TYPE_KEY = 'io.kubernetes.cri-o.ContainerType';
/** The CRI ContainerMetadata (`{"name","attempt"}`) as JSON: what CRI-O restores the container's metadata from. */
const METADATA_KEY = 'io.kubernetes.cri-o.Metadata';

/**
 * Options of {@link CrioStore}.
 *
 * @example
 * ```ts
 * import type { CrioStoreOptions } from 'kubelet-hash/node';
 * const options: CrioStoreOptions = { graphRoot: '/var/lib/containers/storage', runRoot: '/run/containers/storage' };
 * options.runRoot; // → '/run/containers/storage'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface CrioStoreOptions {
  /** containers/storage graphroot (`/var/lib/containers/storage`). */
  graphRoot: string;
  /** containers/storage runroot (`/run/containers/storage`); its copies are rewritten too when present. */
  runRoot?: string;
  /** The storage driver's name, which prefixes the containers folder (default `overlay`). */
  driver?: string;
}

function stringAnnotation(root: ReturnType<typeof scanJson>, key: string): string | undefined {
  const v = findMember(nodeAt(root, ['annotations']), key)?.value;
  return v?.type === 'string' ? v.value : undefined;
}

/** The JSON value a string annotation holds (`undefined`: no such annotation); text that is not JSON is refused. */
function jsonAnnotation(root: ReturnType<typeof scanJson>, key: string, id: string, expected: string): unknown {
  const text = stringAnnotation(root, key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RecordError('INVALID_RECORD', ['annotations', key], expected, `container ${id}`);
  }
}

/** Locates a kubelet container in a CRI-O config.json text; `undefined` for a sandbox (pause) spec. */
function locateCrioConfig(text: string, id: string): RecordContainer | undefined {
  const root = scanJson(text);
  if (stringAnnotation(root, TYPE_KEY) === 'sandbox') return undefined;
  const parsed = jsonAnnotation(root, LABELS_KEY, id, 'a JSON object of labels');
  if (parsed !== undefined && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)))
    throw new RecordError('INVALID_RECORD', ['annotations', LABELS_KEY], 'a JSON object of labels', `container ${id}`);
  const labels = (parsed ?? {}) as Record<string, unknown>;
  const label = (k: string): string => (typeof labels[k] === 'string' ? labels[k] : '');
  const metadata = jsonAnnotation(root, METADATA_KEY, id, 'the CRI container metadata as a JSON object');
  const attempt = criAttempt(metadata, ['annotations', METADATA_KEY]);
  const embedded = ['annotations', CRIO_ANNOTATIONS_KEY];
  return {
    containerId: id,
    runtime: 'cri-o',
    containerName: label(CONTAINER_NAME_LABEL),
    podName: label(POD_NAME_LABEL),
    podNamespace: label(POD_NAMESPACE_LABEL),
    podUid: label(POD_UID_LABEL),
    ...(attempt !== undefined ? { attempt } : {}),
    sites: [...embeddedSites(text, root, embedded), ...mapSites(root, ['annotations'])],
    primaryPath: { hash: [...embedded, HASH_KEY], hashWithoutResources: [...embedded, HASH_WITHOUT_RESOURCES_KEY] },
  };
}

/**
 * CRI-O's container records as a store.
 *
 * On a node: `new CrioStore({ graphRoot: '/var/lib/containers/storage', runRoot: '/run/containers/storage' })`.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { CrioStore } from 'kubelet-hash/node';
 * // A graphroot without containers yet.
 * const store = new CrioStore({ graphRoot: mkdtempSync(join(tmpdir(), 'storage-')) });
 * await store.list(); // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export class CrioStore implements RecordStore {
  readonly runtime = 'cri-o' as const;
  readonly root: string;
  private readonly runRoot: string | undefined;
  private readonly folder: string;

  constructor(options: CrioStoreOptions) {
    this.root = options.graphRoot;
    this.runRoot = options.runRoot;
    this.folder = `${options.driver ?? 'overlay'}-containers`;
  }

  private files(id: string): string[] {
    const main = join(this.root, this.folder, id, 'userdata', 'config.json');
    const copy =
      this.runRoot !== undefined ? join(this.runRoot, this.folder, id, 'userdata', 'config.json') : undefined;
    return copy !== undefined && existsSync(copy) ? [main, copy] : [main];
  }

  private ids(): string[] {
    const dir = join(this.root, this.folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((id) => existsSync(join(dir, id, 'userdata', 'config.json')))
      .sort();
  }

  /** Refuses while a crio runs that may use this graphroot (its `--root`; without one, any crio). */
  private checkStopped(what: string): void {
    const pids = daemonsUsing('crio', this.root, (args) => flagValue(args, ['--root', '-r']));
    if (pids.length > 0)
      throw new StoreError(
        'RUNTIME_RUNNING',
        [],
        `CRI-O stopped while its records are ${what}`,
        `crio runs as pid ${pids.join(', ')}`,
        this.root,
      );
  }

  async list(): Promise<StoredContainer[]> {
    const out: StoredContainer[] = [];
    for (const id of this.ids()) {
      const files = this.files(id);
      const { fingerprint, texts } = await fingerprintFiles(files);
      const [main] = texts;
      const c = main ? locateCrioConfig(main.toString('utf8'), id) : undefined;
      if (!c || (c.podUid === '' && c.containerName === '')) continue;
      const s: StoredContainer = {
        runtime: 'cri-o',
        containerId: id,
        podUid: c.podUid,
        podNamespace: c.podNamespace,
        podName: c.podName,
        containerName: c.containerName,
        location: files.join(' + '),
        fingerprint,
      };
      if (c.attempt !== undefined) s.attempt = c.attempt;
      const hash = primarySite(c, 'hash')?.text;
      const without = primarySite(c, 'hashWithoutResources')?.text;
      if (hash !== undefined) s.hash = hash;
      if (without !== undefined) s.hashWithoutResources = without;
      out.push(s);
    }
    return out;
  }

  async apply(rewrites: readonly StoreRewrite[], options: ApplyOptions = {}): Promise<ApplyReport> {
    this.checkStopped('rewritten');
    const known = new Set(this.ids());
    return applyFileRewrites(
      rewrites,
      (id) =>
        known.has(id)
          ? {
              files: this.files(id),
              rewrite: (text, change) => {
                const located = locateCrioConfig(text, id);
                if (!located) throw new RecordError('INVALID_RECORD', [], 'a container config', 'found a sandbox');
                return rewriteLocated(text, located, change);
              },
            }
          : undefined,
      options,
      () => this.list(),
      `the CRI-O graphroot ${this.root}`,
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
      (id) => (known.has(id) ? this.files(id) : undefined),
      options,
      `the CRI-O graphroot ${this.root}`,
      (when) => {
        this.checkStopped(when);
      },
    );
  }
}
