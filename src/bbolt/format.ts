/**
 * The bbolt (etcd-io/bbolt) on-disk format: page headers, meta pages, branch/leaf elements, bucket
 * headers and freelist pages. Little-endian, as bbolt writes it on every platform Kubernetes runs on.
 *
 * Layouts (from bbolt's internal/common/page.go, meta.go, bucket.go):
 * - page header (16 bytes): id u64, flags u16, count u16, overflow u32 (extra pages of the run).
 * - meta (64 bytes after the header): magic u32, version u32, pageSize u32, flags u32,
 *   root bucket {root u64, sequence u64}, freelist u64, pgid u64 (high-water mark), txid u64,
 *   checksum u64 = FNV-64a of the 56 bytes before it.
 * - branch element (16 bytes): pos u32, ksize u32, pgid u64; leaf element (16 bytes): flags u32,
 *   pos u32, ksize u32, vsize u32. `pos` counts from the element itself.
 * - bucket value: {root u64, sequence u64}; root 0 = inline bucket whose leaf page follows.
 * - freelist page: count ids (u64); count 0xFFFF means the first u64 holds the real count.
 */
import { StoreError } from '../errors.js';

export const PAGE_HEADER_SIZE = 16;
const ELEMENT_SIZE = 16;
export const BUCKET_HEADER_SIZE = 16;
export const META_SIZE = 64;
export const MAGIC = 0xed0cdaed;
export const VERSION = 2;

const BRANCH_PAGE = 0x01;
const LEAF_PAGE = 0x02;
const META_PAGE = 0x04;
const FREELIST_PAGE = 0x10;
/** Leaf element flag: the value is a bucket header (+ inline page). */
export const BUCKET_LEAF_FLAG = 0x01;
/** `meta.freelist` of a file written with NoFreelistSync (containerd 1.7+): no freelist page. */
const NO_FREELIST = 0xffff_ffff_ffff_ffffn;

/** A decoded meta page. Page ids are JS numbers: a file of 2^53 pages cannot exist. */
export interface Meta {
  magic: number;
  version: number;
  pageSize: number;
  flags: number;
  /** Root page of the top-level bucket tree. */
  root: number;
  /** The root bucket's sequence, kept as it was. */
  rootSequence: bigint;
  /** Freelist page id, or `null` when no freelist is synced. */
  freelist: number | null;
  /** High-water mark: the first page id never allocated. */
  pgid: number;
  txid: bigint;
  checksum: bigint;
}

export interface PageHeader {
  id: number;
  flags: number;
  count: number;
  overflow: number;
}

/** A key/value (or key/bucket) of a leaf node. */
export interface LeafItem {
  flags: number;
  key: Buffer;
  value: Buffer;
}

/** A child pointer of a branch node; `key` is the child's first key. */
export interface BranchItem {
  key: Buffer;
  pgid: number;
}

export type Node = { leaf: true; items: LeafItem[] } | { leaf: false; items: BranchItem[] };

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const U64 = 0xffff_ffff_ffff_ffffn;

/** FNV-64a, as Go's hash/fnv New64a: the meta checksum. */
function fnv64a(bytes: Uint8Array): bigint {
  let h = FNV64_OFFSET;
  for (const b of bytes) h = ((h ^ BigInt(b)) * FNV64_PRIME) & U64;
  return h;
}

/** `location`: the bbolt file, when the caller knows it (the page-format helpers here do not; their detail names it). */
export function corrupt(detail: string, location?: string): StoreError {
  return new StoreError('STORE_CORRUPT', [], 'a well-formed bbolt file', detail, location);
}

/** A u64 that must be a page id (or a count) small enough for a JS number. */
function readId(buf: Buffer, offset: number, what: string): number {
  const v = buf.readBigUInt64LE(offset);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(`${what} ${v} is not a plausible page id`);
  return Number(v);
}

export function readPageHeader(buf: Buffer, offset = 0): PageHeader {
  return {
    id: readId(buf, offset, 'page id'),
    flags: buf.readUInt16LE(offset + 8),
    count: buf.readUInt16LE(offset + 10),
    overflow: buf.readUInt32LE(offset + 12),
  };
}

function writePageHeader(buf: Buffer, h: PageHeader, offset = 0): void {
  buf.writeBigUInt64LE(BigInt(h.id), offset);
  buf.writeUInt16LE(h.flags, offset + 8);
  buf.writeUInt16LE(h.count, offset + 10);
  buf.writeUInt32LE(h.overflow, offset + 12);
}

/** Decodes the meta of a meta page (`page` starts at the page header). */
export function readMeta(page: Buffer): Meta {
  const o = PAGE_HEADER_SIZE;
  const freelist = page.readBigUInt64LE(o + 32);
  return {
    magic: page.readUInt32LE(o),
    version: page.readUInt32LE(o + 4),
    pageSize: page.readUInt32LE(o + 8),
    flags: page.readUInt32LE(o + 12),
    root: readId(page, o + 16, 'root page'),
    rootSequence: page.readBigUInt64LE(o + 24),
    freelist: freelist === NO_FREELIST ? null : readId(page, o + 32, 'freelist page'),
    pgid: readId(page, o + 40, 'high-water mark'),
    txid: page.readBigUInt64LE(o + 48),
    checksum: page.readBigUInt64LE(o + 56),
  };
}

/** Why a meta is unusable, or `undefined` when it is valid (bbolt's Meta.Validate). */
export function metaProblem(page: Buffer, meta: Meta): string | undefined {
  if (meta.magic !== MAGIC) return `bad magic 0x${meta.magic.toString(16)}`;
  if (meta.version !== VERSION) return `unsupported version ${meta.version}`;
  const sum = fnv64a(page.subarray(PAGE_HEADER_SIZE, PAGE_HEADER_SIZE + META_SIZE - 8));
  if (sum !== meta.checksum)
    return `checksum mismatch (stored ${meta.checksum.toString(16)}, computed ${sum.toString(16)})`;
  return undefined;
}

/** A full meta page for `meta` (checksum computed here), written as bbolt does: page id txid % 2. */
export function encodeMetaPage(meta: Meta): Buffer {
  const page = Buffer.alloc(meta.pageSize);
  writePageHeader(page, { id: Number(meta.txid % 2n), flags: META_PAGE, count: 0, overflow: 0 });
  const o = PAGE_HEADER_SIZE;
  page.writeUInt32LE(meta.magic, o);
  page.writeUInt32LE(meta.version, o + 4);
  page.writeUInt32LE(meta.pageSize, o + 8);
  page.writeUInt32LE(meta.flags, o + 12);
  page.writeBigUInt64LE(BigInt(meta.root), o + 16);
  page.writeBigUInt64LE(meta.rootSequence, o + 24);
  page.writeBigUInt64LE(meta.freelist === null ? NO_FREELIST : BigInt(meta.freelist), o + 32);
  page.writeBigUInt64LE(BigInt(meta.pgid), o + 40);
  page.writeBigUInt64LE(meta.txid, o + 48);
  page.writeBigUInt64LE(fnv64a(page.subarray(o, o + META_SIZE - 8)), o + 56);
  return page;
}

/**
 * Decodes the node stored in `buf` (a page run, or an inline bucket's page), checking that every
 * element and its key/value lie inside `buf`. Keys and values are views into `buf`.
 */
export function decodeNode(buf: Buffer, where: string): Node {
  if (buf.length < PAGE_HEADER_SIZE) throw corrupt(`${where}: ${buf.length} bytes is shorter than a page header`);
  const h = readPageHeader(buf);
  if (h.flags !== BRANCH_PAGE && h.flags !== LEAF_PAGE) {
    throw corrupt(`${where}: expected a branch or leaf page, found flags 0x${h.flags.toString(16)}`);
  }
  if (PAGE_HEADER_SIZE + h.count * ELEMENT_SIZE > buf.length)
    throw corrupt(`${where}: ${h.count} elements overrun the page`);
  const slice = (start: number, len: number, what: string): Buffer => {
    if (start + len > buf.length)
      throw corrupt(`${where}: ${what} at ${start}+${len} overruns the ${buf.length}-byte page`);
    return buf.subarray(start, start + len);
  };
  if (h.flags === LEAF_PAGE) {
    const items: LeafItem[] = [];
    for (let i = 0; i < h.count; i++) {
      const e = PAGE_HEADER_SIZE + i * ELEMENT_SIZE;
      const pos = e + buf.readUInt32LE(e + 4);
      const ksize = buf.readUInt32LE(e + 8);
      const vsize = buf.readUInt32LE(e + 12);
      items.push({
        flags: buf.readUInt32LE(e),
        key: slice(pos, ksize, `key ${i}`),
        value: slice(pos + ksize, vsize, `value ${i}`),
      });
    }
    return { leaf: true, items };
  }
  const items: BranchItem[] = [];
  for (let i = 0; i < h.count; i++) {
    const e = PAGE_HEADER_SIZE + i * ELEMENT_SIZE;
    const pos = e + buf.readUInt32LE(e);
    const ksize = buf.readUInt32LE(e + 4);
    items.push({ key: slice(pos, ksize, `key ${i}`), pgid: readId(buf, e + 8, 'child page') });
  }
  return { leaf: false, items };
}

/** Bytes a node takes on disk: header, elements, then keys and values (bbolt's node.size). */
export function nodeSize(node: Node): number {
  let size = PAGE_HEADER_SIZE + node.items.length * ELEMENT_SIZE;
  if (node.leaf) for (const it of node.items) size += it.key.length + it.value.length;
  else for (const it of node.items) size += it.key.length;
  return size;
}

/**
 * Writes `node` into `buf` at `offset` as bbolt's node.write does: elements first, then each
 * element's key and value in element order. `buf` must be zeroed and large enough.
 */
export function encodeNode(node: Node, buf: Buffer, offset: number, id: number, overflow: number): void {
  const count = node.items.length;
  if (count >= 0xffff) throw corrupt(`a node of ${count} elements cannot be written`);
  writePageHeader(buf, { id, flags: node.leaf ? LEAF_PAGE : BRANCH_PAGE, count, overflow }, offset);
  let data = offset + PAGE_HEADER_SIZE + count * ELEMENT_SIZE;
  let e = offset + PAGE_HEADER_SIZE;
  if (node.leaf) {
    for (const it of node.items) {
      buf.writeUInt32LE(it.flags, e);
      buf.writeUInt32LE(data - e, e + 4);
      buf.writeUInt32LE(it.key.length, e + 8);
      buf.writeUInt32LE(it.value.length, e + 12);
      data += it.key.copy(buf, data);
      data += it.value.copy(buf, data);
      e += ELEMENT_SIZE;
    }
    return;
  }
  for (const it of node.items) {
    buf.writeUInt32LE(data - e, e);
    buf.writeUInt32LE(it.key.length, e + 4);
    buf.writeBigUInt64LE(BigInt(it.pgid), e + 8);
    data += it.key.copy(buf, data);
    e += ELEMENT_SIZE;
  }
}

/** A bucket value's header: its root page (0 = inline) and sequence bytes. */
export interface BucketHeader {
  root: number;
  /** The inline bucket's page (a view into the value), when `root` is 0. */
  inline: Buffer | undefined;
}

export function decodeBucketValue(value: Buffer, where: string): BucketHeader {
  if (value.length < BUCKET_HEADER_SIZE) throw corrupt(`${where}: bucket value of ${value.length} bytes`);
  const root = readId(value, 0, 'bucket root');
  return { root, inline: root === 0 ? value.subarray(BUCKET_HEADER_SIZE) : undefined };
}

/** The page ids listed on a freelist page (bbolt's FreelistPageIds). */
export function decodeFreelist(page: Buffer, where: string): number[] {
  const h = readPageHeader(page);
  if (h.flags !== FREELIST_PAGE)
    throw corrupt(`${where}: expected a freelist page, found flags 0x${h.flags.toString(16)}`);
  let idx = 0;
  let count = h.count;
  if (count === 0xffff) {
    count = readId(page, PAGE_HEADER_SIZE, 'freelist count');
    idx = 1;
  }
  if (PAGE_HEADER_SIZE + (idx + count) * 8 > page.length)
    throw corrupt(`${where}: ${count} freelist ids overrun the page run`);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(readId(page, PAGE_HEADER_SIZE + (idx + i) * 8, 'free page id'));
  return ids;
}

/** Bytes a freelist page of `count` ids needs (bbolt's EstimatedWritePageSize). */
export function freelistSize(count: number): number {
  return PAGE_HEADER_SIZE + 8 * (count >= 0xffff ? count + 1 : count);
}

/** Writes sorted `ids` as a freelist page run (bbolt's freelist Write). */
export function encodeFreelist(ids: readonly number[], buf: Buffer, id: number, overflow: number): void {
  const big = ids.length >= 0xffff;
  writePageHeader(buf, { id, flags: FREELIST_PAGE, count: big ? 0xffff : ids.length, overflow });
  let o = PAGE_HEADER_SIZE;
  if (big) {
    buf.writeBigUInt64LE(BigInt(ids.length), o);
    o += 8;
  }
  for (const pid of ids) {
    buf.writeBigUInt64LE(BigInt(pid), o);
    o += 8;
  }
}

/** Element `i` of `items`, which the caller knows exists (a corrupt-file error otherwise). */
export function nth<T>(items: readonly T[], i: number): T {
  const v = items[i];
  if (v === undefined) throw corrupt(`element ${i} of ${items.length} is missing`);
  return v;
}

/** Byte-wise key order, as bbolt compares keys (bytes.Compare). */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}
