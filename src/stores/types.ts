/** The interface every runtime record store (containerd meta.db, CRI-O, docker) implements. */
import type { CommitHooks } from '../bbolt/index.js';
import type { HashChange, RuntimeName, RuntimeRecord } from '../runtime-records/index.js';

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
export interface StoredContainer extends RuntimeRecord {
  /** The runtime that persisted it. */
  runtime: RuntimeName;
  /** The runtime's container id. */
  containerId: string;
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
 * One record as it was before apply: what rollback puts back. Rollback finds the record by its
 * container id in the store it opens itself, never by a path read from a backup.
 *
 * @example
 * ```ts
 * import type { RecordBackup } from 'kubelet-hash/node';
 * const b: RecordBackup = { containerId: 'c1', location: 'meta.db#v1/k8s.io/containers/c1', fingerprint: '0123456789abcdef', after: 'fedcba9876543210', values: [Buffer.from('{}')] };
 * b.values.length; // → 1
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RecordBackup {
  /** The runtime's container id. */
  containerId: string;
  /** `namespace/pod container`, for messages. */
  name?: string;
  /** Where the record lived when apply read it (for messages). */
  location: string;
  /** xxHash64 of the record before apply (of `values`, concatenated). */
  fingerprint: string;
  /** xxHash64 of the record as apply leaves it. */
  after: string;
  /** The record's bytes before apply: containerd's one extension value; one per file for CRI-O (both copies) and docker. */
  values: Buffer[];
  /** xxHash64 of each file as apply leaves it (file records): a crash between two copies leaves each old or new. */
  afterParts?: string[];
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
  /** The directory the rollback point will go to: checked writable (it or its nearest existing parent) before anything is written. */
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
   * Runs once every record is checked and before the first byte of the store is written (apply
   * writes its rollback point there, so that a crash in the middle of the write can be rolled
   * back), with the rewritten records as they were and the store's records as they will be.
   *
   * @internal
   */
  beforeWrite?: (records: RecordBackup[], after: RecordPrint[]) => void;
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
 * const report: ApplyReport = { changed: [], dryRun: true };
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
  readonly runtime: RuntimeName;
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
   * Puts the records apply rewrote back as they were, and nothing else: refuses (nothing written)
   * while the runtime holds the store, a backup whose bytes are not its fingerprint, a record gone
   * since apply, and (unless forced) one that changed again since apply; a record that already
   * holds its pre-apply bytes is left alone. Returns only after reading every record back.
   */
  restoreRecords(records: readonly RecordBackup[], options?: RestoreOptions): Promise<RestoreReport>;
}

/**
 * Options of {@link RecordStore.restoreRecords}.
 *
 * @example
 * ```ts
 * import type { RestoreOptions } from 'kubelet-hash/node';
 * const options: RestoreOptions = { force: true };
 * options.force; // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RestoreOptions {
  /** Put back a record that changed again since apply too; the report says what was lost. */
  force?: boolean;
  /**
   * Test hooks: a trace of every file write (CRI-O, docker).
   *
   * @internal
   */
  hooks?: CommitHooks;
}

/**
 * What {@link RecordStore.restoreRecords} did.
 *
 * @example
 * ```ts
 * import type { RestoreReport } from 'kubelet-hash/node';
 * const report: RestoreReport = { restored: [], unchanged: [], lost: [] };
 * report.lost.length; // → 0
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RestoreReport {
  /** The records put back (container id and where), each read back holding its pre-apply bytes. */
  restored: {
    /** The container id. */
    containerId: string;
    /** Where its record lives (meta.db key, or its files). */
    location: string;
  }[];
  /** Records that held their pre-apply bytes already (apply stopped before writing them). */
  unchanged: string[];
  /** What changed since apply and is gone now (only with `force`; otherwise restore refuses). */
  lost: string[];
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
