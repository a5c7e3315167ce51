/**
 * What apply and rollback must refuse, on stores laid out as the runtimes write them (CRI-O
 * config.json, docker config.v2.json, containerd meta.db from the bolt builder): a store that is not
 * exactly the planned one, a store that changed since apply, a runtime that uses the root under
 * another name, a store or backup directory that cannot be written, a plan file edited by hand; and
 * every write and restore keeps each file's mode and owner.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import {
  ContainerdStore,
  CrioStore,
  DockerStore,
  containerdMetaDbPath,
  fingerprintFile,
  type RecordBackup,
} from '../../src/stores/index.js';
import {
  applyNodePlan,
  formatNodePlan,
  parseNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  type NodeUpgradePlan,
} from '../../src/node-upgrade/index.js';
import { cli } from '../support/cli.js';
import { bucketOf, readBoltTree } from '../support/bolt-tree.js';
import { writeBoltFile } from '../support/bolt-builder.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-store-safety-'));
const mounts: string[] = [];
const immutable: string[] = [];
afterAll(() => {
  for (const f of immutable) spawnSync('chattr', ['-i', f]);
  for (const m of mounts.reverse()) spawnSync('umount', [m]);
  rmSync(dir, { recursive: true, force: true });
});

const isRoot = process.getuid?.() === 0;
const hasChattr = spawnSync('chattr', ['--help']).error === undefined;

/** A fresh CRI-O node of `n` pods from pod `first` on, its pods file and a plan file written by the CLI. */
async function crioNode(name: string, n = 3, first = 0) {
  const pods = Array.from({ length: n }, (_, i) => fixturePod(first + i));
  const fixtures = fixtureContainers(pods, '1.30', first);
  const graph = join(dir, name, 'graph');
  const run = join(dir, name, 'run');
  const files = writeCrioNode(graph, run, fixtures);
  const podsFile = writePodList(join(dir, name, 'pods.json'), pods);
  const planFile = join(dir, name, 'plan.json');
  const store = ['--crio-root', graph, '--crio-runroot', run];
  const planned = await cli(planArgs({ podsFile, store, out: planFile }));
  expect(planned.err).toBe('');
  expect(planned.code).toBe(0);
  return { pods, fixtures, graph, run, files, podsFile, planFile, store };
}

/** Another container of another pod, written into the node after its plan. */
function extraCrioContainer(graph: string, run: string, seed: number): FixtureContainer {
  const extra = fixtureContainers([fixturePod(seed)], '1.30', seed)[0]!;
  writeCrioNode(graph, run, [extra]);
  return extra;
}

const prints = (files: readonly string[]) => Promise.all(files.map((f) => fingerprintFile(f)));

/** A containerd root whose meta.db holds `fixtures` (NoFreelistSync, as containerd 1.7+ writes it). */
function writeContainerd(root: string, fixtures: readonly FixtureContainer[]): string {
  return containerdMetaDbPath(writeContainerdNode(root, fixtures));
}

describe('apply refuses any difference from the planned store', () => {
  it('CRI-O: a container created after the plan (exit 2, STORE_CHANGED naming it), writing nothing', async () => {
    const node = await crioNode('added');
    const before = await prints(node.files);
    const extra = extraCrioContainer(node.graph, node.run, 40);
    for (const args of [['--dry-run'], []]) {
      const r = await cli(['apply', node.planFile, ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('STORE_CHANGED');
      expect(r.err).toContain(`1 added: ${extra.id}`);
    }
    expect(await prints(node.files)).toEqual(before);
    expect(existsSync(`${node.planFile}.backup`)).toBe(false);
  });

  it('CRI-O: a container removed after the plan, and a record the plan keeps that changed', async () => {
    const node = await crioNode('removed', 3);
    const gone = node.fixtures[1]!;
    for (const root of [node.graph, node.run]) rmSync(join(root, 'overlay-containers', gone.id), { recursive: true });
    const r = await cli(['apply', node.planFile]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`1 removed: ${gone.id}`);

    // A kept record: planned at the 1.31 hash already, then touched.
    const kept = await crioNode('kept', 2);
    const applied = await cli(['apply', kept.planFile]);
    expect(applied.code).toBe(0);
    const again = join(dir, 'kept', 'plan-again.json');
    const replanned = await cli(planArgs({ podsFile: kept.podsFile, store: kept.store, out: again }));
    expect(replanned.out).toContain(`keep ${kept.fixtures.length}, rewrite 0`);
    const f = kept.files[0]!;
    writeFileSync(f, readFileSync(f, 'utf8').replace('"/app"', '"/app2"'));
    const refused = await cli(['apply', again, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`1 changed: ${kept.fixtures[0]!.id}`);
  });

  it('containerd: a container recorded after the plan is refused, in a dry run too', async () => {
    const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
    const fixtures = fixtureContainers(pods, '1.30');
    const root = join(dir, 'ctd-added');
    const db = writeContainerd(root, fixtures);
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'containerd', root, namespace: 'k8s.io' },
    });
    const extra = fixtureContainers([fixturePod(50)], '1.30', 50)[0]!;
    writeContainerd(root, [...fixtures, extra]);
    const before = await fingerprintFile(db);
    for (const dryRun of [true, false]) {
      await expect(applyNodePlan(plan, { dryRun, backupDir: join(root, 'backup') })).rejects.toMatchObject({
        code: 'STORE_CHANGED',
        message: expect.stringContaining(`1 added: ${extra.id}`) as unknown,
      });
    }
    expect(await fingerprintFile(db)).toBe(before);
    expect(existsSync(join(root, 'backup'))).toBe(false);
  });

  it('docker: the store API refuses a container the planned set does not have', async () => {
    const root = join(dir, 'docker-added');
    const text = readFileSync(
      join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'),
      'utf8',
    );
    const id = (JSON.parse(text) as { ID: string }).ID;
    mkdirSync(join(root, 'containers', id), { recursive: true });
    writeFileSync(join(root, 'containers', id, 'config.v2.json'), text);
    const daemonConfig = join(dir, 'daemon-added.json');
    writeFileSync(daemonConfig, '{"live-restore":true}');
    const store = new DockerStore({ root, daemonConfig });
    const [c] = await store.list();
    // Planned on an empty root: the container is new.
    await expect(store.apply([], { planned: [], dryRun: true })).rejects.toMatchObject({
      code: 'STORE_CHANGED',
      message: expect.stringContaining(`1 added: ${id}`) as unknown,
    });
    await expect(
      store.apply([], { planned: [{ containerId: id, fingerprint: c!.fingerprint }], dryRun: true }),
    ).resolves.toMatchObject({ dryRun: true });
  });
});

describe('rollback puts back the records apply rewrote and keeps what changed since', () => {
  it('CRI-O: a container recorded since apply is kept; the rewritten records come back without --force', async () => {
    const node = await crioNode('rollback-added');
    const before = await prints(node.files);
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const extra = extraCrioContainer(node.graph, node.run, 60);
    const extraFiles = ['graph', 'run'].map((r) =>
      join(dir, 'rollback-added', r, 'overlay-containers', extra.id, 'userdata', 'config.json'),
    );
    const extraPrints = await prints(extraFiles);
    const rolled = await cli(['rollback', node.planFile, '--json']);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    const out = JSON.parse(rolled.out) as { summary: { restored: number; lost: string[] } };
    expect(out.summary).toMatchObject({ restored: node.fixtures.length, lost: [] });
    expect(await prints(node.files)).toEqual(before);
    expect(await prints(extraFiles)).toEqual(extraPrints);
  });

  it('CRI-O: a record changed again since apply is refused naming it, writing nothing; --force puts it back', async () => {
    const node = await crioNode('rollback-changed');
    const before = await prints(node.files);
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const f = node.files[2]!;
    const applied = readFileSync(f, 'utf8');
    writeFileSync(f, applied.replace('"/app"', '"/app3"'));
    const now = await prints(node.files);
    const refused = await cli(['rollback', node.planFile]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('STORE_CHANGED');
    expect(refused.err).toContain(`record ${node.fixtures[1]!.id}`);
    expect(refused.err).toContain('changed again since apply');
    expect(await prints(node.files)).toEqual(now);
    const forced = await cli(['rollback', node.planFile, '--force', '--json']);
    expect(forced.code).toBe(0);
    const out = JSON.parse(forced.out) as { summary: { lost: string[] } };
    expect(out.summary.lost).toEqual([expect.stringContaining(node.fixtures[1]!.id)]);
    expect(await prints(node.files)).toEqual(before);
  });

  it('containerd: a container recorded in meta.db since apply is kept; the rewritten records come back', async () => {
    const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
    const fixtures = fixtureContainers(pods, '1.30');
    const root = join(dir, 'ctd-rollback');
    const db = writeContainerd(root, fixtures);
    const store = new ContainerdStore({ root });
    const original = await store.list();
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'containerd', root, namespace: 'k8s.io' },
    });
    const backupDir = join(root, 'backup');
    await applyNodePlan(plan, { backupDir });
    const applied = await store.list();
    // Since apply containerd recorded a container, pulled an image and used another namespace.
    const extra = criRecord(fixtureContainers([fixturePod(70)], '1.30', 70)[0]!);
    const tree = readBoltTree(db);
    const { id: extraId, ...extraRecord } = extra;
    bucketOf(tree, ['v1', 'k8s.io', 'containers'])[extraId] = extraRecord;
    bucketOf(tree, ['v1', 'k8s.io', 'images'])['docker.io/library/busybox:latest'] = { target: { digest: 'sha256:1' } };
    bucketOf(tree, ['v1', 'moby', 'containers'])['other'] = { image: 'x' };
    writeBoltFile(db, tree, { freelist: 'none' });
    const changed = readBoltTree(db);
    const report = await rollbackNodePlan(plan, { backupDir });
    expect(report).toMatchObject({ lost: [], unchanged: [] });
    expect(report.restored.map((r) => r.containerId)).toEqual(original.map((c) => c.containerId));
    // The rewritten records are as before apply; every other key is as it was just before rollback.
    const after = await store.list();
    expect(after.filter((c) => c.containerId !== extraId).map((c) => c.fingerprint)).toEqual(
      original.map((c) => c.fingerprint),
    );
    const expected = readBoltTree(db);
    for (const c of original)
      bucketOf(changed, ['v1', 'k8s.io', 'containers', c.containerId, 'extensions'])[
        'io.cri-containerd.container.metadata'
      ] = bucketOf(expected, ['v1', 'k8s.io', 'containers', c.containerId, 'extensions'])[
        'io.cri-containerd.container.metadata'
      ]!;
    expect(expected).toEqual(changed);
    expectRealBboltAgrees(db);
    expect(applied).not.toEqual(original);
  });
});

describe.runIf(isRoot)('mode and owner are kept by apply and restored by rollback', () => {
  const own = (f: string) => {
    const st = statSync(f);
    return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  };

  it('CRI-O config.json 0640 7:8, both copies', async () => {
    const node = await crioNode('owners');
    for (const f of node.files) {
      chownSync(f, 7, 8);
      chmodSync(f, 0o640);
    }
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    for (const f of node.files) expect(own(f)).toEqual({ mode: 0o640, uid: 7, gid: 8 });
    // Rollback keeps the mode and owner the store's file has, without set-id bits (never one a backup names).
    for (const f of node.files) chmodSync(f, 0o4640);
    expect((await cli(['rollback', node.planFile])).code).toBe(0);
    for (const f of node.files) expect(own(f)).toEqual({ mode: 0o640, uid: 7, gid: 8 });
  });

  it('containerd meta.db 0644 123:456', async () => {
    const pods = [fixturePod(0)];
    const root = join(dir, 'ctd-owners');
    const db = writeContainerd(root, fixtureContainers(pods, '1.30'));
    chownSync(db, 123, 456);
    chmodSync(db, 0o644);
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'containerd', root, namespace: 'k8s.io' },
    });
    const backupDir = join(root, 'backup');
    await applyNodePlan(plan, { backupDir });
    expect(own(db)).toEqual({ mode: 0o644, uid: 123, gid: 456 });
    await rollbackNodePlan(plan, { backupDir });
    expect(own(db)).toEqual({ mode: 0o644, uid: 123, gid: 456 });
  });

  it('docker config.v2.json 0600 9:10', async () => {
    const root = join(dir, 'docker-owners');
    const text = readFileSync(
      join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'),
      'utf8',
    );
    const id = (JSON.parse(text) as { ID: string }).ID;
    const file = join(root, 'containers', id, 'config.v2.json');
    mkdirSync(join(root, 'containers', id), { recursive: true });
    writeFileSync(file, text);
    chownSync(file, 9, 10);
    chmodSync(file, 0o600);
    const daemonConfig = join(dir, 'daemon-owners.json');
    writeFileSync(daemonConfig, '{"live-restore":true}');
    const store = new DockerStore({ root, daemonConfig });
    const [c] = await store.list();
    let backups: RecordBackup[] = [];
    await store.apply(
      [{ containerId: id, fingerprint: c!.fingerprint, change: { from: { hash: c!.hash! }, to: { hash: '5eed' } } }],
      { beforeWrite: (b) => (backups = b), planned: [{ containerId: id, fingerprint: c!.fingerprint }] },
    );
    expect(own(file)).toEqual({ mode: 0o600, uid: 9, gid: 10 });
    chmodSync(file, 0o6640);
    await store.restoreRecords(backups);
    expect(own(file)).toEqual({ mode: 0o640, uid: 9, gid: 10 });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

/**
 * Runs a process whose command name (/proc/PID/comm) is `name` and whose arguments are `args`:
 * node started through a symlink called `name`, idling while `fn` runs.
 */
async function withFakeProcess<T>(name: string, args: string[], fn: () => Promise<T>): Promise<T> {
  const binDir = mkdtempSync(join(dir, 'bin-'));
  const bin = join(binDir, name);
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

describe('RUNTIME_RUNNING is decided by device and inode', () => {
  const setup = (name: string) => {
    const root = join(dir, name, 'docker');
    const text = readFileSync(
      join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'),
      'utf8',
    );
    const id = (JSON.parse(text) as { ID: string }).ID;
    mkdirSync(join(root, 'containers', id), { recursive: true });
    writeFileSync(join(root, 'containers', id, 'config.v2.json'), text);
    const daemonConfig = join(dir, name, 'daemon.json');
    writeFileSync(daemonConfig, '{"live-restore":true}');
    return { root, daemonConfig };
  };

  it('a dockerd on the root is found through a symlink to it', async () => {
    const { root, daemonConfig } = setup('symlinked');
    const link = join(dir, 'symlinked', 'link');
    symlinkSync(root, link);
    const store = new DockerStore({ root: link, daemonConfig });
    await withFakeProcess('dockerd', ['--data-root', root], () =>
      expect(store.apply([], { dryRun: true })).rejects.toMatchObject({ code: 'RUNTIME_RUNNING' }),
    );
    // And a dockerd started through the link, for the real path.
    await withFakeProcess('dockerd', ['--data-root', link], () =>
      expect(new DockerStore({ root, daemonConfig }).apply([], { dryRun: true })).rejects.toMatchObject({
        code: 'RUNTIME_RUNNING',
      }),
    );
    // A dockerd on another root is not in the way.
    await withFakeProcess('dockerd', ['--data-root', join(dir, 'symlinked', 'other')], () =>
      expect(store.apply([], { dryRun: true })).resolves.toMatchObject({ dryRun: true }),
    );
  });

  it.runIf(isRoot)('in a pod: the host mounted at /host, a dockerd on the host path', async () => {
    const { root, daemonConfig } = setup('pod');
    const host = join(dir, 'pod', 'host');
    mkdirSync(host);
    const bound = spawnSync('mount', ['--bind', '/', host]);
    expect(bound.status).toBe(0);
    mounts.push(host);
    const store = new DockerStore({ root: join(host, root), daemonConfig });
    await withFakeProcess('dockerd', ['--data-root', root], () =>
      expect(store.apply([], { dryRun: true })).rejects.toMatchObject({ code: 'RUNTIME_RUNNING' }),
    );
    // CRI-O through the same mount.
    const node = await crioNode('pod-crio', 1);
    const crio = new CrioStore({ graphRoot: join(host, node.graph) });
    await withFakeProcess('crio', ['--root', node.graph], () =>
      expect(crio.apply([], { dryRun: true })).rejects.toMatchObject({ code: 'RUNTIME_RUNNING' }),
    );
    await withFakeProcess('crio', ['--root', node.run], () =>
      expect(crio.apply([], { dryRun: true })).resolves.toMatchObject({ dryRun: true }),
    );
    spawnSync('umount', [host]);
    mounts.pop();
  });
});

describe.runIf(isRoot && hasChattr)('apply checks that the store and the backup directory can be written', () => {
  it('CRI-O: an immutable config.json fails the dry run and the apply, before any backup', async () => {
    const node = await crioNode('immutable', 2);
    const f = node.files[1]!;
    expect(spawnSync('chattr', ['+i', f]).status).toBe(0);
    immutable.push(f);
    const dry = await cli(['apply', node.planFile, '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.err).toContain('STORE_IO');
    expect(dry.err).toContain(f);
    expect(dry.err).toContain('EPERM');
    const real = await cli(['apply', node.planFile]);
    expect(real.code).toBe(2);
    expect(existsSync(`${node.planFile}.backup`)).toBe(false);
    spawnSync('chattr', ['-i', f]);
    immutable.pop();
    expect((await cli(['apply', node.planFile, '--dry-run'])).code).toBe(0);
  });

  it('containerd: an immutable meta.db, and a read-only mount of the store, fail the dry run', async () => {
    const pods = [fixturePod(0)];
    const root = join(dir, 'ctd-ro');
    const db = writeContainerd(root, fixtureContainers(pods, '1.30'));
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'containerd', root, namespace: 'k8s.io' },
    });
    const backupDir = join(dir, 'ctd-ro-backup');
    expect(spawnSync('chattr', ['+i', db]).status).toBe(0);
    immutable.push(db);
    await expect(applyNodePlan(plan, { dryRun: true, backupDir })).rejects.toMatchObject({
      code: 'STORE_IO',
      message: expect.stringContaining('EPERM') as unknown,
    });
    await expect(applyNodePlan(plan, { backupDir })).rejects.toMatchObject({ code: 'STORE_IO' });
    expect(existsSync(backupDir)).toBe(false);
    spawnSync('chattr', ['-i', db]);
    immutable.pop();
    // The same directory mounted read-only.
    const bolt = join(root, 'io.containerd.metadata.v1.bolt');
    expect(spawnSync('mount', ['--bind', '-o', 'ro', bolt, bolt]).status).toBe(0);
    mounts.push(bolt);
    await expect(applyNodePlan(plan, { dryRun: true, backupDir })).rejects.toMatchObject({
      code: 'STORE_IO',
      message: expect.stringContaining('EROFS') as unknown,
    });
    spawnSync('umount', [bolt]);
    mounts.pop();
    await expect(applyNodePlan(plan, { dryRun: true, backupDir })).resolves.toMatchObject({ dryRun: true });
  });

  it('a read-only backup directory (tmpfs remounted ro) fails the dry run', async () => {
    const node = await crioNode('ro-backup', 1);
    const backup = join(dir, 'ro-backup', 'mnt');
    mkdirSync(backup);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', backup]).status).toBe(0);
    mounts.push(backup);
    expect(spawnSync('mount', ['-o', 'remount,ro', backup]).status).toBe(0);
    const r = await cli(['apply', node.planFile, '--dry-run', '--backup-dir', join(backup, 'kh')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('EROFS');
    expect(r.err).toContain(backup);
    expect(readdirSync(backup)).toEqual([]);
    spawnSync('umount', [backup]);
    mounts.pop();
  });
});

describe('a plan file edited by hand is refused, naming the field', () => {
  let plan: NodeUpgradePlan;
  let text: string;
  let planFile: string;

  it('plan writes a digest; apply needs it; rollback and parse still read a plan without one', async () => {
    const node = await crioNode('edits', 3);
    planFile = node.planFile;
    text = readFileSync(planFile, 'utf8');
    const doc = JSON.parse(text) as Record<string, unknown>;
    expect(doc.digest).toEqual(
      expect.objectContaining({ entries: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown }),
    );
    plan = parseNodePlan(text);
    expect(plan).not.toHaveProperty('digest');
    expect(formatNodePlan(plan)).toBe(text);
    delete doc.digest;
    const old = join(dir, 'edits', 'old.json');
    writeFileSync(old, JSON.stringify(doc));
    const r = await cli(['apply', old, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('digest');
    expect(r.err).toContain('make a new plan');
    expect(parseNodePlan(JSON.stringify(doc))).toEqual(plan);
  });

  /** The refusal of `apply --dry-run` for the plan file edited by `edit`: its JSON path. */
  async function refusedAt(edit: (doc: NodeUpgradePlan & { digest?: unknown }) => void, keepDigest = true) {
    const doc = JSON.parse(text) as NodeUpgradePlan & { digest?: unknown };
    edit(doc);
    if (!keepDigest) {
      // Edited with the digest recomputed: only the consistency checks can tell.
      delete doc.digest;
    }
    const body = JSON.stringify(doc);
    try {
      parseNodePlan(body);
    } catch (e) {
      expect(e).toBeInstanceOf(OptionError);
      const edited = join(dir, 'edits', 'edited.json');
      writeFileSync(edited, body);
      const r = await cli(['apply', edited, '--dry-run']);
      expect(r.code).toBe(2);
      expect(r.err).toContain('INVALID_OPTION');
      return (e as OptionError).path;
    }
    throw new Error('the edited plan was accepted');
  }

  const rewrite = (doc: NodeUpgradePlan) => {
    const i = doc.entries.findIndex((e) => e.action === 'rewrite');
    const e = doc.entries[i]!;
    if (e.action !== 'rewrite') throw new Error('no rewrite');
    return { i, e };
  };

  it('change.to.hash that is not computed.to', async () => {
    let at = 0;
    const path = await refusedAt((doc) => {
      const { i, e } = rewrite(doc);
      at = i;
      e.change.to.hash = 'deadbeef';
    }, false);
    expect(path).toEqual(['entries', at, 'change', 'to', 'hash']);
    // With the digest kept, the consistency check still names the field (it runs on the entries).
    expect(
      await refusedAt((doc) => {
        rewrite(doc).e.change.to.hash = 'deadbeef';
      }),
    ).toEqual(['entries']);
  });

  it('counts that do not add up', async () => {
    expect(
      await refusedAt((doc) => {
        doc.counts.keep += 1;
      }, false),
    ).toEqual(['counts', 'keep']);
  });

  it('a hash of 0, and a malformed one', async () => {
    let at = 0;
    expect(
      await refusedAt((doc) => {
        const { i, e } = rewrite(doc);
        at = i;
        e.change.to.hash = '0';
        e.computed.to = '0';
      }, false),
    ).toEqual(['entries', at, 'computed', 'to']);
    expect(
      await refusedAt((doc) => {
        const { e } = rewrite(doc);
        e.change.to.hash = '0DEAD';
        e.computed.to = '0DEAD';
      }, false),
    ).toEqual(['entries', at, 'computed', 'to']);
  });

  it('`to` changed to another release: the digest names it', async () => {
    expect(
      await refusedAt((doc) => {
        doc.to = '1.32';
      }),
    ).toEqual(['to']);
    expect(
      await refusedAt((doc) => {
        doc.to = '1.99';
      }, false),
    ).toEqual(['to']);
  });

  it('a fingerprint or a container id edited: the digest names the entries', async () => {
    expect(
      await refusedAt((doc) => {
        doc.entries[0]!.fingerprint = '0123456789abcdef';
      }),
    ).toEqual(['entries']);
  });

  it('the plan as written still applies', async () => {
    const r = await cli(['apply', planFile, '--dry-run']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});
