/** bbolt files: read, check, and replace values in one write transaction. */
export { BoltFile, toRef } from './file.js';
export { BUCKET_LEAF_FLAG, decodeBucketValue } from './format.js';
export { checkBoltFile, type BoltCheckReport } from './check.js';
export { commitUpdates, type BoltUpdate, type CommitHooks, type FileOperation } from './write.js';
export { lockFile } from './lock.js';
export { nodeHelper } from './node-helper.js';
