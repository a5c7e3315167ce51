/**
 * Real bbolt as a second judge of every meta.db the tests write, beside the project's own checker:
 * runs bbolt-check (test/support/go/bbolt-check) on a file and compares what real bbolt reads with
 * what the project's reader reads and with what the test expects.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { BoltFile, checkBoltFile } from '../../src/bbolt/index.js';
import { toRef, type BucketRef } from '../../src/bbolt/file.js';
import { BUCKET_LEAF_FLAG, decodeBucketValue } from '../../src/bbolt/format.js';
import { BBOLT_CHECK, judgeAvailable } from './go-judges.js';

/** What real bbolt found in a file (bbolt-check's report). */
export interface BboltVerdict {
  file: string;
  /** Whether bbolt opened the file (and read it without panicking). */
  opened: boolean;
  /** Why not, when it did not. */
  error?: string;
  txid: number;
  /** What tx.Check() reported. */
  check: string[];
  /** Container id → its stored `io.kubernetes.container.hash*` annotations. */
  hashes: Record<string, { hash?: string; hashWithoutResources?: string }>;
  /** Containers whose metadata extension did not decode. */
  undecoded: string[];
  /** With `tree`: every key path → SHA-256 of its value (`bucket` for sub-buckets). */
  tree?: Record<string, string>;
}

/** Real bbolt's report on `file`, or `undefined` where bbolt-check is not built (skipped; CI fails). */
export function realBbolt(
  file: string,
  options: { tree?: boolean; namespace?: string } = {},
): BboltVerdict | undefined {
  if (!judgeAvailable(BBOLT_CHECK)) return undefined;
  const args = [...(options.tree ? ['-tree'] : []), '-namespace', options.namespace ?? 'k8s.io', file];
  const r = spawnSync(BBOLT_CHECK.path, args, { encoding: 'utf8', maxBuffer: 256 << 20, timeout: 60_000 });
  if (r.error) throw r.error;
  if (r.status === 64 || r.stdout === '') throw new Error(`bbolt-check ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as BboltVerdict;
}

/** The stored `io.kubernetes.container.hash` per container, as real bbolt reads it. */
export function storedHashes(v: BboltVerdict): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(v.hashes).map(([id, h]) => [id, h.hash]));
}

function escapeKey(key: Buffer): string {
  let out = '';
  for (const c of key) {
    const ch = String.fromCharCode(c);
    out += /[A-Za-z0-9._:-]/.test(ch) ? ch : `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The project's reader's view of every key, in bbolt-check's `tree` form. */
export function projectTree(file: string): Record<string, string> {
  const f = BoltFile.open(file);
  const out: Record<string, string> = {};
  const walk = (ref: BucketRef, prefix: string): void => {
    for (const item of f.items(ref)) {
      const path = prefix + escapeKey(item.key);
      if ((item.flags & BUCKET_LEAF_FLAG) !== 0) {
        out[path] = 'bucket';
        walk(toRef(decodeBucketValue(item.value, path)), `${path}/`);
      } else out[path] = createHash('sha256').update(item.value).digest('hex');
    }
  };
  try {
    walk(f.rootBucket, '');
  } finally {
    f.close();
  }
  return out;
}

/**
 * Asserts that real bbolt opens `file`, its tx.Check() finds nothing, it reads every key and value
 * exactly as the project's reader does, the project's own checker is clean too, and (when given) the
 * stored hashes are exactly `hashes`. Returns bbolt's report (undefined where bbolt-check is missing).
 */
export function expectRealBboltAgrees(
  file: string,
  expected: {
    hashes?: Record<string, string | undefined>;
    namespace?: string;
    /**
     * After an aborted commit: pages the abandoned transaction wrote are neither reachable nor free
     * (bbolt: "unreachable unfreed"); nothing else may be wrong.
     */
    abandonedPages?: boolean;
  } = {},
): BboltVerdict | undefined {
  const v = realBbolt(file, { tree: true, ...(expected.namespace ? { namespace: expected.namespace } : {}) });
  if (!v) return undefined;
  expect(v.error).toBeUndefined();
  expect(v.opened).toBe(true);
  const abandoned = expected.abandonedPages === true;
  expect(v.check.filter((f) => !(abandoned && f.endsWith('unreachable unfreed')))).toEqual([]);
  expect(checkBoltFile(file).faults.filter((f) => !(abandoned && f.includes('neither reachable nor free')))).toEqual(
    [],
  );
  expect(v.tree).toEqual(projectTree(file));
  if (expected.hashes) expect(storedHashes(v)).toEqual(expected.hashes);
  return v;
}
