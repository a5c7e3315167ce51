/**
 * Reads a bbolt file with positional reads (no mmap, no whole-file buffer): picks the meta page as
 * bbolt does (the valid one with the higher txid), reads page runs with bounds checks, and walks
 * buckets. Read-only: the writer (`write.ts`) and the checker (`check.ts`) build on it.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ioError } from '../errors.js';
import {
  BUCKET_LEAF_FLAG,
  MAGIC,
  META_SIZE,
  PAGE_HEADER_SIZE,
  compareKeys,
  corrupt,
  decodeBucketValue,
  decodeNode,
  metaProblem,
  nth,
  readMeta,
  readPageHeader,
  type LeafItem,
  type Meta,
  type Node,
} from './format.js';

/** Where a bucket's tree lives: a root page, or an inline page held in its parent's value. */
export type BucketRef = { root: number; inline?: undefined } | { root: 0; inline: Buffer };

/** A reusable read buffer (see {@link BoltFile.readPage}). */
export interface PageScratch {
  buf: Buffer;
}

/** Both meta pages as found, and which one is in force. */
export interface MetaChoice {
  /** The meta in force (valid, higher txid). */
  meta: Meta;
  /** Which page (0 or 1) holds it. */
  page: 0 | 1;
  /** Why the other meta page is not usable, if it is not (a torn or never-written meta). */
  otherProblem: string | undefined;
}

const SLAB_SIZE = 1 << 20;

/** An open bbolt file. Close it with {@link BoltFile.close}. */
export class BoltFile {
  readonly pageSize: number;
  readonly size: number;
  readonly metas: MetaChoice;

  private constructor(
    readonly path: string,
    readonly fd: number,
  ) {
    this.size = fstatSync(fd).size;
    this.metas = this.chooseMeta();
    this.pageSize = this.metas.meta.pageSize;
  }

  /** Opens `path` for reading (and, with `writable`, for the writer's positional writes). */
  static open(path: string, writable = false): BoltFile {
    let fd: number;
    try {
      fd = openSync(path, writable ? 'r+' : 'r');
    } catch (e) {
      throw ioError(e, `a readable bbolt file at ${path}`, path);
    }
    try {
      return new BoltFile(path, fd);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  get meta(): Meta {
    return this.metas.meta;
  }

  private slab = Buffer.alloc(0);
  private slabUsed = 0;

  /**
   * A buffer for a read: a slice of a 1 MiB slab, so that reading tens of thousands of pages makes
   * a few large allocations (returned to the OS when their slices are gone) instead of many small
   * ones that fragment the heap. Slices stay valid; a full slab is simply replaced.
   */
  private take(length: number): Buffer {
    if (length > SLAB_SIZE / 4) return Buffer.allocUnsafe(length);
    if (this.slabUsed + length > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
      this.slabUsed = 0;
    }
    const out = this.slab.subarray(this.slabUsed, this.slabUsed + length);
    this.slabUsed += length;
    return out;
  }

  private readAt(length: number, position: number): Buffer {
    return this.readInto(this.take(length), position);
  }

  private chooseMeta(): MetaChoice {
    if (this.size < 2 * PAGE_HEADER_SIZE + 2 * META_SIZE)
      throw corrupt(`${this.path}: ${this.size} bytes is too small for a bbolt file`, this.path);
    // Meta 0 is at offset 0; meta 1 is one page later, and the page size is in the meta itself.
    const head0 = this.readAt(PAGE_HEADER_SIZE + META_SIZE, 0);
    const meta0 = readMeta(head0);
    const problem0 = metaProblem(head0, meta0);
    // A torn meta 0 still usually names the page size; otherwise assume the common 4 KiB.
    const pageSize = problem0 === undefined || meta0.magic === MAGIC ? meta0.pageSize : 4096;
    if (pageSize < 512 || pageSize > 1 << 20 || (pageSize & (pageSize - 1)) !== 0)
      throw corrupt(`${this.path}: page size ${pageSize}`, this.path);
    if (this.size < 2 * pageSize)
      throw corrupt(`${this.path}: ${this.size} bytes is less than two ${pageSize}-byte meta pages`, this.path);
    const head1 = this.readAt(PAGE_HEADER_SIZE + META_SIZE, pageSize);
    const meta1 = readMeta(head1);
    const problem1 = metaProblem(head1, meta1);
    const ok0 = problem0 === undefined && meta0.pageSize === pageSize;
    const ok1 = problem1 === undefined && meta1.pageSize === pageSize;
    if (!ok0 && !ok1)
      throw corrupt(
        `${this.path}: both meta pages are invalid (${problem0 ?? 'page size'}; ${problem1 ?? 'page size'})`,
        this.path,
      );
    const use1 = ok1 && (!ok0 || meta1.txid > meta0.txid);
    const meta = use1 ? meta1 : meta0;
    if (meta.root >= meta.pgid)
      throw corrupt(`${this.path}: root page ${meta.root} is above the high-water mark ${meta.pgid}`, this.path);
    if (meta.freelist !== null && meta.freelist >= meta.pgid)
      throw corrupt(`${this.path}: freelist page ${meta.freelist} is above the high-water mark`, this.path);
    if (meta.pgid * pageSize > this.size) {
      throw corrupt(
        `${this.path}: high-water mark ${meta.pgid} pages needs ${meta.pgid * pageSize} bytes, the file has ${this.size}`,
        this.path,
      );
    }
    return {
      meta,
      page: use1 ? 1 : 0,
      otherProblem: use1 ? (ok0 ? undefined : (problem0 ?? 'page size')) : ok1 ? undefined : (problem1 ?? 'page size'),
    };
  }

  /**
   * The whole page run starting at `pgid` (header page plus overflow pages), bounds-checked. With
   * `scratch`, the run is read into that reusable buffer (grown when needed) and the result is a
   * view of it, valid until the next read into the same scratch: callers that walk a tree keep one
   * scratch per level, so a pass over the whole file allocates almost nothing.
   */
  readPage(pgid: number, scratch?: PageScratch): Buffer {
    const { pgid: hwm } = this.meta;
    const ps = this.pageSize;
    if (pgid < 2 || pgid >= hwm)
      throw corrupt(`${this.path}: page ${pgid} is outside the data pages 2..${hwm - 1}`, this.path);
    if (scratch && scratch.buf.length < ps) scratch.buf = Buffer.allocUnsafeSlow(ps * 4);
    const first = scratch ? this.readInto(scratch.buf.subarray(0, ps), pgid * ps) : this.readAt(ps, pgid * ps);
    const h = readPageHeader(first);
    if (h.id !== pgid) throw corrupt(`${this.path}: page ${pgid} says it is page ${h.id}`, this.path);
    if (h.overflow === 0) return first;
    if (pgid + h.overflow >= hwm)
      throw corrupt(
        `${this.path}: page ${pgid} with ${h.overflow} overflow pages runs past the high-water mark ${hwm}`,
        this.path,
      );
    const size = (h.overflow + 1) * ps;
    if (scratch) {
      if (scratch.buf.length < size) {
        const grown = Buffer.allocUnsafeSlow(size);
        first.copy(grown, 0);
        scratch.buf = grown;
      }
      this.readInto(scratch.buf.subarray(ps, size), (pgid + 1) * ps);
      return scratch.buf.subarray(0, size);
    }
    const all = this.take(size);
    first.copy(all, 0);
    this.readInto(all.subarray(ps), (pgid + 1) * ps);
    return all;
  }

  private readInto(buf: Buffer, position: number): Buffer {
    for (let done = 0; done < buf.length;) {
      const n = readSync(this.fd, buf, done, buf.length - done, position + done);
      if (n === 0) throw corrupt(`${this.path}: unexpected end of file at byte ${position + done}`, this.path);
      done += n;
    }
    return buf;
  }

  /** The node of page `pgid` (read into `scratch` when given; see {@link BoltFile.readPage}). */
  readNode(pgid: number, scratch?: PageScratch): Node {
    return decodeNode(this.readPage(pgid, scratch), `${this.path} page ${pgid}`);
  }

  /** The node at the root of a bucket (inline or on a page). */
  bucketRoot(ref: BucketRef): Node {
    return ref.inline !== undefined ? decodeNode(ref.inline, `${this.path} inline bucket`) : this.readNode(ref.root);
  }

  /** The top-level bucket tree (the meta's root). */
  get rootBucket(): BucketRef {
    return { root: this.meta.root };
  }

  /** Finds `key` in a bucket: its leaf item, or `undefined`. */
  get(ref: BucketRef, key: Uint8Array): LeafItem | undefined {
    let node = this.bucketRoot(ref);
    for (let depth = 0; !node.leaf; depth++) {
      if (depth > 64) throw corrupt(`${this.path}: branch pages nest deeper than 64 levels`, this.path);
      // The child holding `key` is the last one whose first key is <= key (bbolt's searchPage).
      let lo = 0;
      let hi = node.items.length - 1;
      let idx = 0;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (compareKeys(nth(node.items, mid).key, key) <= 0) {
          idx = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const child = node.items[idx];
      if (!child) return undefined;
      node = this.readNode(child.pgid);
    }
    let lo = 0;
    let hi = node.items.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compareKeys(nth(node.items, mid).key, key);
      if (c === 0) return node.items[mid];
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** The sub-bucket `name` of a bucket, or `undefined` when there is none (or it is a plain key). */
  bucket(ref: BucketRef, name: Uint8Array): BucketRef | undefined {
    const item = this.get(ref, name);
    if (!item || (item.flags & BUCKET_LEAF_FLAG) === 0) return undefined;
    return toRef(decodeBucketValue(item.value, `${this.path} bucket ${Buffer.from(name).toString('latin1')}`));
  }

  /** Follows a path of bucket names from the root. */
  bucketAt(path: readonly Uint8Array[]): BucketRef | undefined {
    let ref: BucketRef | undefined = this.rootBucket;
    for (const name of path) {
      if (!ref) return undefined;
      ref = this.bucket(ref, name);
    }
    return ref;
  }

  /** Every leaf item of a bucket, in key order. */
  *items(ref: BucketRef): Generator<LeafItem> {
    yield* this.walk(this.bucketRoot(ref), 0);
  }

  private *walk(node: Node, depth: number): Generator<LeafItem> {
    if (depth > 64) throw corrupt(`${this.path}: branch pages nest deeper than 64 levels`, this.path);
    if (node.leaf) {
      yield* node.items;
      return;
    }
    for (const child of node.items) yield* this.walk(this.readNode(child.pgid), depth + 1);
  }
}

/** A bucket item's value as a {@link BucketRef}. */
export function toRef(h: { root: number; inline: Buffer | undefined }): BucketRef {
  return h.inline !== undefined ? { root: 0, inline: h.inline } : { root: h.root };
}
