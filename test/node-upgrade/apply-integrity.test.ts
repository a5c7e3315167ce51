/**
 * apply's own checks of what it writes and where (issue 37): the targets are computed again from
 * the plan's containers (a forged plan with a valid digest is refused), the store's pod sandboxes
 * must be those the plan read, a plan already applied is said so (exit 0, nothing written), and
 * plans and reports carry an audit stamp.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/index.js';
import { containerdMetaDbPath, ContainerdStore, fingerprintFile } from '../../src/stores/index.js';
import { encodeAny } from '../../src/stores/containerd/any.js';
import { formatNodePlan, parseNodePlan, type NodeUpgradePlan } from '../../src/node-upgrade/index.js';
import { writeBoltFile, type BoltTree } from '../support/bolt-builder.js';
import { cli } from '../support/cli.js';
import {
  criRecord,
  fixtureContainers,
  fixturePod,
  fixtureSpec,
  type FixtureContainer,
} from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { planArgs, writePodList } from '../support/node-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-apply-integrity-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The pause container record containerd 1.6's CRI plugin keeps for the sandbox of `f`'s pod. */
function sandboxRecord(f: FixtureContainer) {
  const { metadata } = f.pod;
  const md = {
    Version: 'v1',
    Metadata: {
      ID: f.sandboxId,
      Name: `${metadata.name}_${metadata.namespace}_${metadata.uid}_0`,
      Config: { metadata: { name: metadata.name, uid: metadata.uid, namespace: metadata.namespace } },
      IP: '10.88.0.7',
    },
  };
  return {
    labels: { 'io.cri-containerd.kind': 'sandbox', 'io.kubernetes.pod.uid': metadata.uid },
    spec: fixtureSpec(f),
    extensions: {
      'io.cri-containerd.sandbox.metadata': encodeAny(
        'github.com/containerd/cri/pkg/store/sandbox/Metadata',
        Buffer.from(JSON.stringify(md)),
      ),
    },
  };
}

/** meta.db under `root` holding `fixtures` and the sandboxes of the pods `withSandbox` says. */
function writeMetaDb(
  root: string,
  fixtures: readonly FixtureContainer[],
  withSandbox: (f: FixtureContainer) => boolean,
) {
  mkdirSync(join(root, 'io.containerd.metadata.v1.bolt'), { recursive: true });
  const containers: BoltTree = {};
  for (const f of fixtures) {
    const { id, ...record } = criRecord(f);
    const times = {
      createdat: Buffer.alloc(15, 1),
      runtime: { name: 'io.containerd.runc.v2' },
      updatedat: Buffer.alloc(15, 1),
    };
    containers[id] = { ...record, ...times };
    if (withSandbox(f)) containers[f.sandboxId] = { ...sandboxRecord(f), ...times };
  }
  writeBoltFile(
    containerdMetaDbPath(root),
    { v1: { 'k8s.io': { containers }, version: Buffer.from([3]) } },
    { freelist: 'none' },
  );
}

/** A containerd node of `n` one-container pods with their sandboxes, its pods file and a plan written by the CLI. */
async function containerdNode(name: string, n = 3) {
  const pods = Array.from({ length: n }, (_, i) => fixturePod(i));
  const fixtures = fixtureContainers(pods, '1.30');
  const root = join(dir, name, 'containerd');
  writeMetaDb(root, fixtures, () => true);
  const podsFile = writePodList(join(dir, name, 'pods.json'), pods);
  const planFile = join(dir, name, 'plan.json');
  const store = ['--containerd-root', root];
  const planned = await cli(planArgs({ podsFile, store, out: planFile }));
  expect(planned.err).toBe('');
  expect(planned.code).toBe(0);
  return { pods, fixtures, root, podsFile, planFile, store, db: containerdMetaDbPath(root) };
}

/** A CRI-O node of `n` pods and a plan written by the CLI. */
async function crioNode(name: string, n = 3) {
  const pods = Array.from({ length: n }, (_, i) => fixturePod(i));
  const fixtures = fixtureContainers(pods, '1.30');
  const graph = join(dir, name, 'graph');
  const run = join(dir, name, 'run');
  const files = writeCrioNode(graph, run, fixtures);
  const podsFile = writePodList(join(dir, name, 'pods.json'), pods);
  const planFile = join(dir, name, 'plan.json');
  const store = ['--crio-root', graph, '--crio-runroot', run];
  const planned = await cli(planArgs({ podsFile, store, out: planFile }));
  expect(planned.code).toBe(0);
  return { pods, fixtures, graph, run, files, podsFile, planFile, store };
}

const prints = (files: readonly string[]) => Promise.all(files.map((f) => fingerprintFile(f)));
const readPlan = (file: string): NodeUpgradePlan => parseNodePlan(readFileSync(file, 'utf8'));
/** The plan edited by `edit` and written back with a fresh digest, as the exported formatter writes it. */
function forge(file: string, edit: (plan: NodeUpgradePlan) => void): void {
  const plan = readPlan(file);
  edit(plan);
  writeFileSync(file, formatNodePlan(plan));
}

describe('apply computes every target again: a forged plan is refused even with a valid digest', () => {
  it('a target hash replaced by deadbeef (digest recomputed): INVALID_OPTION naming the entry, nothing written', async () => {
    const node = await crioNode('forged-target');
    const before = await prints(node.files);
    forge(node.planFile, (plan) => {
      const e = plan.entries.find((x) => x.action === 'rewrite')!;
      e.change.to.hash = e.computed.to = 'deadbeef';
    });
    const index = readPlan(node.planFile).entries.findIndex((x) => x.action === 'rewrite');
    const fixture = node.fixtures.find((f) => f.id === readPlan(node.planFile).entries[index]!.containerId)!;
    const want = hashContainer(fixture.container, { kubeletVersion: '1.31' });
    for (const args of [['--dry-run'], []]) {
      const r = await cli(['apply', node.planFile, ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`INVALID_OPTION at .entries[${index}].change.to.hash`);
      expect(r.err).toContain(`expected ${want}, what a 1.31 kubelet computes`);
      expect(r.err).toContain('the plan says deadbeef');
    }
    expect(await prints(node.files)).toEqual(before);
  });

  it('a container swapped for another, or removed, and a from hash that is not the container’s: each refused', async () => {
    const node = await crioNode('forged-container');
    const original = readFileSync(node.planFile, 'utf8');
    const first = () => readPlan(node.planFile).entries.findIndex((x) => x.action === 'rewrite');
    const cases: [string, (plan: NodeUpgradePlan) => void, string][] = [
      [
        'another container under this name',
        (plan) => {
          const e = plan.entries[first()]!;
          const other = JSON.parse(e.container!) as Record<string, unknown>;
          e.container = JSON.stringify({ ...other, image: 'registry.example/evil:1' });
        },
        'change.from.hash',
      ],
      [
        'another container’s text',
        (plan) => {
          const e = plan.entries[first()]!;
          e.container = JSON.stringify({ name: 'someone-else', image: 'x' });
        },
        'container.name',
      ],
      [
        'no container',
        (plan) => {
          delete plan.entries[first()]!.container;
        },
        'container',
      ],
    ];
    for (const [what, edit, field] of cases) {
      writeFileSync(node.planFile, original);
      forge(node.planFile, edit);
      const r = await cli(['apply', node.planFile, '--dry-run']);
      expect(r.code, what).toBe(2);
      expect(r.err, what).toContain(`INVALID_OPTION at .entries[${first()}].${field}:`);
    }
  });

  it('the plan carries each rewrite’s container as JSON text, numbers as written', async () => {
    const node = await crioNode('container-text', 2);
    for (const e of readPlan(node.planFile).entries.filter((x) => x.action === 'rewrite')) {
      const f = node.fixtures.find((x) => x.id === e.containerId)!;
      expect(JSON.parse(e.container!)).toEqual(f.container);
      expect(hashContainer(e.container!, { kubeletVersion: '1.31' })).toBe(e.computed.to);
    }
  });
});

describe('apply writes to the store the plan saw: pod sandboxes too', () => {
  it('a pod sandbox record removed after the plan: STORE_CHANGED naming the plan’s and the store’s views', async () => {
    const node = await containerdNode('sandbox-removed');
    // The pod of one container only (shop/api), so that a new plan says exactly one restarts.
    const gone = node.fixtures.find((f) => node.fixtures.filter((g) => g.pod === f.pod).length === 1)!;
    writeMetaDb(node.root, node.fixtures, (f) => f.sandboxId !== gone.sandboxId);
    const before = await fingerprintFile(node.db);
    // A new plan says the pod restarts; the old plan must not be applied.
    const replanned = await cli(planArgs({ podsFile: node.podsFile, store: node.store }));
    expect(replanned.out).toContain('will-restart 1');
    for (const args of [['--dry-run'], []]) {
      const r = await cli(['apply', node.planFile, ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('STORE_CHANGED');
      expect(r.err).toContain('as the plan read them: 3 sandboxes');
      expect(r.err).toContain(
        `the store holds 2: 1 removed: ${gone.sandboxId.slice(0, 13)} (pod uid ${gone.pod.metadata.uid}`,
      );
    }
    expect(await fingerprintFile(node.db)).toBe(before);
  });

  it('a sandbox added, and a plan without the sandboxes it read (an older plan): refused', async () => {
    const node = await containerdNode('sandbox-added', 2);
    const plan = readPlan(node.planFile);
    expect(plan.sandboxes?.records?.map((s) => s.id)).toEqual(
      [...new Set(node.fixtures.map((f) => f.sandboxId))].sort(),
    );
    forge(node.planFile, (p) => {
      p.sandboxes!.records = p.sandboxes!.records!.slice(1);
    });
    const added = await cli(['apply', node.planFile, '--dry-run']);
    expect(added.code).toBe(2);
    expect(added.err).toContain('1 added:');
    forge(node.planFile, (p) => {
      delete p.sandboxes!.records;
    });
    const old = await cli(['apply', node.planFile, '--dry-run']);
    expect(old.code).toBe(2);
    expect(old.err).toContain('STORE_CHANGED at .sandboxes.records');
    expect(old.err).toContain('a plan of an older kubelet-hash');
  });
});

describe('apply is idempotent, and leaves an audit trail', () => {
  it('CRI-O: re-applying an applied plan says already applied, exit 0, writing nothing', async () => {
    const node = await crioNode('again');
    const first = await cli(['apply', node.planFile, '--json']);
    expect(first.code).toBe(0);
    const after = await prints(node.files);
    // The rollback point this apply wrote: a second apply must neither touch it nor make another.
    const manifestFile = (JSON.parse(first.out) as { summary: { manifest: string } }).summary.manifest;
    const manifest = readFileSync(manifestFile, 'utf8');
    const points = readdirSync(`${node.planFile}.backup`);
    const again = await cli(['apply', node.planFile]);
    expect(again.err).toBe('');
    expect(again.code).toBe(0);
    expect(again.out).toContain(
      `# already applied: the ${node.fixtures.length} rewrites of ${node.planFile} are in the store`,
    );
    expect(await prints(node.files)).toEqual(after);
    expect(readFileSync(manifestFile, 'utf8')).toBe(manifest);
    expect(readdirSync(`${node.planFile}.backup`)).toEqual(points);
    const json = JSON.parse((await cli(['apply', node.planFile, '--json'])).out) as {
      summary: Record<string, unknown>;
    };
    expect(json.summary).toMatchObject({ alreadyApplied: true, changed: 0 });
  });

  it('containerd: the same, and a store where only some rewrites are done is refused, saying how many', async () => {
    const node = await containerdNode('again-containerd');
    const original = readFileSync(node.db);
    expect((await cli(['apply', node.planFile])).code).toBe(0);
    const applied = await fingerprintFile(node.db);
    const again = await cli(['apply', node.planFile]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('# already applied');
    expect(await fingerprintFile(node.db)).toBe(applied);

    // Half done: the store as planned but for one record rewritten.
    writeFileSync(node.db, original);
    const one = readPlan(node.planFile).entries.find((e) => e.action === 'rewrite')!;
    await new ContainerdStore({ root: node.root }).apply([
      { containerId: one.containerId!, fingerprint: one.fingerprint!, change: one.change },
    ]);
    const r = await cli(['apply', node.planFile, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('STORE_CHANGED');
    expect(r.err).toContain(`1 of the plan's ${node.fixtures.length} rewrites are already done (an interrupted apply?`);
    expect(r.err).toContain(`1 changed: ${one.containerId!}`);
  });

  it('plan files and apply reports carry creation time, host, tool version and command', async () => {
    const node = await crioNode('audit', 1);
    const plan = readPlan(node.planFile);
    expect(plan.audit).toMatchObject({
      host: expect.any(String),
      tool: expect.stringMatching(/^kubelet-hash \d+\.\d+\.\d+/),
      command: expect.stringContaining(`kubelet-hash plan --from 1.30 --to 1.31 --pods ${node.podsFile}`),
    });
    expect(Date.now() - Date.parse(plan.audit!.createdAt)).toBeLessThan(600_000);
    // The stamp is digested like every field: an edit is refused.
    const text = readFileSync(node.planFile, 'utf8');
    writeFileSync(node.planFile, text.replace(plan.audit!.host, `${plan.audit!.host}x`));
    expect((await cli(['apply', node.planFile, '--dry-run'])).err).toContain(
      'INVALID_OPTION at .audit: expected audit as plan wrote it',
    );
    writeFileSync(node.planFile, text);
    const r = await cli(['apply', node.planFile, '--json']);
    const summary = (
      JSON.parse(r.out) as { summary: { manifest: string; audit: { plan: unknown; apply: { command: string } } } }
    ).summary;
    expect(summary.audit.plan).toEqual(plan.audit);
    expect(summary.audit.apply.command).toBe(`kubelet-hash apply ${node.planFile} --json`);
    // The backup too: its manifest carries the apply's stamp, and the plan copy beside it the plan's.
    const manifest = JSON.parse(readFileSync(summary.manifest, 'utf8')) as { audit: unknown; created: string };
    expect(manifest.audit).toEqual(summary.audit.apply);
    expect(manifest.audit).toMatchObject({ host: plan.audit!.host, tool: plan.audit!.tool });
    expect(readPlan(join(summary.manifest, '..', 'plan.json')).audit).toEqual(plan.audit);
    // And rollback's report.
    const rolled = await cli(['rollback', node.planFile, '--json']);
    expect(rolled.code).toBe(0);
    expect((JSON.parse(rolled.out) as { summary: { audit: unknown } }).summary.audit).toMatchObject({
      host: plan.audit!.host,
      tool: plan.audit!.tool,
      command: `kubelet-hash rollback ${node.planFile} --json`,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });
});
