/**
 * Builds bbolt files from nested maps, for tests and benchmarks: leaves split at a fill threshold
 * with branch levels above them (as bbolt's spill does), small leaf-only sub-buckets stored inline
 * (bbolt's inlineable rule: no sub-buckets, at most pageSize/4 bytes), large values on page runs,
 * and either a synced freelist page (containerd 1.4/1.6) or none (NoFreelistSync, 1.7+), with some
 * free pages so that reuse is exercised. Real containerd files are tested in the integration test.
 */
import { writeFileSync } from 'node:fs';
import {
  BUCKET_HEADER_SIZE,
  BUCKET_LEAF_FLAG,
  MAGIC,
  VERSION,
  encodeFreelist,
  encodeMetaPage,
  encodeNode,
  freelistSize,
  nodeSize,
  type BranchItem,
  type LeafItem,
  type Node,
} from '../../src/bbolt/format.js';

/** A bucket: keys to values (bytes or strings) or to sub-buckets. */
export interface BoltTree {
  [key: string]: string | Uint8Array | BoltTree;
}

export interface BuildOptions {
  pageSize?: number;
  /** `synced` writes a freelist page (default), `none` writes the NoFreelistSync style. */
  freelist?: 'synced' | 'none';
  /** Free pages to leave in the file (listed in the freelist when synced). */
  freePages?: number;
  /** Split leaves once they pass this share of a page (bbolt's default fill percent is 0.5). */
  fill?: number;
  /** The txid of the meta in force. */
  txid?: number;
}

export function buildBoltFile(tree: BoltTree, options: BuildOptions = {}): Buffer {
  const pageSize = options.pageSize ?? 4096;
  const fill = options.fill ?? 0.5;
  const chunks = new Map<number, Buffer>();
  let next = 2;

  const place = (node: Node): number => {
    const pages = Math.ceil(nodeSize(node) / pageSize);
    const id = next;
    next += pages;
    const buf = Buffer.alloc(pages * pageSize);
    encodeNode(node, buf, 0, id, pages - 1);
    chunks.set(id, buf);
    return id;
  };

  const split = <T extends LeafItem | BranchItem>(items: T[]): T[][] => {
    const groups: T[][] = [];
    let cur: T[] = [];
    let size = 16;
    for (const it of items) {
      const sz = 16 + it.key.length + ('value' in it ? it.value.length : 0);
      if (cur.length >= 2 && size + sz > pageSize * fill) {
        groups.push(cur);
        cur = [];
        size = 16;
      }
      cur.push(it);
      size += sz;
    }
    if (cur.length > 0 || groups.length === 0) groups.push(cur);
    return groups;
  };

  const writeTree = (items: LeafItem[]): number => {
    let level: BranchItem[] = split(items).map((g) => ({
      key: g[0]?.key ?? Buffer.alloc(0),
      pgid: place({ leaf: true, items: g }),
    }));
    while (level.length > 1) {
      level = split(level).map((g) => ({ key: g[0]!.key, pgid: place({ leaf: false, items: g }) }));
    }
    return level[0]!.pgid;
  };

  const bucketItems = (t: BoltTree): LeafItem[] =>
    Object.keys(t)
      .map((k) => Buffer.from(k, 'latin1'))
      .sort((a, b) => Buffer.compare(a, b))
      .map((key) => {
        const v = t[key.toString('latin1')]!;
        if (typeof v === 'string') return { flags: 0, key, value: Buffer.from(v) };
        if (v instanceof Uint8Array) return { flags: 0, key, value: Buffer.from(v) };
        return { flags: BUCKET_LEAF_FLAG, key, value: bucketValue(v) };
      });

  const bucketValue = (t: BoltTree): Buffer => {
    const items = bucketItems(t);
    const node: Node = { leaf: true, items };
    const inline = items.every((i) => (i.flags & BUCKET_LEAF_FLAG) === 0) && nodeSize(node) <= pageSize / 4;
    if (inline) {
      const out = Buffer.alloc(BUCKET_HEADER_SIZE + nodeSize(node));
      encodeNode(node, out, BUCKET_HEADER_SIZE, 0, 0);
      return out;
    }
    const out = Buffer.alloc(BUCKET_HEADER_SIZE);
    out.writeBigUInt64LE(BigInt(writeTree(items)), 0);
    return out;
  };

  const root = writeTree(bucketItems(tree));
  const free: number[] = [];
  for (let i = 0; i < (options.freePages ?? 0); i++) {
    free.push(next);
    chunks.set(next, Buffer.alloc(pageSize));
    next++;
  }
  let freelist: number | null = null;
  if ((options.freelist ?? 'synced') === 'synced') {
    const pages = Math.ceil(freelistSize(free.length) / pageSize);
    freelist = next;
    const buf = Buffer.alloc(pages * pageSize);
    encodeFreelist(free, buf, freelist, pages - 1);
    chunks.set(freelist, buf);
    next += pages;
  }
  const file = Buffer.alloc(next * pageSize);
  for (const [id, buf] of chunks) buf.copy(file, id * pageSize);
  const txid = BigInt(options.txid ?? 7);
  const meta = {
    magic: MAGIC,
    version: VERSION,
    pageSize,
    flags: 0,
    root,
    rootSequence: 0n,
    freelist,
    pgid: next,
    txid,
    checksum: 0n,
  };
  encodeMetaPage({ ...meta, txid: txid - 1n }).copy(file, Number((txid - 1n) % 2n) * pageSize);
  encodeMetaPage(meta).copy(file, Number(txid % 2n) * pageSize);
  return file;
}

export function writeBoltFile(path: string, tree: BoltTree, options?: BuildOptions): void {
  writeFileSync(path, buildBoltFile(tree, options));
}
