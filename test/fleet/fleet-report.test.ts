/**
 * `fleet report` over one upgrade of the whole fleet: every plan of the same from → to and a plan
 * (not verify's output), the node the plan names (a file named for another node refused), every
 * node expected (--node, --nodes, --expect) present or NO-GO, and plans no older than --max-age.
 * The plans are recorded by `plan` over CRI-O node trees, as the Job's agent writes them.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { foldFleet, nodeReport } from '../../src/fleet/index.js';
import { formatNodePlan, type NodeUpgradePlan } from '../../src/node-upgrade/index.js';
import { cli } from '../support/cli.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-fleet-report-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));

/**
 * `plan` (or `verify`) of node `name` as the Job runs it (`--ndjson --node NAME`), or a plan file
 * (`--out`); written to `into/<file>` (default `<name>.ndjson` / `<name>.json`).
 */
async function record(
  name: string,
  o: { from?: string; to?: string; format?: 'ndjson' | 'plan'; command?: 'plan' | 'verify'; file?: string } = {},
): Promise<string> {
  const { from = '1.30', to = '1.31', format = 'ndjson', command = 'plan' } = o;
  const nodeDir = join(dir, `${name}-${from}-${to}`);
  const podsFile = join(nodeDir, 'pods.json');
  mkdirSync(nodeDir, { recursive: true });
  const onNode = pods.map((p) => ({ ...p, spec: { ...(p.spec as object), nodeName: name } }));
  writeFileSync(podsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: onNode }));
  // Each node's runtime gives its containers ids of its own.
  writeCrioNode(
    join(nodeDir, 'graph'),
    join(nodeDir, 'run'),
    fixtureContainers(pods, command === 'verify' ? to : from, name.charCodeAt(name.length - 1) * 100),
  );
  const store = ['--crio-root', join(nodeDir, 'graph'), '--crio-runroot', join(nodeDir, 'run')];
  const releases = command === 'plan' ? ['--from', from, '--to', to] : ['--kubelet', to];
  const out = join(dir, o.file ?? `${name}.${format === 'plan' ? 'json' : 'ndjson'}`);
  mkdirSync(join(out, '..'), { recursive: true });
  const args = [command, ...releases, '--pods', podsFile, ...store, '--node', name];
  const r = await cli(format === 'plan' ? [...args, '--out', out] : [...args, '--ndjson']);
  expect(r.code, r.err).toBe(0);
  if (format === 'ndjson') writeFileSync(out, r.out);
  return out;
}

/** Rewrites the trailer (last line) of an NDJSON plan, or the plan file's top level. */
function edit(file: string, change: (doc: Record<string, unknown>) => void, to = file): string {
  const text = readFileSync(file, 'utf8');
  mkdirSync(join(to, '..'), { recursive: true });
  if (file.endsWith('.ndjson')) {
    const lines = text.trimEnd().split('\n');
    const trailer = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    change(trailer);
    writeFileSync(to, [...lines.slice(0, -1), JSON.stringify(trailer)].join('\n') + '\n');
  } else {
    // A plan file's digest covers its audit stamp: an edited plan is written again with the
    // library's formatter, which digests it anew (as a forger would).
    const doc = JSON.parse(text) as Record<string, unknown>;
    change(doc);
    delete doc['digest'];
    writeFileSync(to, formatNodePlan(doc as NodeUpgradePlan));
  }
  return to;
}

async function refused(args: string[], ...says: string[]): Promise<void> {
  const r = await cli(['fleet', 'report', ...args, '--json']);
  expect(r.code, r.out).toBe(2);
  expect(r.out).toBe('');
  const err = JSON.parse(r.err) as { error: { code: string; message: string } };
  for (const s of says) expect(err.error.message + JSON.stringify(err)).toContain(s);
}

describe('fleet report: restart causes outside the hash', () => {
  it('a trailer that counts a restart cause holds its node (not ready, the cause named), as plan’s exit 1 does', async () => {
    const clean = await record('node-c');
    expect(nodeReport('node-c', readFileSync(clean, 'utf8'))).toMatchObject({ ready: true, findings: [] });
    const held = edit(
      clean,
      (d) =>
        (d['restartCauses'] = [{ kind: 'readiness-flap', pod: 'shop/web', reason: 'readiness or startup probes' }]),
      join(dir, 'causes', 'node-c.ndjson'),
    );
    const report = nodeReport('node-c', readFileSync(held, 'utf8'));
    expect(report.ready).toBe(false);
    expect(report.findings).toEqual([
      {
        action: 'restart-cause',
        pod: 'shop/web',
        container: '',
        reason: 'readiness-flap: readiness or startup probes',
      },
    ]);
    const r = await cli(['fleet', 'report', held, '--json']);
    expect(r.code).toBe(1);
  });
});

describe('fleet report: one upgrade', () => {
  it('plans of another target, or of a release to itself, are refused naming the file and field', async () => {
    const a = await record('node-a');
    const b = await record('node-b', { to: '1.32', file: 'other/node-b.ndjson' });
    expect((await cli(['fleet', 'report', a])).code).toBe(0);
    await refused([a, b], 'node-b.ndjson', '1.30 → 1.32', '1.30 → 1.31');
    // --to says which upgrade: then a lone plan of another one is refused too.
    await refused([a, '--to', '1.32'], 'node-a.ndjson', 'given with --from/--to');
    await refused([b, '--from', '1.29'], '--from/--to');
    const same = await record('node-s', { from: '1.31', to: '1.31' });
    await refused([same], 'node-s.ndjson', 'from and to are both "1.31"');
  });

  it("verify's output is not a plan: refused", async () => {
    const v = await record('node-v', { command: 'verify', file: 'verify/node-v.ndjson' });
    expect(readFileSync(v, 'utf8')).toContain('"command":"verify"');
    await refused([v], 'node-v.ndjson', 'output of verify');
  });
});

describe('fleet report: the node is the one the plan names', () => {
  it('a file named for another node than its trailer is refused; renamed, it counts as its node', async () => {
    const a = await record('node-a');
    const wrong = join(dir, 'renamed', 'node-b.ndjson');
    mkdirSync(join(wrong, '..'), { recursive: true });
    writeFileSync(wrong, readFileSync(a));
    await refused([wrong], 'node-b.ndjson', 'the plan names node "node-a"', 'rename the file node-a.ndjson');
    // The library keeps the trailer's name; a file named as its node passes.
    expect(nodeReport('node-a', readFileSync(a, 'utf8'), a).node).toBe('node-a');
    expect(() => nodeReport('node-b', readFileSync(a, 'utf8'), wrong)).toThrow(/node-a/);
  });

  it('a plan file that names its node is held to it too', async () => {
    const a = await record('node-a', { format: 'plan' });
    const named = edit(a, (d) => (d['node'] = 'node-q'), join(dir, 'named', 'node-a.json'));
    await refused([named], 'named/node-a.json', 'the plan names node "node-q"');
  });
});

describe('fleet report: every node expected', () => {
  const nodesFile = join(dir, 'nodes.json');
  writeFileSync(
    nodesFile,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: ['node-a', 'node-b', 'node-c'].map((name, i) => ({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { pool: i < 2 ? 'blue' : 'green' } },
      })),
    }),
  );

  it('--nodes: a node without a plan is NO-GO (exit 1), named; all present is GO', async () => {
    const a = await record('node-a');
    const b = await record('node-b');
    let r = await cli(['fleet', 'report', a, b, '--nodes', nodesFile]);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/node-a\s+yes/);
    expect(r.out).toContain('# node-c: no plan');
    expect(r.out).toContain('# NO-GO: 2 of 3 nodes ready; 0 containers will restart, 0 unknown, 1 without a plan');
    const j = JSON.parse((await cli(['fleet', 'report', a, b, '--nodes', nodesFile, '--json'])).out) as {
      summary: { go: boolean; missing: unknown };
    };
    expect(j.summary).toMatchObject({ go: false, missing: { nodes: ['node-c'], count: 1 } });
    // --selector narrows the nodes expected to the blue pool: both have plans.
    r = await cli(['fleet', 'report', a, b, '--nodes', nodesFile, '--selector', 'pool=blue']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('# GO: 2 of 2 nodes ready');
    // --node names them one by one.
    r = await cli(['fleet', 'report', a, '--node', 'node-a', '--node', 'node-b']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('# node-b: no plan');
  });

  it('a plan of a node not expected is refused (it would stand in for a missing one)', async () => {
    const a = await record('node-a');
    const x = await record('node-x');
    await refused([a, x, '--nodes', nodesFile], 'node-x.ndjson', 'node "node-x" is not one of the 3 nodes expected');
  });

  it('--expect N: fewer plans are NO-GO, more are refused', async () => {
    const a = await record('node-a');
    const b = await record('node-b');
    let r = await cli(['fleet', 'report', a, b, '--expect', '3']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('# 1 of the 3 nodes expected (--expect) have no plan');
    expect(r.out).toContain('# NO-GO: 2 of 3 nodes ready');
    r = await cli(['fleet', 'report', a, b, '--expect', '2']);
    expect(r.code).toBe(0);
    await refused([a, b, '--expect', '1'], 'at most 1 plans', 'got 2 plans');
    expect(foldFleet([], { expectCount: 2 })).toMatchObject({ go: false, missing: { count: 2 } });
  });

  it('options of manifests, and bad values, are usage errors rather than ignored', async () => {
    const a = await record('node-a');
    for (const [args, says] of [
      [['--image', 'x'], 'fleet report takes no --image'],
      [['--variant', 'suc'], 'fleet report takes no --variant'],
      [['--expect', '0'], '--expect: a whole number'],
      [['--max-age', '10'], '--max-age: a duration'],
      [['--selector', 'pool=blue'], '--selector goes with --nodes'],
    ] as const) {
      const r = await cli(['fleet', 'report', a, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain(says);
    }
    const r = await cli(['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--node', 'n', '--expect', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('fleet manifests takes no --expect');
  });
});

describe('fleet report: --max-age', () => {
  it('a plan without an audit stamp (an older kubelet-hash) is refused under --max-age, and read without it', async () => {
    const a = await record('node-a');
    const undated = edit(a, (t) => delete t['audit'], join(dir, 'undated', 'node-a.ndjson'));
    expect((await cli(['fleet', 'report', undated])).code).toBe(0);
    await refused([undated, '--max-age', '1h'], 'createdAt', 'its age is unknown');
  });

  it('old plans are refused, fresh ones pass; from the trailer or the plan file; future times refused', async () => {
    const now = Date.now();
    const at = (ms: number): string => new Date(now - ms).toISOString();
    const a = await record('node-a');
    const p = await record('node-p', { format: 'plan' });
    const fresh = edit(
      a,
      (t) => ((t['audit'] as Record<string, unknown>)['createdAt'] = at(60_000)),
      join(dir, 'fresh', 'node-a.ndjson'),
    );
    const freshFile = edit(
      p,
      (d) => ((d['audit'] as Record<string, unknown>)['createdAt'] = at(60_000)),
      join(dir, 'fresh', 'node-p.json'),
    );
    let r = await cli(['fleet', 'report', fresh, freshFile, '--max-age', '30m']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const old = edit(
      a,
      (t) => ((t['audit'] as Record<string, unknown>)['createdAt'] = at(2 * 3_600_000)),
      join(dir, 'old', 'node-a.ndjson'),
    );
    await refused([old, freshFile, '--max-age', '30m'], 'old/node-a.ndjson', 'made 7200 s ago');
    // ...and the same plan passes a longer limit.
    r = await cli(['fleet', 'report', old, '--max-age', '3h']);
    expect(r.code).toBe(0);
    const oldFile = edit(
      p,
      (d) => ((d['audit'] as Record<string, unknown>)['createdAt'] = at(2 * 86_400_000)),
      join(dir, 'old', 'node-p.json'),
    );
    await refused([oldFile, '--max-age', '1d'], 'old/node-p.json', 'made 172800 s ago');
    const future = edit(
      a,
      (t) => ((t['audit'] as Record<string, unknown>)['createdAt'] = at(-3_600_000)),
      join(dir, 'future', 'node-a.ndjson'),
    );
    await refused([future, '--max-age', '1d'], 'in the future');
    const garbled = edit(
      a,
      (t) => ((t['audit'] as Record<string, unknown>)['createdAt'] = 'yesterday'),
      join(dir, 'garbled', 'node-a.ndjson'),
    );
    await refused([garbled, '--max-age', '1d'], 'audit.createdAt', 'Invalid ISO datetime');
  });

  it('the provenance is read from the audit stamp: createdAt, host and tool', () => {
    const a = readFileSync(join(dir, 'node-a.ndjson'), 'utf8').trimEnd().split('\n');
    const trailer = {
      ...(JSON.parse(a.at(-1)!) as object),
      audit: {
        createdAt: '2026-12-04T19:00:00Z',
        host: 'h1',
        tool: 'kubelet-hash 9.9.9',
        command: 'kubelet-hash plan',
      },
    };
    const text = [...a.slice(0, -1), JSON.stringify(trailer)].join('\n');
    expect(nodeReport('node-a', text).made).toEqual({
      createdAt: '2026-12-04T19:00:00Z',
      host: 'h1',
      tool: 'kubelet-hash 9.9.9',
    });
    const r = nodeReport('node-a', text);
    expect(() => foldFleet([r], { maxAgeMs: 3_600_000, now: new Date('2026-12-04T19:59:00Z') })).not.toThrow();
    expect(() => foldFleet([r], { maxAgeMs: 3_600_000, now: new Date('2026-12-04T20:01:00Z') })).toThrow(
      /made 3660 s ago/,
    );
  });
});
