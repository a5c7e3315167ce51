/**
 * Crash points from a trace of a store's writes (CommitHooks.trace): the states a crash can leave
 * on disk, under a plain model of a POSIX file system with fsync:
 * - a write (or truncate) of a file is durable once a later `sync` of that file has run;
 * - a rename is durable once a later `syncDir` of the target's directory has run;
 * - anything not yet durable at the crash may or may not have reached the disk, in any order, and a
 *   write of several pages may reach it page by page (bbolt writes are split into pages here).
 * For every prefix of the operations the state with all of it on disk is a crash point; at each
 * point just before a sync (where most is pending) the pending operations are also dropped all
 * together, one by one, kept one by one, applied in reverse order, torn (half a page), and in a few
 * seeded random subsets.
 */
import { dirname } from 'node:path';
import type { FileOperation } from '../../src/bbolt/write.js';

/** Records a trace, copying written bytes (the writer reuses its buffers). */
export function traceRecorder(): { ops: FileOperation[]; trace: (op: FileOperation) => void } {
  const ops: FileOperation[] = [];
  return {
    ops,
    trace: (op) => {
      ops.push(op.op === 'write' ? { ...op, bytes: Buffer.from(op.bytes) } : op);
    },
  };
}

/** A crash state: which operations reached the disk, in the order they did. */
export interface CrashState {
  label: string;
  applied: FileOperation[];
}

/** Splits writes into `pageSize` pieces (a device persists a large write page by page). */
export function splitWrites(ops: readonly FileOperation[], pageSize: number): FileOperation[] {
  return ops.flatMap((op) => {
    if (op.op !== 'write' || op.bytes.length <= pageSize) return [op];
    const out: FileOperation[] = [];
    for (let off = 0; off < op.bytes.length; off += pageSize)
      out.push({ ...op, position: op.position + off, bytes: op.bytes.subarray(off, off + pageSize) });
    return out;
  });
}

function coveredBy(op: FileOperation, later: FileOperation): boolean {
  if (op.op === 'write' || op.op === 'truncate') return later.op === 'sync' && later.path === op.path;
  if (op.op === 'rename') return later.op === 'syncDir' && later.path === dirname(op.to);
  return false;
}

/** A small seeded generator (mulberry32), so the random subsets are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every crash state of `ops` (see the module comment). */
export function crashStates(ops: readonly FileOperation[]): CrashState[] {
  const states: CrashState[] = [];
  const random = seeded(20);
  for (let k = 0; k <= ops.length; k++) {
    const prefix = ops.slice(0, k);
    states.push({ label: `after ${k} of ${ops.length} operations`, applied: prefix });
    if (ops[k]?.op !== 'sync' && ops[k]?.op !== 'syncDir') continue;
    // Just before a sync: vary what of the pending operations reached the disk.
    const durable: FileOperation[] = [];
    const pending: FileOperation[] = [];
    prefix.forEach((op, i) => {
      (prefix.slice(i + 1).some((later) => coveredBy(op, later)) ? durable : pending).push(op);
    });
    const data = pending.filter((op) => op.op !== 'sync' && op.op !== 'syncDir');
    const at = `before operation ${k + 1} (${ops[k]!.op})`;
    const add = (label: string, subset: FileOperation[]): void => {
      states.push({ label: `${at}, ${label}`, applied: [...durable, ...subset] });
    };
    add('nothing pending on disk', []);
    add('pending in reverse order', [...data].reverse());
    data.forEach((op, i) => {
      add(
        `pending ${i + 1} of ${data.length} dropped`,
        data.filter((_, j) => j !== i),
      );
      add(`only pending ${i + 1} of ${data.length}`, [op]);
      if (op.op === 'write' && op.bytes.length > 1)
        add(`pending ${i + 1} of ${data.length} torn`, [
          ...data.slice(0, i),
          { ...op, bytes: op.bytes.subarray(0, op.bytes.length >> 1) },
        ]);
    });
    for (let r = 0; r < 4; r++)
      add(
        `random subset ${r + 1}`,
        data.filter(() => random() < 0.5),
      );
  }
  return states;
}

/** The files after `applied` ran on `before` (path → bytes; a missing path has no file). */
export function replay(before: ReadonlyMap<string, Buffer>, applied: readonly FileOperation[]): Map<string, Buffer> {
  const files = new Map([...before].map(([p, b]) => [p, Buffer.from(b)]));
  for (const op of applied) {
    if (op.op === 'write') {
      const old = files.get(op.path) ?? Buffer.alloc(0);
      const end = op.position + op.bytes.length;
      const grown = old.length >= end ? old : Buffer.concat([old, Buffer.alloc(end - old.length)]);
      grown.set(op.bytes, op.position);
      files.set(op.path, grown);
    } else if (op.op === 'truncate') {
      const old = files.get(op.path) ?? Buffer.alloc(0);
      files.set(
        op.path,
        old.length >= op.size ? old.subarray(0, op.size) : Buffer.concat([old, Buffer.alloc(op.size - old.length)]),
      );
    } else if (op.op === 'rename') {
      // A temp file whose write did not reach the disk still exists, empty (open created it).
      files.set(op.to, files.get(op.from) ?? Buffer.alloc(0));
      files.delete(op.from);
    }
  }
  return files;
}
