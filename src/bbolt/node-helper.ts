/**
 * The node helper: a static binary of our own Go source (native/node-helper) for the two system
 * calls Node.js lacks, flock(2) and chroot(2). The single executable carries it as a SEA asset
 * (scripts/build-exe.ts builds it with the pinned Go); elsewhere KUBELET_HASH_NODE_HELPER names a
 * built one. It is always run by absolute path, so an empty PATH and an image without a shell or
 * util-linux still lock meta.db and reach the host's tools.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The SEA asset's key per CPU architecture (`node-helper-linux-x64`, `node-helper-linux-arm64`). */
export const NODE_HELPER_ASSET = (arch: string): string => `node-helper-linux-${arch}`;

/** The embedded helper, when this process is the single executable that carries one. */
function embedded(): Uint8Array | undefined {
  try {
    // A runtime require: `node:sea` is only there from Node 20.12/21.7, and only the SEA has assets.
    const sea = (process.getBuiltinModule as ((id: string) => unknown) | undefined)?.('node:sea') as
      { isSea(): boolean; getAsset(key: string): ArrayBuffer } | undefined;
    if (!sea?.isSea()) return undefined;
    return new Uint8Array(sea.getAsset(NODE_HELPER_ASSET(process.arch)));
  } catch {
    return undefined; // a SEA built without it: the caller falls back
  }
}

let extracted: string | undefined;

/**
 * The helper's absolute path, or undefined when there is none (the caller falls back to tools on
 * PATH). The embedded one is written once per process into a new 0700 directory (mkdtemp, under
 * TMPDIR), created exclusively with mode 0700 and removed when the process exits.
 */
export function nodeHelper(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.KUBELET_HASH_NODE_HELPER;
  if (named !== undefined && named !== '' && isAbsolute(named)) return named;
  if (extracted !== undefined) return extracted;
  const bytes = embedded();
  if (!bytes) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-hash-helper-'));
  const file = join(dir, `node-helper-${randomBytes(4).toString('hex')}`);
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o700);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  process.once('exit', () => {
    rmSync(dir, { recursive: true, force: true });
  });
  extracted = file;
  return file;
}
