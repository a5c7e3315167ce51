/**
 * A bbolt file read back into the bolt builder's nested maps, so that a test can change a store
 * the way a runtime would since apply (an image pulled, a container recorded in another
 * namespace, a sandbox removed) and write it again in place (same inode: the store's identity).
 */
import { toRef, type BucketRef } from '../../src/bbolt/file.js';
import { BoltFile } from '../../src/bbolt/index.js';
import { BUCKET_LEAF_FLAG, decodeBucketValue } from '../../src/bbolt/format.js';
import type { BoltTree } from './bolt-builder.js';

/** Every bucket and key of `file` (keys as UTF-8 text, values copied). */
export function readBoltTree(file: string): BoltTree {
  const f = BoltFile.open(file);
  const walk = (ref: BucketRef, at: string): BoltTree => {
    const out: BoltTree = {};
    for (const item of f.items(ref)) {
      const key = item.key.toString('utf8');
      out[key] =
        (item.flags & BUCKET_LEAF_FLAG) !== 0
          ? walk(toRef(decodeBucketValue(item.value, `${at}/${key}`)), `${at}/${key}`)
          : Buffer.from(item.value);
    }
    return out;
  };
  try {
    return walk(f.rootBucket, '');
  } finally {
    f.close();
  }
}

/** The bucket at `path` of `tree` (created when missing). */
export function bucketOf(tree: BoltTree, path: readonly string[]): BoltTree {
  let at = tree;
  for (const k of path) {
    const next = at[k];
    if (next === undefined || typeof next === 'string' || next instanceof Uint8Array) at[k] = {};
    at = at[k] as BoltTree;
  }
  return at;
}
