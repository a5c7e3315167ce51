/**
 * One bbolt write transaction that replaces the values of existing keys in (nested) buckets.
 *
 * It does what bbolt's Tx.Commit does for such a change, nothing more: every node on the path from
 * a changed value up to the root is copied to newly allocated pages (copy-on-write; the old pages
 * are freed), the new pages are written and synced, then a new meta page (txid + 1, written to page
 * txid % 2, i.e. over the older meta) is written and synced. A crash before the meta write leaves
 * the file as it was, because the meta in force still points at the old, untouched pages.
 *
 * - Keys are never added, removed or renamed, so tree shapes stay: a node that grows past a page is
 *   written as a contiguous page run (the header's `overflow`), as bbolt stores any large node;
 *   bbolt itself splits it the next time it writes that node.
 * - Inline buckets (root 0) are rewritten inside their parent's value and stay inline.
 * - Freelist styles: with a synced freelist page (containerd 1.4/1.6) new pages reuse free pages
 *   first and a new freelist page (old free ids + pages freed now) is written; without one
 *   (NoFreelistSync, containerd 1.7+) pages are taken at the high-water mark and freed pages are
 *   not recorded (bbolt finds them by scanning when it opens the file).
 */
import { fdatasyncSync, ftruncateSync, writeSync } from 'node:fs';
import { ioError, StoreError } from '../errors.js';
import type { BoltFile, PageScratch } from './file.js';
import {
  BUCKET_HEADER_SIZE,
  BUCKET_LEAF_FLAG,
  compareKeys,
  corrupt,
  decodeBucketValue,
  decodeFreelist,
  decodeNode,
  encodeFreelist,
  encodeMetaPage,
  encodeNode,
  freelistSize,
  nodeSize,
  nth,
  readPageHeader,
  type LeafItem,
  type Meta,
  type Node,
} from './format.js';

/** One value to replace: the bucket path from the root, the key, and the new value from the old one. */
export interface BoltUpdate {
  /** Bucket names from the top level down (e.g. `v1`, `k8s.io`, `containers`, id, `extensions`). */
  bucket: readonly Uint8Array[];
  /** The key, which must exist in that bucket and hold a plain value (not a bucket). */
  key: Uint8Array;
  /**
   * Computes the new value from the stored one, during the transaction. Throwing aborts the whole
   * transaction before anything is written (use it to refuse a record that is not what was planned).
   */
  update: (old: Buffer) => Uint8Array;
}

/** What a commit did. */
export interface CommitResult {
  /** The new transaction id. */
  txid: bigint;
  /** Values replaced. */
  updated: number;
  /** Pages written (not counting the meta page). */
  pagesWritten: number;
  /** Pages freed by copy-on-write (recorded in the freelist only when the file keeps one). */
  pagesFreed: number;
  /** The new high-water mark. */
  highWaterMark: number;
  /** Whether a freelist page was written. */
  syncedFreelist: boolean;
}

/**
 * One durable-storage operation, as {@link CommitHooks.trace} sees it. `bytes` is a view of a buffer
 * that is reused after the call: copy it to keep it.
 */
export type FileOperation =
  | { op: 'write'; path: string; position: number; bytes: Uint8Array }
  | { op: 'truncate'; path: string; size: number }
  | { op: 'sync'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'syncDir'; path: string };

/** Test hooks for crash-safety tests. */
export interface CommitHooks {
  /** Runs after the data pages are written and synced, before the meta page is written; throwing simulates a crash there. */
  beforeMeta?: () => void;
  /** Sees every write, truncate, rename and sync of the store's files in order (crash points are replayed from it). */
  trace?: (op: FileOperation) => void;
}

interface TrieEntry {
  key: Buffer;
  update?: (old: Buffer) => Uint8Array;
  children?: Map<string, TrieEntry>;
  /** Bucket names down to this entry, for messages. */
  where: string;
}

/** `path`: the bbolt file, for the errors' location. */
function buildTrie(updates: readonly BoltUpdate[], path: string): Map<string, TrieEntry> {
  const root = new Map<string, TrieEntry>();
  for (const u of updates) {
    let level = root;
    let where = '';
    for (const name of u.bucket) {
      const k = Buffer.from(name).toString('latin1');
      where += `${where ? '/' : ''}${k}`;
      let e = level.get(k);
      if (!e) level.set(k, (e = { key: Buffer.from(name), children: new Map(), where }));
      if (!e.children)
        throw new StoreError(
          'STORE_CHANGED',
          [],
          `a bucket at ${where}`,
          'the same path is also updated as a key',
          `${path}#${where}`,
        );
      level = e.children;
    }
    const k = Buffer.from(u.key).toString('latin1');
    if (level.has(k))
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `one update per key`,
        `${where}/${k} is updated twice`,
        `${path}#${where}/${k}`,
      );
    level.set(k, { key: Buffer.from(u.key), update: u.update, where: `${where}/${k}` });
  }
  return root;
}

function sortedEntries(level: Map<string, TrieEntry>): TrieEntry[] {
  return [...level.values()].sort((a, b) => compareKeys(a.key, b.key));
}

/**
 * Allocates page runs: reused free pages first (synced freelist, first fit over the runs of
 * contiguous free ids, as bbolt's array freelist does), else at the high-water mark.
 */
class PageAllocator {
  private readonly runs: { start: number; len: number }[] = [];
  private first = 0;
  /** No free run is longer than this (lowered when a search fails), so hopeless searches are skipped. */
  private longest = Infinity;

  constructor(
    free: readonly number[],
    public highWaterMark: number,
  ) {
    for (const id of free) {
      const last = this.runs[this.runs.length - 1];
      if (last && last.start + last.len === id) last.len++;
      else this.runs.push({ start: id, len: 1 });
    }
  }

  allocate(count: number): number {
    if (count <= this.longest) {
      for (let i = this.first; i < this.runs.length; i++) {
        const run = nth(this.runs, i);
        if (run.len < count) continue;
        const id = run.start;
        run.start += count;
        run.len -= count;
        while (this.first < this.runs.length && nth(this.runs, this.first).len === 0) this.first++;
        return id;
      }
      this.longest = count - 1;
    }
    const id = this.highWaterMark;
    this.highWaterMark += count;
    return id;
  }

  /** Free pages that were not reused. */
  remaining(): number[] {
    const out: number[] = [];
    for (let i = this.first; i < this.runs.length; i++) {
      const run = nth(this.runs, i);
      for (let p = run.start; p < run.start + run.len; p++) out.push(p);
    }
    return out;
  }
}

interface PageWrite {
  id: number;
  buf: Buffer;
}

class Transaction {
  private level = 0;
  private readonly scratch: PageScratch[] = [];
  readonly out: PageWriter;
  readonly freed: number[] = [];
  readonly alloc: PageAllocator;
  updated = 0;

  constructor(
    readonly file: BoltFile,
    free: readonly number[],
    trace: CommitHooks['trace'],
  ) {
    this.alloc = new PageAllocator(free, file.meta.pgid);
    this.out = new PageWriter(file, file.pageSize, trace);
  }

  private place(node: Node): number {
    const ps = this.file.pageSize;
    const pages = Math.ceil(nodeSize(node) / ps);
    const id = this.alloc.allocate(pages);
    encodeNode(node, this.out.reserve(id, pages), 0, id, pages - 1);
    return id;
  }

  /** Copies the subtree of page `pgid` with `entries` applied; returns the new page id. */
  rewriteTree(pgid: number, entries: readonly TrieEntry[], where: string, depth = 0): number {
    if (depth > 64) throw corrupt(`${this.file.path}: branch pages nest deeper than 64 levels`, this.file.path);
    // One scratch buffer per nesting level: this node's items point into it until it is placed.
    const level = this.level++;
    const scratch = (this.scratch[level] ??= { buf: Buffer.alloc(0) });
    try {
      return this.rewriteNode(pgid, this.file.readPage(pgid, scratch), entries, where, depth);
    } finally {
      this.level--;
    }
  }

  private rewriteNode(pgid: number, buf: Buffer, entries: readonly TrieEntry[], where: string, depth: number): number {
    const overflow = readPageHeader(buf).overflow;
    const node = decodeNode(buf, `${this.file.path} page ${pgid}`);
    for (let p = pgid; p <= pgid + overflow; p++) this.freed.push(p);
    if (node.leaf) {
      this.applyLeaf(node.items, entries, where);
      return this.place(node);
    }
    // Each entry goes to the last child whose first key is <= the entry's key (bbolt's search).
    let child = 0;
    let group: TrieEntry[] = [];
    const flush = (): void => {
      if (group.length === 0) return;
      const item = nth(node.items, child);
      item.pgid = this.rewriteTree(item.pgid, group, where, depth + 1);
      group = [];
    };
    for (const e of entries) {
      while (child + 1 < node.items.length && compareKeys(nth(node.items, child + 1).key, e.key) <= 0) {
        flush();
        child++;
      }
      group.push(e);
    }
    flush();
    return this.place(node);
  }

  private applyLeaf(items: LeafItem[], entries: readonly TrieEntry[], where: string): void {
    let i = 0;
    for (const e of entries) {
      while (i < items.length && compareKeys(nth(items, i).key, e.key) < 0) i++;
      const item = items[i];
      if (!item || compareKeys(item.key, e.key) !== 0) {
        throw new StoreError(
          'STORE_CHANGED',
          [],
          `an existing key ${e.where}`,
          `not found in ${where || 'the root bucket'}`,
          `${this.file.path}#${e.where}`,
        );
      }
      const isBucket = (item.flags & BUCKET_LEAF_FLAG) !== 0;
      if (e.children) {
        if (!isBucket)
          throw new StoreError(
            'STORE_CHANGED',
            [],
            `a bucket at ${e.where}`,
            'found a plain value',
            `${this.file.path}#${e.where}`,
          );
        item.value = this.rewriteBucketValue(item.value, e.children, e.where);
      } else if (e.update) {
        if (isBucket)
          throw new StoreError(
            'STORE_CHANGED',
            [],
            `a plain value at ${e.where}`,
            'found a bucket',
            `${this.file.path}#${e.where}`,
          );
        item.value = Buffer.from(e.update(item.value));
        this.updated++;
      }
    }
  }

  /** A bucket value with `level` applied: an inline bucket is rewritten in place, else its tree. */
  rewriteBucketValue(value: Buffer, level: Map<string, TrieEntry>, where: string): Buffer {
    const h = decodeBucketValue(value, `${this.file.path} bucket ${where}`);
    const entries = sortedEntries(level);
    if (h.inline === undefined) {
      const out = Buffer.from(value);
      out.writeBigUInt64LE(BigInt(this.rewriteTree(h.root, entries, where)), 0);
      return out;
    }
    const node = decodeNode(h.inline, `${this.file.path} inline bucket ${where}`);
    if (!node.leaf) throw corrupt(`${this.file.path}: inline bucket ${where} holds a branch page`, this.file.path);
    this.applyLeaf(node.items, entries, where);
    const out = Buffer.alloc(BUCKET_HEADER_SIZE + nodeSize(node));
    value.copy(out, 0, 0, BUCKET_HEADER_SIZE);
    // Keep the inline page's id bytes as they were (bbolt leaves them zero).
    encodeNode(node, out, BUCKET_HEADER_SIZE, readPageHeader(h.inline).id, 0);
    return out;
  }
}

/**
 * Writes new pages as they are made, coalescing adjacent ones into vectored writes of up to 8 MiB,
 * so memory stays flat however many records change. Every page written lies outside the tree the
 * meta in force reaches (free pages or above the high-water mark), so writing early is as safe as
 * writing late: until the meta page is written, the file's state is the old one.
 */
class PageWriter {
  /** Pages of the current run are encoded straight into this reused arena. */
  private readonly arena: Buffer;
  private runStart = -1;
  private runPages = 0;
  pages = 0;

  constructor(
    private readonly file: BoltFile,
    private readonly pageSize: number,
    private readonly trace: CommitHooks['trace'],
    arenaBytes = 8 << 20,
  ) {
    this.arena = Buffer.allocUnsafeSlow(Math.max(arenaBytes, pageSize));
  }

  /** A zeroed buffer for `count` pages at page `id`, written out by a later flush. */
  reserve(id: number, count: number): Buffer {
    const bytes = count * this.pageSize;
    const fits = (this.runPages + count) * this.pageSize <= this.arena.length;
    if (this.runStart < 0 || id !== this.runStart + this.runPages || !fits) {
      this.flush();
      if (bytes > this.arena.length) {
        // A node larger than the arena: its own buffer, written at once.
        const own = Buffer.alloc(bytes);
        this.pending = { id, buf: own };
        this.pages += count;
        return own;
      }
      this.runStart = id;
    }
    const off = this.runPages * this.pageSize;
    this.runPages += count;
    this.pages += count;
    return this.arena.fill(0, off, off + bytes).subarray(off, off + bytes);
  }

  private pending: PageWrite | undefined;

  /** Adds a page run made elsewhere (the freelist, the meta page). */
  add(w: PageWrite): void {
    const count = w.buf.length / this.pageSize;
    w.buf.copy(this.reserve(w.id, count));
  }

  flush(): void {
    if (this.pending) {
      this.write(this.pending.buf, this.pending.id * this.pageSize);
      this.pending = undefined;
    }
    if (this.runPages > 0)
      this.write(this.arena.subarray(0, this.runPages * this.pageSize), this.runStart * this.pageSize);
    this.runStart = -1;
    this.runPages = 0;
  }

  private write(buf: Buffer, position: number): void {
    this.trace?.({ op: 'write', path: this.file.path, position, bytes: buf });
    for (let done = 0; done < buf.length;)
      done += writeSync(this.file.fd, buf, done, buf.length - done, position + done);
  }
}

/**
 * Replaces the values of existing keys in one write transaction on `file` (opened writable; the
 * caller holds the file lock and has checked the file). New pages are written as they are made,
 * always outside what the meta in force reaches; the meta page is written last. So when an update
 * throws or a key is missing, the file's state is unchanged, though free pages (or pages past the
 * old end of the file) may hold the abandoned copies: callers that promise "nothing written" verify
 * their records first (as ContainerdStore.apply does).
 */
export function commitUpdates(file: BoltFile, updates: readonly BoltUpdate[], hooks: CommitHooks = {}): CommitResult {
  const meta = file.meta;
  const newTxid = meta.txid + 1n;
  if (Number(newTxid % 2n) === file.metas.page) {
    throw corrupt(
      `${file.path}: the meta in force (txid ${meta.txid}) sits on page ${file.metas.page}, where the next commit would write`,
      file.path,
    );
  }
  let free: number[] = [];
  const oldFreelistRun: number[] = [];
  if (meta.freelist !== null) {
    const page = file.readPage(meta.freelist);
    free = decodeFreelist(page, `${file.path} freelist page ${meta.freelist}`).sort((a, b) => a - b);
    const overflow = readPageHeader(page).overflow;
    for (let p = meta.freelist; p <= meta.freelist + overflow; p++) oldFreelistRun.push(p);
  }
  const { trace } = hooks;
  const tx = new Transaction(file, free, trace);
  const trie = buildTrie(updates, file.path);

  let root = meta.root;
  let freelistId: number | null = null;
  try {
    if (updates.length > 0) root = tx.rewriteTree(meta.root, sortedEntries(trie), '');
    if (meta.freelist !== null) {
      tx.freed.push(...oldFreelistRun);
      // The new freelist lists pages still free plus the pages this commit freed (bbolt's Copyall).
      const countBefore = tx.alloc.remaining().length + tx.freed.length;
      const pages = Math.ceil(freelistSize(countBefore) / file.pageSize);
      freelistId = tx.alloc.allocate(pages);
      const ids = [...tx.alloc.remaining(), ...tx.freed].sort((a, b) => a - b);
      const buf = Buffer.alloc(pages * file.pageSize);
      encodeFreelist(ids, buf, freelistId, pages - 1);
      tx.out.add({ id: freelistId, buf });
    }
    tx.out.flush();
    const needed = tx.alloc.highWaterMark * file.pageSize;
    if (needed > file.size) {
      trace?.({ op: 'truncate', path: file.path, size: needed });
      ftruncateSync(file.fd, needed);
    }
    trace?.({ op: 'sync', path: file.path });
    fdatasyncSync(file.fd);
  } catch (e) {
    throw ioError(e, `to write ${tx.out.pages} pages to ${file.path}`, file.path);
  }
  const newMeta: Meta = { ...meta, root, freelist: freelistId, pgid: tx.alloc.highWaterMark, txid: newTxid };
  const pagesWritten = tx.out.pages;
  hooks.beforeMeta?.();
  try {
    const metaWriter = new PageWriter(file, file.pageSize, trace, file.pageSize);
    metaWriter.add({ id: Number(newTxid % 2n), buf: encodeMetaPage(newMeta) });
    metaWriter.flush();
    trace?.({ op: 'sync', path: file.path });
    fdatasyncSync(file.fd);
  } catch (e) {
    throw ioError(e, `to write the meta page of ${file.path}`, file.path, 'WRITE_INTERRUPTED');
  }
  return {
    txid: newTxid,
    updated: tx.updated,
    pagesWritten,
    pagesFreed: tx.freed.length,
    highWaterMark: newMeta.pgid,
    syncedFreelist: freelistId !== null,
  };
}
