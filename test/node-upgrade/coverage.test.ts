/**
 * The one rule of node plans (src/node-upgrade/coverage.ts, planUpgrade's join): a success (exit 0,
 * ok: true, every entry keep) means every container the runtime holds in the kubelet's namespace
 * and every running container of every API pod on the node was joined and checked. The views in
 * which that cannot hold are refused with a typed error naming what is missing; a property over
 * generated nodes (pods, records, namespaces, --node) finds no success that left one unchecked.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeletHashError } from '../../src/errors.js';
import { containerdMetaDbPath } from '../../src/stores/index.js';
import { planNodeUpgrade, verifyNode } from '../../src/node-upgrade/index.js';
import { writeBoltFile, type BoltTree } from '../support/bolt-builder.js';
import { cli } from '../support/cli.js';
import { planArgs } from '../support/node-fixture.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { crioSpec, writeCrioNode } from '../support/crio-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-coverage-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let roots = 0;
/** A containerd root whose meta.db holds `byNamespace`'s CRI containers. */
function containerdRoot(byNamespace: Record<string, readonly FixtureContainer[]>): string {
  const root = join(dir, `containerd-${roots++}`);
  mkdirSync(join(root, 'io.containerd.metadata.v1.bolt'), { recursive: true });
  const v1: BoltTree = { version: Buffer.from([3]) };
  for (const [ns, fixtures] of Object.entries(byNamespace)) {
    const containers: BoltTree = {};
    for (const f of fixtures) {
      const { id, ...record } = criRecord(f);
      containers[id] = { ...record, runtime: { name: 'io.containerd.runc.v2' } };
    }
    v1[ns] = { containers };
  }
  writeBoltFile(containerdMetaDbPath(root), { v1 });
  return root;
}

const pods = Array.from({ length: 5 }, (_, i) => fixturePod(i));
const fixtures = fixtureContainers(pods, '1.30');
const onNode = (node: string) => pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: node } }));
const podsFile = (name: string, doc: unknown): string => {
  const f = join(dir, name);
  writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return f;
};
const errorOf = (r: { err: string }) => (JSON.parse(r.err) as { error: { code: string; message: string } }).error;

describe('plan and verify refuse a view that leaves containers unchecked', () => {
  const root = containerdRoot({ 'k8s.io': fixtures });
  const store = ['--containerd-root', root];
  const verify = (extra: string[], stdin = '') =>
    cli(['verify', '--kubelet', '1.30', '--json', ...store, ...extra], stdin);

  it('the whole view passes (the control)', async () => {
    const r = await verify(['--pods', podsFile('pods-a.json', { kind: 'List', items: onNode('node-a') })]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ summary: { ok: true, counts: { keep: fixtures.length } } });
  });

  it('--node node-A while the pods are on node-a: NODE_NOT_FOUND naming node-a, not "4 of 4 keep"', async () => {
    const file = podsFile('pods-a2.json', { kind: 'List', items: onNode('node-a') });
    for (const cmd of ['verify', 'plan']) {
      const args =
        cmd === 'verify'
          ? ['verify', '--kubelet', '1.30']
          : ['plan', '--from', '1.30', '--to', '1.31', '--out', join(dir, 'never.json')];
      const r = await cli([...args, '--json', ...store, '--pods', file, '--node', 'node-A']);
      expect(r.code, cmd).toBe(2);
      expect(r.out).toBe('');
      const e = errorOf(r);
      expect(e.code).toBe('NODE_NOT_FOUND');
      expect(e.message).toContain('did you mean "node-a"?');
    }
  });

  it('an empty pod view (no input, an empty List) while the store holds CRI containers: EMPTY_POD_VIEW', async () => {
    for (const stdin of ['', '{"kind":"List","items":[]}', '[]']) {
      const r = await verify(['--pods', '-'], stdin);
      expect(r.code, stdin).toBe(2);
      expect(errorOf(r).code).toBe('EMPTY_POD_VIEW');
      expect(errorOf(r).message).toContain(`${fixtures.length} container records`);
    }
  });

  it('--namespace default while k8s.io holds the CRI containers: NAMESPACE_MISMATCH naming k8s.io', async () => {
    for (const stdin of ['', JSON.stringify({ kind: 'List', items: onNode('node-a') })]) {
      const r = await verify(['--pods', '-', '--namespace', 'default'], stdin);
      expect(r.code).toBe(2);
      // With pods, no record in `default` is EMPTY_STORE; without, the other namespace is named.
      expect(['NAMESPACE_MISMATCH', 'EMPTY_STORE']).toContain(errorOf(r).code);
      expect(errorOf(r).message).toContain('k8s.io');
    }
    // The namespace read empty, another holding CRI containers, and no pod container to miss (no EMPTY_STORE).
    const elsewhere = containerdRoot({ 'k8s.io': [], other: fixtures });
    await expect(
      verifyNode({
        kubelet: '1.30',
        pods: [],
        store: { runtime: 'containerd', root: elsewhere, namespace: 'k8s.io' },
      }),
    ).rejects.toMatchObject({
      code: 'NAMESPACE_MISMATCH',
      message: expect.stringContaining(
        `it holds none, while other namespaces hold CRI containers that would go unchecked: other (${fixtures.length} CRI containers)`,
      ) as string,
    });
  });

  it('the namespace read holds CRI containers and another does too: not refused; a pod container recorded only there is unknown', async () => {
    const mixed = containerdRoot({ 'k8s.io': fixtures.slice(0, 3), other: fixtures.slice(3) });
    const store = { runtime: 'containerd' as const, root: mixed, namespace: 'k8s.io' };
    // Every pod given: the containers recorded in `other` only are unknown, never a pass.
    const all = await verifyNode({ kubelet: '1.30', pods: onNode('node-a'), store });
    expect(all.ok).toBe(false);
    expect(all.plan.counts).toMatchObject({ keep: 3, unknown: fixtures.length - 3 });
    const unknown = all.plan.entries.filter((e) => e.action === 'unknown');
    expect(unknown.map((e) => e.containerName).sort()).toEqual(
      fixtures
        .slice(3)
        .map((f) => f.container.name)
        .sort(),
    );
    for (const e of unknown) expect(e.reason).toContain('no runtime record');
    // Only the pods whose records are in k8s.io: they pass; `other` is a namespace the kubelet's CRI plugin does not serve.
    const inRead = new Set(fixtures.slice(0, 3).map((f) => f.pod.metadata.uid));
    const mine = await verifyNode({
      kubelet: '1.30',
      pods: onNode('node-a').filter((p) => inRead.has(p.metadata.uid)),
      store,
    });
    expect(mine.ok).toBe(true);
    expect(mine.plan.entries.map((e) => e.containerId).sort()).toEqual(
      fixtures
        .slice(0, 3)
        .map((f) => f.id)
        .sort(),
    );
  });

  it('duplicate pods (same uid): DUPLICATE_POD, whether the spec differs or not', async () => {
    const changed = structuredClone(pods[1]!);
    changed.spec.containers[0]!.image = 'registry.example.com/other:1';
    for (const [items, says] of [
      [[...pods, changed], 'with different specs'],
      [[...pods, pods[1]], 'the same pod given twice'],
    ] as const) {
      const r = await verify(['--pods', podsFile('dup.json', { kind: 'List', items })]);
      expect(r.code).toBe(2);
      expect(errorOf(r)).toMatchObject({ code: 'DUPLICATE_POD' });
      expect(errorOf(r).message).toContain(says);
    }
  });
});

describe('CRI-O: the runroot copies are never left behind', () => {
  const graph = join(dir, 'crio-graph');
  const run = join(dir, 'crio-run');
  writeCrioNode(graph, run, fixtures);
  const file = podsFile('crio-pods.json', pods);

  it('plan without --crio-runroot, or with one that does not exist: MISSING_RUNROOT, nothing written', async () => {
    const out = join(dir, 'crio-plan.json');
    const base = [...planArgs({ podsFile: file, store: ['--crio-root', graph], out }), '--json'];
    for (const extra of [[], ['--crio-runroot', join(dir, 'no-such-runroot')]]) {
      const r = await cli([...base, ...extra]);
      expect(r.code).toBe(2);
      expect(errorOf(r).code).toBe('MISSING_RUNROOT');
    }
    expect((await cli([...base, '--crio-runroot', run])).code).toBe(0);
  });

  it('verify --crio-runroot checks the runroot copies: one with the old hash is unknown (exit 1)', async () => {
    const run2 = join(dir, 'crio-run-stale');
    cpSync(run, run2, { recursive: true });
    const graph2 = join(dir, 'crio-graph-new');
    cpSync(graph, graph2, { recursive: true });
    // The graphroot copy of container 0 was rewritten to another hash; the runroot copy kept the old one.
    const f = { ...fixtures[0]!, annotations: { ...fixtures[0]!.annotations, 'io.kubernetes.container.hash': '5eed' } };
    writeFileSync(join(graph2, 'overlay-containers', f.id, 'userdata', 'config.json'), crioSpec(f, 'container'));
    const r = await cli(['verify', '--kubelet', '1.30', '--pods', file, '--crio-root', graph2, '--crio-runroot', run2]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("CRI-O's two copies of container");
    expect(r.out).toContain(`the graphroot stores 5eed, the runroot ${fixtures[0]!.hash}`);
  });
});

describe('--ndjson ends with the trailer', () => {
  it('plan --ndjson: rows then one kubelet-hash/plan-trailer line with the counts and the node', async () => {
    const root = containerdRoot({ 'k8s.io': fixtures });
    const file = podsFile('pods-nd.json', onNode('node-a'));
    const r = await cli([
      ...planArgs({ podsFile: file, store: ['--containerd-root', root], extra: ['--node', 'node-a'] }),
      '--ndjson',
    ]);
    expect(r.code).toBe(0);
    const rows = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.at(-1)).toMatchObject({
      kind: 'kubelet-hash/plan-trailer',
      command: 'plan',
      node: 'node-a',
      rows: fixtures.length,
      counts: { rewrite: fixtures.length, keep: 0, 'will-restart': 0, unknown: 0 },
    });
    expect(rows.slice(0, -1).every((row) => row['action'] === 'rewrite')).toBe(true);
  });
});

describe('property: no success over a container nobody checked', () => {
  // Pods on two nodes, records of some of them in one or two namespaces, a --node that may be
  // another node or differ in case; every success must have joined every record and every
  // running container of the node's pods with a kept entry.
  const pool = Array.from({ length: 6 }, (_, i) => fixturePod(40 + i));
  const poolRecords = fixtureContainers(pool, '1.30', 40);
  const rootCache = new Map<string, string>();
  const rootFor = (key: string, byNs: Record<string, FixtureContainer[]>): string => {
    let root = rootCache.get(key);
    if (root === undefined) rootCache.set(key, (root = containerdRoot(byNs)));
    return root;
  };

  it('verifyNode / planNodeUpgrade: ok only when every container was joined and checked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          nodeOf: fc.array(fc.constantFrom('node-a', 'node-b', undefined), { minLength: 6, maxLength: 6 }),
          given: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          duplicate: fc.option(fc.nat(5), { nil: undefined }),
          recorded: fc.array(fc.constantFrom('none', 'k8s.io', 'other'), { minLength: 6, maxLength: 6 }),
          namespace: fc.constantFrom('k8s.io', 'other'),
          node: fc.constantFrom(undefined, 'node-a', 'node-A', 'node-b', 'node-c'),
        }),
        async ({ nodeOf, given, duplicate, recorded, namespace, node }) => {
          const apiPods = pool.flatMap((p, i) =>
            given[i] ? [{ ...p, spec: { ...p.spec, ...(nodeOf[i] ? { nodeName: nodeOf[i] } : {}) } }] : [],
          );
          if (duplicate !== undefined && given[duplicate]) apiPods.push(apiPods[0]!);
          const byNs: Record<string, FixtureContainer[]> = { 'k8s.io': [], other: [] };
          for (const rec of poolRecords) {
            const where = recorded[pool.indexOf(rec.pod)]!;
            if (where !== 'none') byNs[where]!.push(rec);
          }
          const root = rootFor(JSON.stringify(recorded), byNs);
          let result: Awaited<ReturnType<typeof verifyNode>>;
          try {
            result = await verifyNode({
              kubelet: '1.30',
              pods: apiPods,
              store: { runtime: 'containerd', root, namespace },
              ...(node !== undefined ? { nodeName: node } : {}),
            });
          } catch (e) {
            expect(e).toBeInstanceOf(KubeletHashError); // a refusal, typed
            return;
          }
          if (!result.ok) return;
          // Success: every record of the namespace read was read and kept, and that namespace holds
          // CRI containers whenever another one does (NAMESPACE_MISMATCH: the kubelet's CRI plugin
          // serves one namespace; a pod container whose record is elsewhere is unknown, below)...
          const held = byNs[namespace]!;
          const elsewhere = byNs[namespace === 'k8s.io' ? 'other' : 'k8s.io']!;
          if (elsewhere.length > 0) expect(held.length, 'an empty namespace read beside a full one').toBeGreaterThan(0);
          const kept = new Set(result.plan.entries.map((e) => e.containerId ?? ''));
          for (const rec of held) expect(kept.has(rec.id), `record ${rec.id} unchecked`).toBe(true);
          // ...and every container of every given pod on the node has a kept entry with a record.
          const nodes = new Set(apiPods.map((p) => p.spec.nodeName).filter((n) => n !== undefined));
          // Without --node, a list over several nodes means the nodes the records place.
          const placed = new Set(
            apiPods
              .filter((p) =>
                result.plan.entries.some((e) => e.containerId !== undefined && e.podUid === p.metadata.uid),
              )
              .map((p) => p.spec.nodeName),
          );
          const mine = apiPods.filter((p) =>
            node !== undefined ? p.spec.nodeName === node : nodes.size <= 1 || placed.has(p.spec.nodeName),
          );
          if (node !== undefined) expect(mine.length, 'a --node no pod is on').toBeGreaterThan(0);
          for (const p of mine)
            for (const c of p.spec.containers) {
              const e = result.plan.entries.find(
                (x) => x.podUid === p.metadata.uid && x.containerName === c.name && x.containerId !== undefined,
              );
              expect(e, `${p.metadata.name}/${String(c.name)} unchecked`).toBeDefined();
            }
        },
      ),
      { numRuns: 150, seed: 25 },
    );
  });

  it('planNodeUpgrade refuses what verifyNode refuses (the same rule, one place)', async () => {
    const root = rootFor('plan', { 'k8s.io': poolRecords });
    await expect(
      planNodeUpgrade({
        pods: [],
        from: '1.30',
        to: '1.31',
        store: { runtime: 'containerd', root, namespace: 'k8s.io' },
      }),
    ).rejects.toMatchObject({ code: 'EMPTY_POD_VIEW' });
    await expect(
      planNodeUpgrade({
        pods: pool.map((p) => ({ ...p, spec: { ...p.spec, nodeName: 'node-a' } })),
        from: '1.30',
        to: '1.31',
        nodeName: 'node-A',
        store: { runtime: 'containerd', root, namespace: 'k8s.io' },
      }),
    ).rejects.toMatchObject({ code: 'NODE_NOT_FOUND' });
  });
});

describe('property: fleet report never says GO over a damaged plan --ndjson stream', () => {
  // Generated nodes (which pods are given, which are recorded, a record of a pod the API lacks),
  // planned with `plan --ndjson`; the stream cut at any byte or line, a line dropped or repeated,
  // the whole stream repeated, or the trailer's rows/counts edited: `fleet report` may say GO
  // (exit 0) only when every row and the trailer are intact.
  const pool = Array.from({ length: 5 }, (_, i) => fixturePod(60 + i));
  const poolRecords = fixtureContainers(pool, '1.30', 60);
  const streams = new Map<string, { text: string; code: number }>();

  /** The node's `plan --ndjson` stream (one per generated node). */
  async function planStream(given: boolean[], recorded: boolean[], stray: boolean) {
    const key = JSON.stringify([given, recorded, stray]);
    const known = streams.get(key);
    if (known) return known;
    const records = poolRecords.filter((r) => recorded[pool.indexOf(r.pod)]);
    if (stray) records.push(...fixtureContainers([fixturePod(99)], '1.30', 99));
    const root = containerdRoot({ 'k8s.io': records });
    const items = pool.filter((_, i) => given[i]);
    const r = await cli([
      'plan',
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--ndjson',
      '--containerd-root',
      root,
      '--pods',
      podsFile(`ndjson-pods-${streams.size}.json`, { kind: 'List', items }),
    ]);
    const out = { text: r.out, code: r.code };
    streams.set(key, out);
    return out;
  }

  const damage = fc.oneof(
    fc.record({ kind: fc.constant('cut-byte' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('cut-line' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('drop-line' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('repeat-line' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('repeat-stream' as const) }),
    fc.record({
      kind: fc.constant('edit-trailer' as const),
      field: fc.constantFrom('rows', 'keep', 'rewrite', 'will-restart', 'unknown'),
      by: fc.constantFrom(-1, 1, 2),
    }),
  );

  it('exit 0 only over the intact stream of a ready node', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        fc.boolean(),
        damage,
        async (given, recorded, stray, d) => {
          const plan = await planStream(given, recorded, stray);
          if (plan.code === 2) return; // a refused view prints no stream (the coverage property above)
          const lines = plan.text.trimEnd().split('\n');
          let text: string;
          switch (d.kind) {
            case 'cut-byte': {
              const bytes = Buffer.from(plan.text);
              text = bytes.subarray(0, Math.floor(d.at * bytes.length)).toString('utf8');
              break;
            }
            case 'cut-line':
              text = lines.slice(0, d.at % lines.length).join('\n') + '\n';
              break;
            case 'drop-line':
              text = lines.filter((_, i) => i !== d.at % lines.length).join('\n') + '\n';
              break;
            case 'repeat-line': {
              const i = d.at % lines.length;
              text = [...lines.slice(0, i + 1), lines[i]!, ...lines.slice(i + 1)].join('\n') + '\n';
              break;
            }
            case 'repeat-stream':
              text = plan.text + plan.text;
              break;
            case 'edit-trailer': {
              const trailer = JSON.parse(lines.at(-1)!) as { rows: number; counts: Record<string, number> };
              if (d.field === 'rows') trailer.rows += d.by;
              else trailer.counts[d.field] = trailer.counts[d.field]! + d.by;
              text = [...lines.slice(0, -1), JSON.stringify(trailer)].join('\n') + '\n';
              break;
            }
          }
          const file = podsFile('damaged.ndjson', text);
          const report = await cli(['fleet', 'report', file]);
          const intact = text.trimEnd() === plan.text.trimEnd();
          if (report.code === 0) {
            expect(intact, `GO over a damaged stream (${JSON.stringify(d)})`).toBe(true);
            expect(plan.code).toBe(0);
          }
          // The intact stream of a ready node is a GO; damaged, it is refused (exit 2), never a smaller GO.
          if (intact) expect(report.code).toBe(plan.code === 0 ? 0 : 1);
          else expect(report.code, JSON.stringify(d)).not.toBe(0);
        },
      ),
      { numRuns: 200, seed: 2525 },
    );
    // The generated nodes include ready ones, and nodes that are not.
    expect([...streams.values()].some((s) => s.code === 0)).toBe(true);
    expect([...streams.values()].some((s) => s.code === 1)).toBe(true);
  });

  it('the same stream given twice is refused (DUPLICATE_NODE), not two ready nodes', async () => {
    const plan = await planStream([true, true, true, true, true], [true, true, true, true, true], false);
    expect(plan.code).toBe(0);
    const a = podsFile('twice-a.ndjson', plan.text);
    const b = podsFile('twice-b.ndjson', plan.text);
    const r = await cli(['fleet', 'report', a, b, '--json']);
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('DUPLICATE_NODE');
  });
});
