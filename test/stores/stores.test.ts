/**
 * Record stores on files laid out as the runtimes write them: CRI-O (config.json from its source
 * format: runtime-tools' tab indentation, no trailing newline; graphroot and runroot copies) and
 * docker (config.v2.json), plus containerd meta.db in the NoFreelistSync style (containerd 1.7+;
 * the real containerd 1.6 test covers the synced freelist). No CRI-O or dockerd daemon runs here.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ContainerdStore,
  CrioStore,
  DockerStore,
  containerdMetaDbPath,
  fingerprintFile,
} from '../../src/stores/index.js';
import type { RecordBackup } from '../../src/stores/index.js';
import { checkBoltFile } from '../../src/bbolt/index.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeContainerdNode } from '../support/node-fixture.js';
import { crioSpec } from '../support/crio-fixtures.js';
import { hashContainer } from '../../src/hash-api/index.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-stores-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs a process whose command name (/proc/PID/comm) is `name` and whose arguments are `args`:
 * node started through a symlink called `name`, idling for a while.
 */
async function withFakeProcess<T>(name: string, args: string[], fn: () => Promise<T>): Promise<T> {
  const bin = join(dir, name);
  rmSync(bin, { force: true });
  symlinkSync(process.execPath, bin);
  const child = spawn(bin, ['-e', 'setTimeout(() => {}, 30000)', '--', ...args], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  try {
    return await fn();
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const pods = Array.from({ length: 4 }, (_, i) => fixturePod(i));
const fixtures = fixtureContainers(pods, '1.30');

describe('CRI-O store (fixtures in its on-disk format)', () => {
  const graphRoot = join(dir, 'crio-graph');
  const runRoot = join(dir, 'crio-run');
  const files: string[] = [];
  for (const [i, f] of fixtures.entries()) {
    for (const root of [graphRoot, runRoot]) {
      const d = join(root, 'overlay-containers', f.id, 'userdata');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'config.json'), crioSpec(f, 'container'));
      files.push(join(d, 'config.json'));
    }
    if (i === 0) {
      const d = join(graphRoot, 'overlay-containers', f.sandboxId, 'userdata');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'config.json'), crioSpec({ ...f, id: f.sandboxId }, 'sandbox'));
    }
  }
  const store = new CrioStore({ graphRoot, runRoot });

  it('lists kubelet containers (not sandboxes) with both copies and their hashes', async () => {
    const list = await store.list();
    expect(list.map((c) => c.containerId).sort()).toEqual(fixtures.map((f) => f.id).sort());
    for (const f of fixtures) {
      const c = list.find((x) => x.containerId === f.id)!;
      expect(c).toMatchObject({
        runtime: 'cri-o',
        hash: f.hash,
        podUid: f.pod.metadata.uid,
        containerName: f.container.name,
      });
      expect(c.location.split(' + ')).toHaveLength(2);
      expect(c.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('rewrites only the hash characters, in both places of both copies; rollback restores the bytes', async () => {
    const list = await store.list();
    const before = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
    const originalPrints = await Promise.all(files.map((f) => fingerprintFile(f)));
    const rewrites = fixtures.slice(0, 2).map((f) => ({
      containerId: f.id,
      fingerprint: list.find((c) => c.containerId === f.id)!.fingerprint,
      change: { from: { hash: f.hash }, to: { hash: hashContainer(f.container, { kubeletVersion: '1.31' }) } },
    }));
    let backups: RecordBackup[] = [];
    const report = await store.apply(rewrites, { beforeWrite: (b) => (backups = b) });
    expect(report.changed).toHaveLength(2);
    // Both copies of each record, as they were.
    expect(backups.map((b) => b.values.length)).toEqual([2, 2]);
    for (const [file, old] of before) {
      const now = readFileSync(file, 'utf8');
      const r = rewrites.find((x) => file.includes(x.containerId));
      if (!r) {
        expect(now).toBe(old);
        continue;
      }
      expect(now).toBe(
        old
          .split(`"${r.change.from.hash}"`)
          .join(`"${r.change.to.hash}"`)
          .split(`\\"${r.change.from.hash}\\"`)
          .join(`\\"${r.change.to.hash}\\"`),
      );
      expect(now).not.toMatch(/\n$/);
      expect(now).toContain('\n\t"annotations": {');
    }
    const after = await store.list();
    for (const r of rewrites) expect(after.find((c) => c.containerId === r.containerId)!.hash).toBe(r.change.to.hash);

    // applying the same plan again is refused: the records changed
    await expect(store.apply(rewrites)).rejects.toMatchObject({ code: 'STORE_CHANGED' });

    const restored = await store.restoreRecords(backups);
    expect(restored.restored.map((r) => r.containerId)).toEqual(rewrites.map((r) => r.containerId));
    expect(await Promise.all(files.map((f) => fingerprintFile(f)))).toEqual(originalPrints);
    // Again: every record holds its pre-apply bytes already, nothing is written.
    expect(await store.restoreRecords(backups)).toEqual({
      restored: [],
      unchanged: rewrites.map((r) => r.containerId),
      lost: [],
    });
  });

  it('refuses while a crio process runs, writing nothing', async () => {
    const list = await store.list();
    const f = fixtures[0]!;
    const rw = [
      {
        containerId: f.id,
        fingerprint: list.find((c) => c.containerId === f.id)!.fingerprint,
        change: { from: { hash: f.hash }, to: { hash: '1' } },
      },
    ];
    const prints = await Promise.all(files.map((x) => fingerprintFile(x)));
    await withFakeProcess('crio', ['--root', graphRoot], () =>
      expect(store.apply(rw)).rejects.toMatchObject({ code: 'RUNTIME_RUNNING' }),
    );
    // A crio on another root is not in the way (a dry run, to write nothing).
    await withFakeProcess('crio', ['--root', join(dir, 'elsewhere')], () =>
      expect(store.apply(rw, { dryRun: true })).resolves.toMatchObject({ dryRun: true }),
    );
    expect(await Promise.all(files.map((x) => fingerprintFile(x)))).toEqual(prints);
  });

  it('refuses a stored hash that is not the planned one', async () => {
    const list = await store.list();
    const f = fixtures[1]!;
    const rw = [
      {
        containerId: f.id,
        fingerprint: list.find((c) => c.containerId === f.id)!.fingerprint,
        change: { from: { hash: 'abc' }, to: { hash: '1' } },
      },
    ];
    await expect(store.apply(rw)).rejects.toMatchObject({ code: 'STORE_CHANGED' });
  });
});

describe('docker store (config.v2.json fixture)', () => {
  const root = join(dir, 'docker');
  const text = readFileSync(
    join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'),
    'utf8',
  );
  const id = (JSON.parse(text) as { ID: string }).ID;
  const file = join(root, 'containers', id, 'config.v2.json');
  mkdirSync(join(root, 'containers', id), { recursive: true });
  writeFileSync(file, text);
  const daemonConfig = join(dir, 'daemon.json');

  it('lists the container, refuses without live-restore, rewrites with it', async () => {
    const store = new DockerStore({ root, daemonConfig });
    const [c] = await store.list();
    expect(c).toBeDefined();
    expect(c!.containerId).toBe(id);
    const rw = [
      { containerId: id, fingerprint: c!.fingerprint, change: { from: { hash: c!.hash! }, to: { hash: '5eed' } } },
    ];
    writeFileSync(daemonConfig, '{"storage-driver":"vfs"}');
    await expect(store.apply(rw)).rejects.toMatchObject({ code: 'LIVE_RESTORE_OFF' });
    writeFileSync(daemonConfig, '{"live-restore":true}');
    await withFakeProcess('dockerd', ['--data-root', root], () =>
      expect(store.apply(rw)).rejects.toMatchObject({ code: 'RUNTIME_RUNNING' }),
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
    let backups: RecordBackup[] = [];
    const report = await store.apply(rw, { beforeWrite: (b) => (backups = b) });
    expect(report.changed).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(
      text.replace(
        `"annotation.io.kubernetes.container.hash":"${c!.hash}"`,
        '"annotation.io.kubernetes.container.hash":"5eed"',
      ),
    );
    expect((await store.list())[0]!.hash).toBe('5eed');
    await store.restoreRecords(backups);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('containerd store on a NoFreelistSync meta.db (containerd 1.7+ style)', () => {
  it('lists, applies in one transaction, and rolls back to the original records', async () => {
    const root = join(dir, 'containerd');
    const many = fixtureContainers(
      Array.from({ length: 60 }, (_, i) => fixturePod(i)),
      '1.30',
    );
    const db = containerdMetaDbPath(writeContainerdNode(root, many));
    const original = await fingerprintFile(db);
    const oldHashes = Object.fromEntries(many.map((f) => [f.id, f.hash]));
    expectRealBboltAgrees(db, { hashes: oldHashes });
    const store = new ContainerdStore({ root });
    const list = await store.list();
    expect(list).toHaveLength(many.length);
    const rewrites = many.map((f) => ({
      containerId: f.id,
      fingerprint: list.find((c) => c.containerId === f.id)!.fingerprint,
      change: { from: { hash: f.hash }, to: { hash: hashContainer(f.container, { kubeletVersion: '1.31' }) } },
    }));
    const dry = await store.apply(rewrites, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(await fingerprintFile(db)).toBe(original);
    let backups: RecordBackup[] = [];
    const report = await store.apply(rewrites, { beforeWrite: (b) => (backups = b) });
    expect(report.changed).toHaveLength(many.length);
    expect(checkBoltFile(db)).toMatchObject({ faults: [], syncedFreelist: false });
    const after = new Map((await store.list()).map((c) => [c.containerId, c.hash]));
    for (const r of rewrites) expect(after.get(r.containerId)).toBe(r.change.to.hash);
    // Real bbolt reads exactly the new hashes.
    expectRealBboltAgrees(db, { hashes: Object.fromEntries(rewrites.map((r) => [r.containerId, r.change.to.hash])) });
    await expect(store.apply(rewrites)).rejects.toMatchObject({ code: 'STORE_CHANGED' });
    const restored = await store.restoreRecords(backups);
    expect(restored.restored).toHaveLength(many.length);
    // Every record is byte for byte as before (the file itself is a newer transaction).
    expect((await store.list()).map((c) => c.fingerprint)).toEqual(list.map((c) => c.fingerprint));
    expectRealBboltAgrees(db, { hashes: oldHashes });
  });
});
