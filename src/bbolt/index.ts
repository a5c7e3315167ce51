/** bbolt files: read, check, and replace values in one write transaction. */
export { BoltFile } from './file.js';
export { checkBoltFile, type BoltCheckReport } from './check.js';
export { commitUpdates, type BoltUpdate, type CommitHooks, type FileOperation } from './write.js';
export { lockFile } from './lock.js';
export { nodeHelper } from './node-helper.js';
