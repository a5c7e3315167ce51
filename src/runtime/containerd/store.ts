/**
 * containerd's metadata store as a {@link RecordStore}: CRI containers read straight from a
 * (stopped) containerd's `meta.db`, and their stored kubelet hashes rewritten in ONE bbolt write
 * transaction, under the file lock, after a backup and a full check of the file.
 *
 * Bucket path of a record: `v1` → namespace (`k8s.io`) → `containers` → id → `extensions` →
 * `io.cri-containerd.container.metadata`.
 */
import { join } from 'node:path';
import { KubeletHashError, StoreError } from '../../errors.js';
import { BoltFile, type BucketRef } from '../bbolt/file.js';
import { checkBoltFile } from '../bbolt/check.js';
import { commitUpdates, type BoltUpdate } from '../bbolt/write.js';
import { lockFile } from '../bbolt/lock.js';
import { primarySite, type LocatedContainer } from '../hash-sites.js';
import { checkHashChange, rewriteLocated } from '../rewrite-record.js';
import { backupFiles } from '../stores/files.js';
import { fingerprinter } from '../stores/fingerprint.js';
import type { ApplyOptions, ApplyReport, RecordStore, StoreRewrite, StoredContainer } from '../stores/types.js';
import { decodeAny, replaceAnyValue } from './any.js';
import { CONTAINER_METADATA_EXTENSION, locateMetadata } from './metadata.js';

/** The namespace the CRI plugin keeps Kubernetes containers in. */
export const DEFAULT_CRI_NAMESPACE = 'k8s.io';

/** `meta.db` under a containerd root directory. */
export function containerdMetaDbPath(root: string): string {
  return join(root, 'io.containerd.metadata.v1.bolt', 'meta.db');
}

const enc = (s: string): Buffer => Buffer.from(s);
const EXTENSION_KEY = enc(CONTAINER_METADATA_EXTENSION);

/** Options of {@link ContainerdStore}. */
export interface ContainerdStoreOptions {
  /** containerd's root directory (`/var/lib/containerd`). */
  root: string;
  /** The containerd namespace of the CRI plugin (default `k8s.io`). */
  namespace?: string;
  /** Check the whole file again after the commit (default true). */
  checkAfterWrite?: boolean;
}

/** A decoded record: where it is and what it holds. */
interface ReadRecord {
  id: string;
  raw: Buffer;
  text: string;
  located: LocatedContainer;
}

/**
 * containerd's `meta.db` as a record store.
 *
 * @example
 * ```ts
 * import { ContainerdStore } from 'kubelet-hash';
 * const store = new ContainerdStore({ root: '/var/lib/containerd' });
 * for (const c of await store.list()) console.log(c.containerId, c.containerName, c.hash);
 * ```
 */
export class ContainerdStore implements RecordStore {
  readonly runtime = 'containerd' as const;
  readonly root: string;
  /** The containerd namespace read. */
  readonly namespace: string;
  /** The bbolt file. */
  readonly dbPath: string;
  private readonly checkAfterWrite: boolean;

  constructor(options: ContainerdStoreOptions) {
    this.root = options.root;
    this.namespace = options.namespace ?? DEFAULT_CRI_NAMESPACE;
    this.dbPath = containerdMetaDbPath(options.root);
    this.checkAfterWrite = options.checkAfterWrite ?? true;
  }

  private bucketPath(id: string): Buffer[] {
    return [enc('v1'), enc(this.namespace), enc('containers'), enc(id), enc('extensions')];
  }

  private location(id: string): string {
    return `${this.dbPath}#v1/${this.namespace}/containers/${id}/extensions/${CONTAINER_METADATA_EXTENSION}`;
  }

  private decode(id: string, raw: Buffer): ReadRecord {
    const where = this.location(id);
    const any = decodeAny(raw, where);
    const text = any.value.toString('utf8');
    // Go's encoding/json writes valid UTF-8; anything else could not be rewritten byte for byte.
    if (Buffer.byteLength(text) !== any.value.length) throw new StoreError('STORE_CORRUPT', [], `UTF-8 JSON at ${where}`, 'invalid UTF-8');
    return { id, raw, text, located: locateMetadata(text, id) };
  }

  /** Every CRI container record of the namespace, in id order, with its raw extension bytes. */
  private *records(file: BoltFile): Generator<{ id: string; raw: Buffer }> {
    const containers = file.bucketAt([enc('v1'), enc(this.namespace), enc('containers')]);
    if (!containers) return;
    for (const item of file.items(containers)) {
      if ((item.flags & 1) === 0) continue;
      const id = item.key.toString('utf8');
      const ext = file.bucketAt(this.bucketPath(id));
      const value = ext ? file.get(ext as BucketRef, EXTENSION_KEY) : undefined;
      // Sandboxes and non-CRI containers have no container metadata extension.
      if (value && (value.flags & 1) === 0) yield { id, raw: Buffer.from(value.value) };
    }
  }

  async list(): Promise<StoredContainer[]> {
    const fp = await fingerprinter();
    const file = BoltFile.open(this.dbPath);
    try {
      const out: StoredContainer[] = [];
      for (const { id, raw } of this.records(file)) {
        const rec = this.decode(id, raw);
        const c = rec.located;
        const s: StoredContainer = {
          runtime: 'containerd',
          containerId: id,
          podUid: c.podUid,
          podNamespace: c.podNamespace,
          podName: c.podName,
          containerName: c.containerName,
          location: this.location(id),
          fingerprint: fp(raw),
        };
        const hash = primarySite(c, 'hash')?.text;
        const without = primarySite(c, 'hashWithoutResources')?.text;
        if (hash !== undefined) s.hash = hash;
        if (without !== undefined) s.hashWithoutResources = without;
        if (c.podUid !== '' || c.containerName !== '') out.push(s);
      }
      return out;
    } finally {
      file.close();
    }
  }

  async apply(rewrites: readonly StoreRewrite[], options: ApplyOptions = {}): Promise<ApplyReport> {
    for (const r of rewrites) checkHashChange(r.change);
    const fp = await fingerprinter();
    const changed: ApplyReport['changed'] = [];
    const updates: BoltUpdate[] = rewrites.map((r) => ({
      bucket: this.bucketPath(r.containerId),
      key: EXTENSION_KEY,
      update: (old: Buffer): Uint8Array => {
        const now = fp(old);
        if (now !== r.fingerprint) {
          throw new StoreError('STORE_CHANGED', [], `record ${r.containerId} with fingerprint ${r.fingerprint}, as planned`, `it now has ${now}`);
        }
        const rec = this.decode(r.containerId, old);
        let text: string;
        try {
          text = rewriteLocated(rec.text, rec.located, r.change);
        } catch (e) {
          if (e instanceof KubeletHashError) throw new StoreError('STORE_CHANGED', [], `container ${r.containerId} as planned`, e.message);
          throw e;
        }
        changed.push({ containerId: r.containerId, location: this.location(r.containerId), from: r.change.from.hash, to: r.change.to.hash });
        const any = decodeAny(old, this.location(r.containerId));
        return replaceAnyValue(old, any, Buffer.from(text, 'utf8'));
      },
    }));

    const lock = await lockFile(this.dbPath);
    try {
      const report = checkBoltFile(this.dbPath);
      if (report.faults.length > 0) {
        throw new StoreError('STORE_CORRUPT', [], `${this.dbPath} to pass its checks before any write`, report.faults.slice(0, 5).join('; '));
      }
      if (options.dryRun) {
        const file = BoltFile.open(this.dbPath);
        try {
          for (const u of updates) {
            const ref = file.bucketAt(u.bucket);
            const item = ref ? file.get(ref, u.key) : undefined;
            if (!item) throw new StoreError('STORE_CHANGED', [], `record ${Buffer.from(u.bucket[3]!).toString()} in ${this.dbPath}`, 'it is gone');
            u.update(Buffer.from(item.value));
          }
        } finally {
          file.close();
        }
        return { changed, backups: [], dryRun: true };
      }
      const backups = options.backupDir !== undefined ? await backupFiles(options.backupDir, [this.dbPath]) : [];
      const file = BoltFile.open(this.dbPath, true);
      try {
        commitUpdates(file, updates, options.hooks);
      } finally {
        file.close();
      }
      if (this.checkAfterWrite) {
        const after = checkBoltFile(this.dbPath);
        if (after.faults.length > 0) {
          throw new StoreError('STORE_CORRUPT', [], `${this.dbPath} to pass its checks after the write (roll back from the backup)`, after.faults.slice(0, 5).join('; '));
        }
      }
      return { changed, backups, dryRun: false };
    } finally {
      await lock.release();
    }
  }
}
