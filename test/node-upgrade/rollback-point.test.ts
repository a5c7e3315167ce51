/**
 * Issue 37's defects, each as a class: the runbook run twice keeps the rollback point; rollback
 * restores only the records apply rewrote and keeps what containerd recorded since; the backup
 * directory is trusted neither way (symlinks, other owners, forged or mismatched manifests);
 * files we write are private, atomic and never followed through a symlink; a symlinked store file
 * stays a symlink.
 */
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { ContainerdStore, containerdMetaDbPath } from '../../src/stores/index.js';
import { replaceEntryAtomic } from '../../src/stores/safe-files.js';
import { applyNodePlan, parseNodePlan, rollbackNodePlan } from '../../src/node-upgrade/index.js';
import { MANIFEST_NAME, planDigest, writeRollbackPoint } from '../../src/node-upgrade/rollback-point.js';
import { writeBoltFile } from '../support/bolt-builder.js';
import { bucketOf, readBoltTree } from '../support/bolt-tree.js';
import { cli } from '../support/cli.js';
import { criRecord, fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-rollback-points-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const isRoot = process.getuid?.() === 0;

/** A containerd node of `n` pods at 1.30 hashes, its pods file, and a plan written by the CLI. */
async function containerdNode(name: string, n = 2) {
  const pods = Array.from({ length: n }, (_, i) => fixturePod(i));
  const fixtures = fixtureContainers(pods, '1.30');
  const root = join(dir, name, 'containerd');
  writeContainerdNode(root, fixtures);
  const podsFile = writePodList(join(dir, name, 'pods.json'), pods);
  const planFile = join(dir, name, 'plan.json');
  const store = ['--containerd-root', root];
  const plan = async (out = planFile) => {
    const r = await cli(planArgs({ podsFile, store, out }));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    return out;
  };
  await plan();
  const db = containerdMetaDbPath(root);
  const hashes = async () =>
    Object.fromEntries((await new ContainerdStore({ root }).list()).map((c) => [c.containerId, c.hash]));
  const oldHashes = Object.fromEntries(fixtures.map((f) => [f.id, f.hash]));
  const newHashes = Object.fromEntries(
    fixtures.map((f) => [f.id, hashContainer(f.container, { kubeletVersion: '1.31' })]),
  );
  return { pods, fixtures, root, db, podsFile, planFile, plan, hashes, oldHashes, newHashes };
}

describe('the runbook run twice keeps the rollback point', () => {
  it('a second plan + apply writes nothing; rollback of the first plan restores, of the second refuses naming the first', async () => {
    const node = await containerdNode('twice');
    const first = readFileSync(node.planFile, 'utf8');
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const backupDir = `${node.planFile}.backup`;
    const points = readdirSync(backupDir);
    expect(points).toHaveLength(1);
    expect(points[0]).toMatch(new RegExp(`^${planDigest(parseNodePlan(first)).slice(0, 16)}-\\d{8}T\\d{9}Z$`));

    // The runbook again: a new plan over the same file (nothing left to rewrite) and apply.
    await node.plan();
    expect(readFileSync(node.planFile, 'utf8')).not.toBe(first);
    const again = await cli(['apply', node.planFile, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ summary: { changed: 0, manifest: null } });
    expect(readdirSync(backupDir)).toEqual(points);
    expect(await node.hashes()).toEqual(node.newHashes);

    // Rolling back the second plan would restore nothing: refused, naming the first's rollback point.
    const refused = await cli(['rollback', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('STORE_IO');
    expect(refused.err).toContain(join(backupDir, points[0]!));
    expect(await node.hashes()).toEqual(node.newHashes);

    // The first plan, kept in its rollback point, rolls back; exit 0 only with the old hashes back.
    const keptPlan = join(backupDir, points[0]!, 'plan.json');
    expect(readFileSync(keptPlan, 'utf8')).toBe(first);
    const rolled = await cli(['rollback', keptPlan, '--backup-dir', backupDir]);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    expect(rolled.out).toContain(`# restored ${node.fixtures.length} records`);
    expect(await node.hashes()).toEqual(node.oldHashes);
    expectRealBboltAgrees(node.db, { hashes: node.oldHashes });
  });

  it('a plan with nothing to rewrite, on a node never applied: no backup directory, rollback has nothing to do', async () => {
    const node = await containerdNode('nothing');
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    await node.plan();
    const again = await cli(['apply', node.planFile]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('# rewrote 0 records');
    rmSync(`${node.planFile}.backup`, { recursive: true });
    const second = await cli(['apply', node.planFile]);
    expect(second.code).toBe(0);
    expect(existsSync(`${node.planFile}.backup`)).toBe(false);
    const rolled = await cli(['rollback', node.planFile]);
    expect(rolled.code).toBe(0);
    expect(rolled.out).toContain('# restored 0 records');
  });
});

describe('rollback without its rollback point', () => {
  it('a plan never applied: its records read as planned, so rollback exits 0 restoring nothing; once they differ, it refuses', async () => {
    const node = await containerdNode('never-applied');
    const rolled = await cli(['rollback', node.planFile, '--json']);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    expect(JSON.parse(rolled.out)).toMatchObject({ summary: { restored: 0, unchanged: node.fixtures.length } });
    // Applied with another backup directory: the records are not as planned, and this directory has no point.
    expect((await cli(['apply', node.planFile, '--backup-dir', join(dir, 'never-applied', 'elsewhere')])).code).toBe(0);
    const refused = await cli(['rollback', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('the records it rewrites are not as planned');
    expect(await node.hashes()).toEqual(node.newHashes);
  });
});

describe('rollback keeps containerd metadata it never changed', () => {
  it('an image pulled, a container created in another namespace and a lease taken since apply all stay', async () => {
    const node = await containerdNode('keep-metadata');
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const tree = readBoltTree(node.db);
    bucketOf(tree, ['v1', 'k8s.io', 'images'])['docker.io/library/busybox:1.36'] = {
      target: { digest: 'sha256:aa', mediatype: 'application/vnd.oci.image.index.v1+json' },
    };
    const { id: otherId, ...other } = criRecord(fixtureContainers([fixturePod(9)], '1.30', 9)[0]!);
    bucketOf(tree, ['v1', 'default', 'containers'])[otherId] = other;
    bucketOf(tree, ['v1', 'k8s.io', 'leases'])['gc-lease'] = { createdat: Buffer.alloc(15, 2) };
    writeBoltFile(node.db, tree, { freelist: 'none' });
    const before = readBoltTree(node.db);

    const rolled = await cli(['rollback', node.planFile]);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    expect(rolled.out).not.toContain('note:');
    const after = readBoltTree(node.db);
    expect(bucketOf(after, ['v1', 'k8s.io', 'images'])).toEqual(bucketOf(before, ['v1', 'k8s.io', 'images']));
    expect(bucketOf(after, ['v1', 'default'])).toEqual(bucketOf(before, ['v1', 'default']));
    expect(bucketOf(after, ['v1', 'k8s.io', 'leases'])).toEqual(bucketOf(before, ['v1', 'k8s.io', 'leases']));
    expect(await node.hashes()).toEqual(node.oldHashes);
    expectRealBboltAgrees(node.db, { hashes: node.oldHashes });
  });

  it('a record apply rewrote and that changed again since is a refusal naming it; nothing is written', async () => {
    const node = await containerdNode('edited');
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const tree = readBoltTree(node.db);
    const victim = node.fixtures[1]!.id;
    const ext = bucketOf(tree, ['v1', 'k8s.io', 'containers', victim, 'extensions']);
    const key = 'io.cri-containerd.container.metadata';
    ext[key] = Buffer.from((ext[key] as Buffer).toString('latin1').replace('0.log"', '1.log"'), 'latin1');
    writeBoltFile(node.db, tree, { freelist: 'none' });
    const edited = readFileSync(node.db);
    const refused = await cli(['rollback', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('STORE_CHANGED');
    expect(refused.err).toContain(`containers/${victim}/extensions`);
    expect(readFileSync(node.db).equals(edited)).toBe(true);
  });
});

describe('the backup directory is trusted neither way', () => {
  it('apply refuses a backup directory that is a symlink, and never writes through a link planted in it', async () => {
    const node = await containerdNode('planted');
    const victim = join(dir, 'planted', 'victim');
    writeFileSync(victim, 'root only\n', { mode: 0o600 });
    const backupDir = `${node.planFile}.backup`;
    symlinkSync(join(dir, 'planted'), backupDir);
    const dry = await cli(['apply', node.planFile, '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.err).toContain('it is a symlink');
    const refused = await cli(['apply', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('it is a symlink');
    expect(await node.hashes()).toEqual(node.oldHashes);
    rmSync(backupDir);
    // Links at every name the old layout used: the manifest and the meta.db copy.
    mkdirSync(backupDir, { mode: 0o700 });
    symlinkSync(victim, join(backupDir, MANIFEST_NAME));
    symlinkSync(victim, join(backupDir, node.db.replace(/^\/+/, '').replace(/\//g, '__')));
    const applied = await cli(['apply', node.planFile]);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('root only\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    // The rollback point: a private directory, a private manifest, no world-readable copy of the store.
    const point = readdirSync(backupDir).find((n) => /^[0-9a-f]{16}-/.test(n))!;
    expect(lstatSync(join(backupDir, point)).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(backupDir, point)))
      expect({ f, mode: lstatSync(join(backupDir, point, f)).mode & 0o777 }).toEqual({ f, mode: 0o600 });
  });

  it('apply creates the backup directory 0700 and refuses one writable by others', async () => {
    const node = await containerdNode('shared-dir');
    const backupDir = `${node.planFile}.backup`;
    mkdirSync(backupDir);
    chmodSync(backupDir, 0o777);
    const refused = await cli(['apply', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('its mode is 0777');
    rmSync(backupDir, { recursive: true });
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);
  });

  it.runIf(isRoot)('apply refuses a backup directory that belongs to someone else', async () => {
    const node = await containerdNode('foreign-dir');
    const backupDir = `${node.planFile}.backup`;
    mkdirSync(backupDir, { mode: 0o700 });
    chownSync(backupDir, 4321, 4321);
    const refused = await cli(['apply', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('it belongs to uid 4321');
    expect(await node.hashes()).toEqual(node.oldHashes);
  });

  it('a rollback point directory somebody created first is refused, never used', async () => {
    const node = await containerdNode('first-dir');
    const plan = parseNodePlan(readFileSync(node.planFile, 'utf8'));
    const backupDir = join(dir, 'first-dir', 'backups');
    const now = new Date('2026-12-04T19:00:00.000Z');
    mkdirSync(join(backupDir, `${planDigest(plan).slice(0, 16)}-20261204T190000000Z`), {
      recursive: true,
      mode: 0o700,
    });
    expect(() => writeRollbackPoint(backupDir, plan, [], [], [], now)).toThrow(
      expect.objectContaining({ code: 'STORE_IO', message: expect.stringContaining('it exists') as unknown }),
    );
  });

  it('rollback refuses a forged, swapped, linked or readable manifest, and never a path one names', async () => {
    const a = await containerdNode('forged-a');
    const b = await containerdNode('forged-b', 3);
    for (const n of [a, b]) expect((await cli(['apply', n.planFile])).code).toBe(0);
    const dirOf = (n: typeof a) => {
      const backupDir = `${n.planFile}.backup`;
      return join(backupDir, readdirSync(backupDir)[0]!);
    };
    const manifestA = join(dirOf(a), MANIFEST_NAME);
    const textA = readFileSync(manifestA, 'utf8');
    const expectRefused = async (code: string, detail: string) => {
      const r = await cli(['rollback', a.planFile]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(code);
      expect(r.err).toContain(detail);
      expect(await a.hashes()).toEqual(a.newHashes);
    };
    // Another plan's rollback point under this plan's name.
    writeFileSync(manifestA, readFileSync(join(dirOf(b), MANIFEST_NAME)), { mode: 0o600 });
    await expectRefused('STORE_CHANGED', "not this plan's rollback point");
    // This plan's digest, another store.
    const m = JSON.parse(textA) as { store: { root: string }; records: { containerId: string }[] };
    writeFileSync(manifestA, JSON.stringify({ ...m, store: { ...m.store, root: b.root } }), { mode: 0o600 });
    await expectRefused('STORE_CHANGED', "not this plan's rollback point");
    // Made on another node; made for another meta.db at this path (another device and inode).
    writeFileSync(manifestA, JSON.stringify({ ...m, node: 'another-node' }), { mode: 0o600 });
    await expectRefused('STORE_CHANGED', 'another-node');
    writeFileSync(manifestA, JSON.stringify({ ...m, storeIdentity: '1:2' }), { mode: 0o600 });
    await expectRefused('STORE_CHANGED', 'storeIdentity');
    // A record naming a path instead of a container of the store: nothing is created anywhere.
    const evil = join(dir, 'forged-a', 'evil');
    writeFileSync(
      manifestA,
      JSON.stringify({ ...m, records: m.records.map((r) => ({ ...r, containerId: `../../../../../${evil}` })) }),
      { mode: 0o600 },
    );
    await expectRefused('STORE_CHANGED', 'it is gone since apply');
    expect(existsSync(evil)).toBe(false);
    // Readable by others; a symlink.
    writeFileSync(manifestA, textA, { mode: 0o600 });
    chmodSync(manifestA, 0o644);
    await expectRefused('STORE_IO', 'mode 0644');
    chmodSync(manifestA, 0o600);
    renameSync(manifestA, `${manifestA}.real`);
    symlinkSync(`${manifestA}.real`, manifestA);
    await expectRefused('STORE_IO', 'it is a symlink');
    rmSync(manifestA);
    renameSync(`${manifestA}.real`, manifestA);
    // A copy of the point elsewhere (same plan, store and node) is still this plan's rollback point;
    // modes and owners a manifest names are not read: the store's file keeps its own (never setuid).
    const copy = join(dir, 'forged-a', 'copied');
    cpSync(`${a.planFile}.backup`, copy, { recursive: true });
    const copied = join(copy, readdirSync(copy)[0]!, MANIFEST_NAME);
    const forgedModes = m.records.map((r) => ({ ...r, mode: 0o104755, uid: 4321, gid: 4321 }));
    writeFileSync(copied, JSON.stringify({ ...m, mode: 0o104755, records: forgedModes }), { mode: 0o600 });
    const dbBefore = statSync(a.db);
    const rolled = await cli(['rollback', a.planFile, '--backup-dir', copy]);
    expect(rolled.code).toBe(0);
    expect(await a.hashes()).toEqual(a.oldHashes);
    const dbAfter = statSync(a.db);
    expect([dbAfter.mode, dbAfter.uid, dbAfter.gid, dbAfter.ino]).toEqual([
      dbBefore.mode,
      dbBefore.uid,
      dbBefore.gid,
      dbBefore.ino,
    ]);
    expect(dbAfter.mode & 0o7000).toBe(0);
  });
});

describe('files we write are safe files', () => {
  it('plan --out replaces a symlink at its target instead of following it, 0600', async () => {
    const node = await containerdNode('plan-out');
    const victim = join(dir, 'plan-out', 'victim');
    writeFileSync(victim, 'keep me\n', { mode: 0o644 });
    const out = join(dir, 'plan-out', 'linked-plan.json');
    symlinkSync(victim, out);
    await node.plan(out);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(lstatSync(out).isFile()).toBe(true);
    expect(lstatSync(out).mode & 0o777).toBe(0o600);
    expect(parseNodePlan(readFileSync(out, 'utf8')).to).toBe('1.31');
    expect(readdirSync(join(dir, 'plan-out')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a temp name nobody can guess, created exclusively: two writes never share one', () => {
    const target = join(dir, 'temp-names.json');
    const temps: string[] = [];
    for (let i = 0; i < 2; i++)
      replaceEntryAtomic(target, Buffer.from(`${i}`), undefined, (op) => {
        if (op.op === 'rename') temps.push(op.from);
      });
    expect(temps).toHaveLength(2);
    expect(temps[0]).not.toBe(temps[1]);
    for (const t of temps) expect(t).toMatch(/\.temp-names\.json\.[0-9a-f]{16}\.tmp$/);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('a symlinked meta.db stays a symlink through apply and rollback', async () => {
    const node = await containerdNode('linked-db');
    const real = join(dir, 'linked-db', 'real-meta.db');
    renameSync(node.db, real);
    symlinkSync(real, node.db);
    const ino = statSync(real).ino;
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    // Written through the link into its target (the same file), the link left as it was.
    expect(lstatSync(node.db).isSymbolicLink()).toBe(true);
    expect(statSync(real).ino).toBe(ino);
    expectRealBboltAgrees(real, { hashes: node.newHashes });
    expect((await cli(['rollback', node.planFile])).code).toBe(0);
    expect(lstatSync(node.db).isSymbolicLink()).toBe(true);
    expect(statSync(real).ino).toBe(ino);
    expect(await node.hashes()).toEqual(node.oldHashes);
    expectRealBboltAgrees(real, { hashes: node.oldHashes });
  });

  it('a symlinked CRI-O config.json is written through to its target by apply and rollback, never replaced', async () => {
    const pods = [fixturePod(0)];
    const fixtures = fixtureContainers(pods, '1.30');
    const graph = join(dir, 'linked-crio', 'graph');
    const run = join(dir, 'linked-crio', 'run');
    const files = writeCrioNode(graph, run, fixtures);
    const target = join(dir, 'linked-crio', 'elsewhere.json');
    renameSync(files[0]!, target);
    symlinkSync(target, files[0]!);
    chmodSync(target, 0o640);
    const before = readFileSync(target, 'utf8');
    const podsFile = writePodList(join(dir, 'linked-crio', 'pods.json'), pods);
    const planFile = join(dir, 'linked-crio', 'plan.json');
    const store = ['--crio-root', graph, '--crio-runroot', run];
    expect((await cli(planArgs({ podsFile, store, out: planFile }))).code).toBe(0);
    expect((await cli(['apply', planFile])).code).toBe(0);
    expect(lstatSync(files[0]!).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).not.toBe(before);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect((await cli(['rollback', planFile])).code).toBe(0);
    expect(lstatSync(files[0]!).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(before);
  });
});

describe('apply with nothing to rewrite takes no backup (library)', () => {
  it('no backup directory is created and the report says so', async () => {
    const node = await containerdNode('lib-nothing', 1);
    const plan = parseNodePlan(readFileSync(node.planFile, 'utf8'));
    await applyNodePlan(plan);
    const replanned = parseNodePlan(readFileSync(await node.plan(join(dir, 'lib-nothing', 'again.json')), 'utf8'));
    const backupDir = join(dir, 'lib-nothing', 'never');
    const report = await applyNodePlan(replanned, { backupDir });
    expect(report).toMatchObject({ changed: [], dryRun: false });
    expect(report.manifest).toBeUndefined();
    expect(existsSync(backupDir)).toBe(false);
    expect(await rollbackNodePlan(replanned, { backupDir })).toEqual({ restored: [], unchanged: [], lost: [] });
  });
});
