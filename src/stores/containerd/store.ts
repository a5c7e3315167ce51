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
import {
  BoltFile,
  toRef,
  BUCKET_LEAF_FLAG,
  decodeBucketValue,
  checkBoltFile,
  commitUpdates,
  type BoltUpdate,
  lockFile,
} from '../../bbolt/index.js';
import { primarySite, type RecordContainer } from '../../runtime-records/index.js';
import { checkHashChange, rewriteLocated } from '../../runtime-records/index.js';
import { fingerprinter } from '../fingerprint.js';
import { checkRestored, planRestore, type CurrentRecord } from '../restore-check.js';
import { afterApply } from '../store-state.js';
import { appliedState, reversedChange } from '../applied-state.js';
import type {
  ApplyOptions,
  ApplyReport,
  RecordBackup,
  RecordStore,
  RestoreOptions,
  RestoreReport,
  StoreRewrite,
  StoredContainer,
} from '../types.js';
import { checkWritable } from '../writable.js';
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

/**
 * Options of {@link ContainerdStore}.
 *
 * @example
 * ```ts
 * import type { ContainerdStoreOptions } from 'kubelet-hash/node';
 * const options: ContainerdStoreOptions = { root: '/var/lib/containerd', namespace: 'k8s.io' };
 * options.namespace; // → 'k8s.io'
 * ```
 *
 * @group Upgrades and runtime stores
 */
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
  located: RecordContainer;
}

/**
 * containerd's `meta.db` as a record store.
 *
 * On a node: `new ContainerdStore({ root: '/var/lib/containerd' })`, then `list()` to read every
 * CRI container's stored hash and `apply(rewrites)` (containerd stopped) to rewrite them.
 *
 * @example
 * ```ts
 * import { ContainerdStore } from 'kubelet-hash/node';
 * const store = new ContainerdStore({ root: '/var/lib/containerd' });
 * store.dbPath; // → '/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db'
 * store.namespace; // → 'k8s.io'
 * ```
 *
 * @group Upgrades and runtime stores
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
    if (Buffer.byteLength(text) !== any.value.length)
      throw new StoreError('STORE_CORRUPT', [], `UTF-8 JSON at ${where}`, 'invalid UTF-8', where);
    return { id, raw, text, located: locateMetadata(text, id) };
  }

  /** Every CRI container record of the namespace, in id order, with its raw extension bytes (a view: use it at once). */
  private *records(file: BoltFile): Generator<{ id: string; raw: Buffer }> {
    const containers = file.bucketAt([enc('v1'), enc(this.namespace), enc('containers')]);
    if (!containers) return;
    for (const item of file.items(containers)) {
      if ((item.flags & BUCKET_LEAF_FLAG) === 0) continue;
      const id = item.key.toString('utf8');
      // Open each container's buckets from the item in hand, not by a new walk from the root.
      const container = toRef(decodeBucketValue(item.value, this.location(id)));
      const ext = file.bucket(container, enc('extensions'));
      const value = ext ? file.get(ext, EXTENSION_KEY) : undefined;
      // Sandboxes and non-CRI containers have no container metadata extension. `raw` is a view of
      // the page as read: use it before the next record.
      if (value && (value.flags & BUCKET_LEAF_FLAG) === 0) yield { id, raw: value.value };
    }
  }

  async list(): Promise<StoredContainer[]> {
    const fp = await fingerprinter();
    const file = BoltFile.open(this.dbPath);
    try {
      return this.collect(file, fp);
    } finally {
      file.close();
    }
  }

  /** Every kubelet container of the namespace in `file`, as {@link ContainerdStore.list} returns them. */
  private collect(file: BoltFile, fp: (b: Uint8Array) => string): StoredContainer[] {
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
      if (c.attempt !== undefined) s.attempt = c.attempt;
      const hash = primarySite(c, 'hash')?.text;
      const without = primarySite(c, 'hashWithoutResources')?.text;
      if (hash !== undefined) s.hash = hash;
      if (without !== undefined) s.hashWithoutResources = without;
      if (c.podUid !== '' || c.containerName !== '') out.push(s);
    }
    return out;
  }

  /** The new extension value for a rewrite, after checking the record is the one planned. */
  private rewritten(r: StoreRewrite, raw: Buffer, fp: (b: Uint8Array) => string): Buffer {
    const now = fp(raw);
    if (now !== r.fingerprint) {
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `record ${r.containerId} with fingerprint ${r.fingerprint}, as planned`,
        `it now has ${now}`,
        this.location(r.containerId),
      );
    }
    const rec = this.decode(r.containerId, raw);
    let text: string;
    try {
      text = rewriteLocated(rec.text, rec.located, r.change);
    } catch (e) {
      if (e instanceof KubeletHashError)
        throw new StoreError(
          'STORE_CHANGED',
          [],
          `container ${r.containerId} as planned`,
          e.message,
          this.location(r.containerId),
        );
      throw e;
    }
    return replaceAnyValue(raw, decodeAny(raw, this.location(r.containerId)), Buffer.from(text, 'utf8'));
  }

  /** The ids of the rewrites whose record is the planned record with the rewrite applied. */
  private rewrittenIds(
    reader: BoltFile,
    byId: ReadonlyMap<string, StoreRewrite>,
    fp: (b: Uint8Array) => string,
  ): Set<string> {
    const out = new Set<string>();
    for (const { id, raw } of this.records(reader)) {
      const r = byId.get(id);
      if (!r) continue;
      try {
        const back = this.rewritten({ ...r, fingerprint: fp(raw), change: reversedChange(r.change) }, raw, fp);
        if (fp(back) === r.fingerprint) out.add(id);
      } catch (e) {
        if (!(e instanceof KubeletHashError)) throw e;
      }
    }
    return out;
  }

  async apply(rewrites: readonly StoreRewrite[], options: ApplyOptions = {}): Promise<ApplyReport> {
    for (const r of rewrites) checkHashChange(r.change);
    const byId = new Map<string, StoreRewrite>();
    for (const r of rewrites) {
      if (byId.has(r.containerId))
        throw new StoreError(
          'STORE_CHANGED',
          [],
          'one rewrite per container',
          `${r.containerId} appears twice`,
          this.location(r.containerId),
        );
      byId.set(r.containerId, r);
    }
    const fp = await fingerprinter();
    const timings: Record<string, number> = {};
    let t = performance.now();
    const lap = (step: string): void => {
      const now = performance.now();
      timings[step] = Math.round(now - t);
      t = now;
    };
    const lock = await lockFile(this.dbPath);
    try {
      const report = checkBoltFile(this.dbPath);
      lap('check');
      if (report.faults.length > 0) {
        throw new StoreError(
          'STORE_CORRUPT',
          [],
          `${this.dbPath} to pass its checks before any write`,
          report.faults.slice(0, 5).join('; '),
          this.dbPath,
        );
      }
      // Verify every record and compute every new value before the first byte is written.
      const values = new Map<string, { old: string; value: Buffer; before: Buffer }>();
      const reader = BoltFile.open(this.dbPath);
      try {
        // Under the lock: the whole namespace must be as planned (or as this plan's apply left it),
        // not only the records rewritten.
        if (options.planned) {
          let done: Set<string> | undefined;
          const state = appliedState(
            options.planned,
            this.collect(reader, fp),
            rewrites,
            (r) => (done ??= this.rewrittenIds(reader, byId, fp)).has(r.containerId),
            this.dbPath,
          );
          if (state === 'applied')
            return { changed: [], dryRun: options.dryRun === true, alreadyApplied: true, timings };
        }
        options.checkView?.();
        for (const { id, raw } of this.records(reader)) {
          const r = byId.get(id);
          // `raw` is a view of the page: the backup keeps a copy.
          if (r) values.set(id, { old: r.fingerprint, value: this.rewritten(r, raw, fp), before: Buffer.from(raw) });
        }
      } finally {
        reader.close();
      }
      const missing = rewrites.find((r) => !values.has(r.containerId));
      if (missing)
        throw new StoreError(
          'STORE_CHANGED',
          [],
          `record ${missing.containerId} in ${this.dbPath}`,
          'it is gone',
          this.location(missing.containerId),
        );
      const changed = rewrites.map((r) => ({
        containerId: r.containerId,
        location: this.location(r.containerId),
        from: r.change.from.hash,
        to: r.change.to.hash,
      }));
      // meta.db is written in place; the backup directory gets the copy and the manifest.
      checkWritable({
        inPlace: [this.dbPath],
        ...(options.backupDir !== undefined ? { backupDir: options.backupDir } : {}),
      });
      const after = options.planned
        ? afterApply(options.planned, new Map([...values].map(([id, v]) => [id, fp(v.value)])))
        : undefined;
      lap('verify');
      if (options.dryRun) return { changed, dryRun: true, timings, ...(after ? { after } : {}) };

      const names = new Map((options.planned ?? []).map((p) => [p.containerId, p.name]));
      const backups: RecordBackup[] = rewrites.map((r) => {
        const v = values.get(r.containerId);
        const name = names.get(r.containerId);
        return {
          containerId: r.containerId,
          ...(name !== undefined ? { name } : {}),
          location: this.location(r.containerId),
          fingerprint: r.fingerprint,
          after: v ? fp(v.value) : r.fingerprint,
          values: v ? [v.before] : [],
        };
      });
      options.beforeWrite?.(backups, after ?? []);
      lap('backup');
      const updates: BoltUpdate[] = rewrites.map((r) => ({
        bucket: this.bucketPath(r.containerId),
        key: EXTENSION_KEY,
        update: (old: Buffer): Uint8Array => {
          const planned = values.get(r.containerId);
          // Under the lock nothing can have changed since the check above; verify anyway, it is cheap.
          if (!planned || fp(old) !== planned.old)
            throw new StoreError(
              'STORE_CHANGED',
              [],
              `record ${r.containerId} unchanged during the write`,
              'it changed',
              this.location(r.containerId),
            );
          return planned.value;
        },
      }));
      // The lock keeps containerd out (it waits for it); the commit's last step, the meta page, is
      // written only while the kernel still says we hold it, and the result is returned only if we
      // still held it after.
      const stillLocked = (when: string): void => {
        if (!lock.held())
          throw new StoreError(
            'STORE_LOCKED',
            [],
            `the lock on ${this.dbPath} held by apply ${when}`,
            when === 'after the commit'
              ? 'it was lost during the write (its holder was killed): containerd may have opened the file; stop it and roll back from the backup'
              : 'it was lost (its holder was killed): nothing was committed, the file keeps its old state',
            this.dbPath,
          );
      };
      const file = BoltFile.open(this.dbPath, true);
      try {
        commitUpdates(file, updates, {
          ...options.hooks,
          beforeMeta: () => {
            options.hooks?.beforeMeta?.();
            stillLocked('before the commit');
          },
        });
      } finally {
        file.close();
      }
      stillLocked('after the commit');
      lap('commit');
      if (this.checkAfterWrite) {
        const after = checkBoltFile(this.dbPath);
        if (after.faults.length > 0) {
          throw new StoreError(
            'STORE_CORRUPT',
            [],
            `${this.dbPath} to pass its checks after the write (roll back from the backup)`,
            after.faults.slice(0, 5).join('; '),
            this.dbPath,
          );
        }
        lap('checkAfter');
      }
      return {
        changed,
        dryRun: false,
        timings,
        ...(after ? { after } : {}),
      };
    } finally {
      await lock.release();
    }
  }

  /** The namespace's records now: fingerprint and location by container id. */
  private current(fp: (b: Uint8Array) => string): Map<string, CurrentRecord> {
    const reader = BoltFile.open(this.dbPath);
    try {
      const out = new Map<string, CurrentRecord>();
      for (const { id, raw } of this.records(reader))
        out.set(id, { fingerprint: fp(raw), location: this.location(id) });
      return out;
    } finally {
      reader.close();
    }
  }

  /**
   * Puts the records back in ONE bbolt transaction under the file lock, replacing only their
   * extension values: every other key (other records, images, other namespaces, leases) stays as
   * it is now. Each record is compared again inside the transaction.
   */
  async restoreRecords(records: readonly RecordBackup[], options: RestoreOptions = {}): Promise<RestoreReport> {
    const fp = await fingerprinter();
    const lock = await lockFile(this.dbPath);
    try {
      const before = checkBoltFile(this.dbPath);
      if (before.faults.length > 0)
        throw new StoreError(
          'STORE_CORRUPT',
          [],
          `${this.dbPath} to pass its checks before the restore`,
          before.faults.slice(0, 5).join('; '),
          this.dbPath,
        );
      const todo = planRestore(records, this.current(fp), fp, options.force === true, this.dbPath);
      if (todo.write.length > 0) {
        const now = this.current(fp);
        const updates: BoltUpdate[] = todo.write.map((r) => ({
          bucket: this.bucketPath(r.containerId),
          key: EXTENSION_KEY,
          update: (old: Buffer): Uint8Array => {
            if (fp(old) !== now.get(r.containerId)?.fingerprint)
              throw new StoreError(
                'STORE_CHANGED',
                [],
                `record ${r.containerId} unchanged during the restore`,
                'it changed',
                this.location(r.containerId),
              );
            return Buffer.concat(r.values);
          },
        }));
        const file = BoltFile.open(this.dbPath, true);
        try {
          commitUpdates(file, updates);
        } finally {
          file.close();
        }
        const after = checkBoltFile(this.dbPath);
        if (after.faults.length > 0)
          throw new StoreError(
            'STORE_CORRUPT',
            [],
            `${this.dbPath} to pass its checks after the restore`,
            after.faults.slice(0, 5).join('; '),
            this.dbPath,
          );
      }
      // A restore is done only once every record reads back as it was before apply.
      checkRestored(records, this.current(fp));
      return {
        restored: todo.write.map((r) => ({ containerId: r.containerId, location: this.location(r.containerId) })),
        unchanged: todo.unchanged,
        lost: todo.lost,
      };
    } finally {
      await lock.release();
    }
  }
}
