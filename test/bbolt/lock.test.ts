/**
 * The bbolt file lock (src/bbolt/lock.ts) taken by the node helper with an EMPTY PATH: no flock(1),
 * no sh, no cat. Real bbolt (bbolt-check, which opens with a 2 s timeout) is kept out while we hold
 * it and opens the file once we let go; a second lockFile is refused; without the helper and
 * without PATH the fallback to flock(1) cannot run and says so.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { lockFile } from '../../src/bbolt/index.js';
import { buildBoltFile } from '../support/bolt-builder.js';
import { NODE_HELPER_HOW, testNodeHelper } from '../support/node-helper.js';
import { realBbolt } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-lock-'));
const saved = { PATH: process.env.PATH, helper: process.env.KUBELET_HASH_NODE_HELPER };
afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.helper === undefined) delete process.env.KUBELET_HASH_NODE_HELPER;
  else process.env.KUBELET_HASH_NODE_HELPER = saved.helper;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const helper = testNodeHelper();
if (!helper) console.log(`skipped: the node helper lock tests (${NODE_HELPER_HOW})`);

describe.skipIf(!helper)('lockFile through the node helper, PATH empty', () => {
  it('holds the flock real bbolt takes: bbolt-check cannot open the file while we hold it, opens it after release', async () => {
    const file = join(dir, 'meta.db');
    writeFileSync(file, buildBoltFile({ a: '1' }));
    process.env.KUBELET_HASH_NODE_HELPER = helper;
    process.env.PATH = '';
    const held = await lockFile(file);
    try {
      expect(held.held()).toBe(true);
      await expect(lockFile(file)).rejects.toMatchObject({ code: 'STORE_LOCKED' });
      const blocked = realBbolt(file);
      if (blocked) expect(blocked).toMatchObject({ opened: false, error: expect.stringMatching(/timeout/) });
    } finally {
      await held.release();
    }
    expect(held.held()).toBe(false);
    const opened = realBbolt(file);
    if (opened) expect(opened.opened).toBe(true);
    const again = await lockFile(file);
    await again.release();
  });

  it('refuses a symlink (the lock is on the file named) and a missing file: STORE_IO naming the helper', async () => {
    process.env.KUBELET_HASH_NODE_HELPER = helper;
    process.env.PATH = '';
    await expect(lockFile(join(dir, 'none.db'))).rejects.toMatchObject({
      code: 'STORE_IO',
      message: expect.stringMatching(/node helper exited 126/),
    });
    writeFileSync(join(dir, 'target.db'), buildBoltFile({ a: '1' }));
    symlinkSync(join(dir, 'target.db'), join(dir, 'link.db'));
    await expect(lockFile(join(dir, 'link.db'))).rejects.toMatchObject({
      code: 'STORE_IO',
      message: expect.stringMatching(/too many levels of symbolic links/),
    });
  });

  it('without the helper and with an empty PATH, the flock(1) fallback cannot run: STORE_IO saying what is missing', async () => {
    delete process.env.KUBELET_HASH_NODE_HELPER;
    process.env.PATH = '';
    const file = join(dir, 'fallback.db');
    writeFileSync(file, buildBoltFile({ a: '1' }));
    await expect(lockFile(file)).rejects.toMatchObject({
      code: 'STORE_IO',
      message: expect.stringMatching(/flock\(1\) on the PATH \(or the node helper\)/),
    });
  });
});
