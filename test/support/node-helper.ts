/**
 * The node helper (native/node-helper) for tests that run outside the single executable: built
 * with the pinned Go (scripts/node-helper.ts) into the cache, keyed by the SHA-256 of its source,
 * so a changed source is never tested with a stale binary. Undefined where that Go is missing
 * (the tests skip with a line saying so; CI fails).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { buildNodeHelper, HELPER_SOURCE } from '../../scripts/node-helper.js';
import { kubeletHashCache } from './go-judges.js';

/** How to get it where it is missing. */
export const NODE_HELPER_HOW = 'needs Go at /usr/local/go/bin/go (or KUBELET_HASH_GO) at the pinned release';

let built: string | null | undefined;

/** The helper's path, built on first use; undefined when the pinned Go is not there. */
export function testNodeHelper(): string | undefined {
  if (built !== undefined) return built ?? undefined;
  const key = createHash('sha256')
    .update(readFileSync(join(HELPER_SOURCE, 'main.go')))
    .update(readFileSync(join(HELPER_SOURCE, 'go.mod')))
    .digest('hex')
    .slice(0, 12);
  const dir = join(kubeletHashCache(), 'node-helper', key);
  const file = join(dir, 'node-helper');
  if (!existsSync(file)) {
    try {
      mkdirSync(dir, { recursive: true });
      buildNodeHelper(process.arch === 'arm64' ? 'arm64' : 'x64', `${file}.tmp`);
      renameSync(`${file}.tmp`, file);
    } catch (e) {
      if (process.env.CI === 'true') throw e;
      built = null;
      return undefined;
    }
  }
  built = file;
  return file;
}
