/** The interface every runtime record store (containerd meta.db, CRI-O, docker) implements. */
import type { CommitHooks } from '../bbolt/write.js';
import type { HashChange } from '../runtime-records/index.js';

/**
 * Which runtime persists the records.
 *
 * @example
 * ```ts
 * import type { StoreRuntime } from 'kubelet-hash/node';
 * const runtimes: StoreRuntime[] = ['containerd', 'cri-o', 'docker'];
 * runtimes.length; // → 3
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type StoreRuntime = 'containerd' | 'cri-o' | 'docker';

/**
 * One container as its runtime persisted it.
 *
 * @example
 * ```ts
 * import type { StoredContainer } from 'kubelet-hash/node';
 * const c: StoredContainer = { runtime: 'containerd', containerId: 'c1', podUid: 'u1', podNamespace: 'default', podName: 'web-0', containerName: 'web', hash: '590c88e0', location: 'meta.db#v1/k8s.io/containers/c1', fingerprint: '0123456789abcdef' };
 * c.hash; // → '590c88e0'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface StoredContainer {
  /** The runtime that persisted it. */
  runtime: StoreRuntime;
  /** The runtime's container id. */
  containerId: string;
  /** `io.kubernetes.pod.uid` label: joins the record with its API pod. */
  podUid: string;
  /** `io.kubernetes.pod.namespace` label. */
  podNamespace: string;
  /** `io.kubernetes.pod.name` label. */
  podName: string;
  /** `io.kubernetes.container.name` label. */
  containerName: string;
  /**
   * The container's CRI attempt, when the record keeps it (containerd: `Metadata.Config.metadata`;
   * CRI-O: the `io.kubernetes.cri-o.Metadata` annotation; docker: the attempt in the container name).
   */
  attempt?: number;
  /** The stored `io.kubernetes.container.hash` text the runtime serves back to the kubelet. */
  hash?: string;
  /** The stored `io.kubernetes.container.hashWithoutResources` text, when there is one. */
  hashWithoutResources?: string;
  /** Where the record lives: a file, or `meta.db#bucket/path/key`; several copies are joined by ` + `. */
  location: string;
  /** xxHash64 (16 hex digits) of the record's bytes as read (all copies, in `location` order). */
  fingerprint: string;
}

/**
 * A rewrite to apply: which record, the fingerprint it must still have, and the hash change.
 *
 * @example
 * ```ts
 * import type { StoreRewrite } from 'kubelet-hash/node';
 * const r: StoreRewrite = { containerId: 'c1', fingerprint: '0123456789abcdef', change: { from: { hash: '590c88e0' }, to: { hash: 'e220f96' } } };
 * r.change.to.hash; // → 'e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface StoreRewrite {
  /** The container id of the record. */
  containerId: string;
  /** The record's fingerprint when it was planned; apply refuses when it differs now. */
  fingerprint: string;
  /** The stored hash(es) expected and the ones to write. */
  change: HashChange;
}

/**
 * A file copied before it was changed, to put back on rollback.
 *
 * @example
 * ```ts
 * import type { BackupEntry } from 'kubelet-hash/node';
 * const b: BackupEntry = { original: '/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db', backup: '/var/backups/meta.db', fingerprint: '0123456789abcdef' };
 * b.backup; // → '/var/backups/meta.db'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface BackupEntry {
  /** The file that was changed. */
  original: string;
  /** Its copy, as it was before the change. */
  backup: string;
  /** xxHash64 of the original bytes (and so of the copy). */
  fingerprint: string;
  /** The original's permission bits when it was backed up (rollback restores them). */
  mode?: number;
  /** The original's owner uid when it was backed up. */
  uid?: number;
  /** The original's owner gid when it was backed up. */
  gid?: number;
  /** xxHash64 of the original as apply left it (rollback refuses a file that is neither this nor the backup). */
  after?: string;
}

/**
 * Options of {@link RecordStore.apply}.
 *
 * @example
 * ```ts
 * import type { ApplyOptions } from 'kubelet-hash/node';
 * const options: ApplyOptions = { backupDir: '/var/backups/kubelet-hash', dryRun: true };
 * options.dryRun; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ApplyOptions {
  /** Directory for backups (created if needed); without it nothing is backed up. */
  backupDir?: string;
  /** Check everything (lock, runtime stopped, fingerprints, stored hashes, writable files) and write nothing. */
  dryRun?: boolean;
  /**
   * Every record the store held when it was planned: apply refuses (`STORE_CHANGED`) any
   * difference (a record added, removed or changed), not only in the records it rewrites.
   */
  planned?: readonly RecordPrint[];
  /**
   * The rest of what the plan saw (containerd: its pod sandboxes), checked right after the records
   * (under the file lock for containerd); throws (a `StoreError`) on any difference.
   */
  checkView?: () => void;
  /**
   * Runs once the backups are made and before the first byte of the store is written (apply writes
   * its rollback manifest there, so that a crash in the middle of the write can be rolled back),
   * with the store's records as they will be once written.
   *
   * @internal
   */
  beforeWrite?: (backups: BackupEntry[], after: RecordPrint[]) => void;
  /**
   * Crash-safety test hooks: the bbolt commit's, and a trace of every store write.
   *
   * @internal
   */
  hooks?: CommitHooks;
}

/**
 * What {@link RecordStore.apply} did.
 *
 * @example
 * ```ts
 * import type { ApplyReport } from 'kubelet-hash/node';
 * const report: ApplyReport = { changed: [], backups: [], dryRun: true };
 * report.changed.length; // → 0
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ApplyReport {
  /** Records changed (or, in a dry run, that would be). */
  changed: {
    /** The container id. */
    containerId: string;
    /** Where its record lives. */
    location: string;
    /** The hash it stored. */
    from: string;
    /** The hash it stores now. */
    to: string;
  }[];
  /** Backups written before the change (with `after`, the file as apply left it, once written). */
  backups: BackupEntry[];
  /** The store's records as apply left them (with {@link ApplyOptions.planned}). */
  after?: RecordPrint[];
  /** True when nothing was written. */
  dryRun: boolean;
  /**
   * True when the store already is what these rewrites make of the planned records (every rewritten
   * record holds its new hash and is otherwise as planned, every other record as planned): nothing was
   * written, `changed` is empty.
   */
  alreadyApplied?: boolean;
  /** Milliseconds spent in each step (containerd: `check`, `verify`, `backup`, `commit`, `checkAfter`). */
  timings?: Record<string, number>;
}

/**
 * A runtime's persisted container records: list them, rewrite their stored hashes.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { DockerStore, type RecordStore } from 'kubelet-hash/node';
 * const store: RecordStore = new DockerStore({ root: mkdtempSync(join(tmpdir(), 'docker-')) });
 * store.runtime; // → 'docker'
 * await store.list(); // → []
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RecordStore {
  /** The runtime. */
  readonly runtime: StoreRuntime;
  /** The store's root directory as given. */
  readonly root: string;
  /** Every kubelet container the store holds, with its stored hash(es) and fingerprint. */
  list(): Promise<StoredContainer[]>;
  /**
   * Applies `rewrites` all at once: refuses (StoreError, nothing written) when the runtime holds the
   * store, a fingerprint changed, a stored hash is not `change.from`, or the store fails its checks.
   */
  apply(rewrites: readonly StoreRewrite[], options?: ApplyOptions): Promise<ApplyReport>;
  /**
   * Puts backups made by {@link RecordStore.apply} back, with the same refusals (runtime running,
   * file lock held, a backup that is not what was saved, a store that changed since apply unless
   * forced); returns what it restored and what the restore lost.
   */
  restore(backups: readonly BackupEntry[], options?: RestoreOptions): Promise<RestoreReport>;
}

/**
 * Options of {@link RecordStore.restore}.
 *
 * @example
 * ```ts
 * import type { RestoreOptions } from 'kubelet-hash/node';
 * const options: RestoreOptions = { records: [{ containerId: 'c1', fingerprint: '0123456789abcdef', after: 'fedcba9876543210' }] };
 * options.records?.length; // → 1
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RestoreOptions {
  /**
   * The store's records before apply (`fingerprint`) and as apply left them (`after`): restore
   * refuses (`STORE_CHANGED`) a store whose records are not one or the other, since putting the
   * backup back would lose what changed. Without it (a manifest of an older kubelet-hash), restore
   * refuses unless forced.
   */
  records?: readonly (RecordPrint & {
    /** The record's fingerprint as apply left it. */
    after: string;
  })[];
  /** Restore anyway; the report says what was lost. */
  force?: boolean;
}

/**
 * What {@link RecordStore.restore} did.
 *
 * @example
 * ```ts
 * import type { RestoreReport } from 'kubelet-hash/node';
 * const report: RestoreReport = { restored: [], lost: [] };
 * report.lost.length; // → 0
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RestoreReport {
  /** The backups put back. */
  restored: BackupEntry[];
  /** What changed since apply and is gone now (only with `force`; otherwise restore refuses). */
  lost: string[];
  /** Files that changed since apply outside the container records (containerd's own bookkeeping), put back as they were. */
  notes?: string[];
}

/**
 * One record of a store's state: its container id and fingerprint, and who it is (for messages).
 *
 * @example
 * ```ts
 * import type { RecordPrint } from 'kubelet-hash/node';
 * const r: RecordPrint = { containerId: 'c1', fingerprint: '0123456789abcdef', name: 'default/web-0 web' };
 * r.containerId; // → 'c1'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RecordPrint {
  /** The runtime's container id. */
  containerId: string;
  /** xxHash64 of the record as read (see {@link StoredContainer.fingerprint}). */
  fingerprint: string;
  /** `namespace/pod container`, for messages. */
  name?: string;
}
