/**
 * A read-only check of a bbolt file's invariants, in the spirit of `bbolt check`: the meta in
 * force is valid, every page below the high-water mark is reachable exactly once (meta pages, the
 * freelist page run, bucket trees) or listed as free, no free page is also in use, page headers
 * name their own id and a valid type, keys are sorted within every node and lie within the range
 * their parent branch gives them, and every element stays inside its page.
 */
import { KubeletHashError } from '../errors.js';
import { BoltFile, type PageScratch } from './file.js';
import {
  BUCKET_LEAF_FLAG,
  compareKeys,
  decodeBucketValue,
  decodeFreelist,
  decodeNode,
  readPageHeader,
  type Node,
} from './format.js';

/**
 * What {@link checkBoltFile} found.
 *
 * @example
 * ```ts
 * import type { BoltCheckReport } from 'kubelet-hash/node';
 * const sound = (r: BoltCheckReport): boolean => r.faults.length === 0;
 * sound({ faults: [], txid: 7n, pageSize: 4096, highWaterMark: 10, reachablePages: 9, freePages: 1, syncedFreelist: true }); // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface BoltCheckReport {
  /** Each broken invariant, in words; empty when the file is sound. */
  faults: string[];
  /** The transaction id in force. */
  txid: bigint;
  /** Page size in bytes. */
  pageSize: number;
  /** The high-water mark (pages in use or free below it). */
  highWaterMark: number;
  /** Pages reachable from the meta in force (including the two meta pages and the freelist run). */
  reachablePages: number;
  /** Pages the freelist lists (or, without a synced freelist, pages nothing reaches). */
  freePages: number;
  /** Whether the file keeps a freelist page (containerd 1.4/1.6) or not (NoFreelistSync, 1.7+). */
  syncedFreelist: boolean;
  /** Why the other meta page is not valid, when it is not (not a fault: bbolt falls back by design). */
  otherMetaProblem?: string;
}

const MAX_FAULTS = 100;

/**
 * Checks the bbolt file at `path` without writing to it.
 *
 * On a node: `checkBoltFile('/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db').faults`
 * lists what is wrong (empty when the file is sound). A file that is no bbolt file is refused:
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { checkBoltFile } from 'kubelet-hash/node';
 * const file = join(mkdtempSync(join(tmpdir(), 'bolt-')), 'meta.db');
 * writeFileSync(file, Buffer.alloc(8192));
 * try {
 *   checkBoltFile(file);
 * } catch (e) {
 *   (e as { code: string }).code; // → 'STORE_CORRUPT'
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function checkBoltFile(path: string): BoltCheckReport {
  const file = BoltFile.open(path);
  try {
    return new Checker(file).run();
  } finally {
    file.close();
  }
}

class Checker {
  readonly faults: string[] = [];
  private level = 0;
  private readonly scratch: PageScratch[] = [];
  private readonly owner: Uint8Array;

  constructor(private readonly file: BoltFile) {
    this.owner = new Uint8Array(file.meta.pgid);
  }

  private fault(msg: string): void {
    if (this.faults.length < MAX_FAULTS) this.faults.push(msg);
    else if (this.faults.length === MAX_FAULTS) this.faults.push('… more faults not listed');
  }

  /** Marks a page run as reachable; false when it is out of bounds or already reached. */
  private mark(pgid: number, overflow: number, what: string): boolean {
    const hwm = this.file.meta.pgid;
    if (pgid + overflow >= hwm) {
      this.fault(`${what}: page ${pgid}+${overflow} is at or above the high-water mark ${hwm}`);
      return false;
    }
    for (let p = pgid; p <= pgid + overflow; p++) {
      if (this.owner[p] === 1) {
        this.fault(`${what}: page ${p} is reachable more than once`);
        return false;
      }
      this.owner[p] = 1;
    }
    return true;
  }

  run(): BoltCheckReport {
    const { meta, pageSize } = this.file;
    this.owner[0] = 1;
    this.owner[1] = 1;
    let free: number[] = [];
    if (meta.freelist !== null) {
      try {
        const page = this.file.readPage(meta.freelist);
        if (this.mark(meta.freelist, readPageHeader(page).overflow, 'freelist'))
          free = decodeFreelist(page, `freelist page ${meta.freelist}`);
      } catch (e) {
        this.caught(e, 'freelist');
      }
    }
    this.tree(meta.root, 'root', undefined, undefined, 0);
    const freeSet = new Set<number>();
    for (const id of free) {
      if (id < 2 || id >= meta.pgid) this.fault(`freelist: page ${id} is outside the data pages 2..${meta.pgid - 1}`);
      else if (freeSet.has(id)) this.fault(`freelist: page ${id} is listed twice`);
      else if (this.owner[id] === 1) this.fault(`freelist: page ${id} is free and in use`);
      freeSet.add(id);
    }
    let reachable = 0;
    let unreached = 0;
    for (let p = 0; p < meta.pgid; p++) {
      if (this.owner[p] === 1) reachable++;
      else if (!freeSet.has(p)) {
        unreached++;
        if (meta.freelist !== null) this.fault(`page ${p}: neither reachable nor free`);
      }
    }
    const report: BoltCheckReport = {
      faults: this.faults,
      txid: meta.txid,
      pageSize,
      highWaterMark: meta.pgid,
      reachablePages: reachable,
      freePages: meta.freelist !== null ? freeSet.size : unreached,
      syncedFreelist: meta.freelist !== null,
    };
    if (this.file.metas.otherProblem !== undefined) report.otherMetaProblem = this.file.metas.otherProblem;
    return report;
  }

  private caught(e: unknown, where: string): void {
    if (e instanceof KubeletHashError) this.fault(`${where}: ${e.detail ?? e.message}`);
    else throw e;
  }

  /** Checks the tree of page `pgid`; keys must lie in [lower, upper). */
  private tree(pgid: number, where: string, lower: Buffer | undefined, upper: Buffer | undefined, depth: number): void {
    if (depth > 64) {
      this.fault(`${where}: branch pages nest deeper than 64 levels`);
      return;
    }
    let node: Node;
    try {
      if (pgid < 2) {
        this.fault(`${where}: page ${pgid} is a meta page`);
        return;
      }
      const buf = this.file.readPage(pgid, (this.scratch[this.level] ??= { buf: Buffer.alloc(0) }));
      if (!this.mark(pgid, readPageHeader(buf).overflow, where)) return;
      node = decodeNode(buf, `page ${pgid}`);
    } catch (e) {
      this.caught(e, where);
      return;
    }
    // Children read into the next level's scratch while this node's items are in use.
    this.level++;
    try {
      this.node(node, `${where} (page ${pgid})`, lower, upper, depth);
    } finally {
      this.level--;
    }
  }

  private node(node: Node, where: string, lower: Buffer | undefined, upper: Buffer | undefined, depth: number): void {
    const items = node.items;
    if (items.length === 0 && !node.leaf) this.fault(`${where}: empty branch page`);
    let prev: Buffer | undefined;
    for (const [i, { key }] of items.entries()) {
      if (key.length === 0) this.fault(`${where}: element ${i} has an empty key`);
      if (prev !== undefined && compareKeys(prev, key) >= 0) this.fault(`${where}: keys out of order at element ${i}`);
      prev = key;
      if (lower !== undefined && compareKeys(key, lower) < 0)
        this.fault(`${where}: key ${i} is below its parent's range`);
      if (upper !== undefined && compareKeys(key, upper) >= 0)
        this.fault(`${where}: key ${i} is beyond its parent's range`);
    }
    if (!node.leaf) {
      node.items.forEach((child, i) => {
        const next = node.items[i + 1]?.key ?? upper;
        this.tree(child.pgid, `${where} child ${i}`, child.key, next, depth + 1);
      });
      return;
    }
    for (const item of node.items) {
      if ((item.flags & BUCKET_LEAF_FLAG) === 0) continue;
      const name = `${where}/${item.key.toString('latin1')}`;
      try {
        const h = decodeBucketValue(item.value, name);
        if (h.inline === undefined) this.tree(h.root, name, undefined, undefined, 0);
        else {
          const inner = decodeNode(h.inline, `inline bucket ${name}`);
          if (!inner.leaf) this.fault(`${name}: inline bucket holds a branch page`);
          this.node(inner, `${name} (inline)`, undefined, undefined, depth + 1);
        }
      } catch (e) {
        this.caught(e, name);
      }
    }
  }
}
