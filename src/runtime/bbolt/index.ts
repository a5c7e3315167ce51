/** bbolt files: read, check, and replace values in one write transaction. */
export { BoltFile, type BucketRef, type MetaChoice } from './file.js';
export { checkBoltFile, type BoltCheckReport } from './check.js';
export { commitUpdates, type BoltUpdate, type CommitResult, type CommitHooks } from './write.js';
export { lockFile, withFileLock, type FileLock } from './lock.js';
