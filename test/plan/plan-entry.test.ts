/**
 * One plan-entry vocabulary: planUpgrade's entries and the plan file's are the same union by
 * `action` (a rewrite always carries its change, nothing else does), the plan file reads back what
 * it wrote, still reads files written before the union, and refuses entries that break it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { planUpgrade } from '../../src/plan/plan-upgrade.js';
import type {
  KeepPlanEntry,
  PlanEntry,
  RewritePlanEntry,
  UnknownPlanEntry,
  WillRestartPlanEntry,
} from '../../src/plan/plan-upgrade.js';
import {
  formatNodePlan,
  parseNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  type NodePlanEntry,
} from '../../src/node-upgrade/index.js';
import type { HashChange } from '../../src/runtime-records/index.js';
import { OptionError, StoreError } from '../../src/errors.js';
import { planDigest } from '../../src/node-upgrade/rollback-point.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-plan-entry-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
const labels = (name: string) => ({
  'io.kubernetes.pod.name': 'web-0',
  'io.kubernetes.pod.namespace': 'default',
  'io.kubernetes.pod.uid': 'uid-1',
  'io.kubernetes.container.name': name,
});
const record = (id: string, name: string, hash?: string) =>
  JSON.stringify({
    status: {
      id,
      labels: labels(name),
      annotations: hash === undefined ? {} : { 'io.kubernetes.container.hash': hash },
    },
  });
const pods = [
  {
    metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' },
    spec: { containers: [web, { ...web, name: 'nohash' }, { ...web, name: 'other' }, { ...web, name: 'norecord' }] },
  },
];

/** What each action's entries may hold, at run time (the types say the same: see below). */
function checkShape(e: PlanEntry | NodePlanEntry): void {
  if (e.action === 'rewrite') {
    expect(e.change.from.hash).toBe(e.observed.hash);
    expect(e.change.to.hash).toBe(e.computed.to);
    expect(e.computed.from).toBe(e.observed.hash);
  } else expect('change' in e).toBe(false);
  if (e.action !== 'unknown') expect('candidates' in e).toBe(false);
  else expect('ruleId' in e || 'ruleSource' in e).toBe(false);
}

/** What parseNodePlan makes of a plan whose only entry is `entry`: the entry read back, or the error. */
function readEntry(entry: { action: string }): unknown {
  const counts: Record<string, number> = { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 };
  counts[entry.action] = 1;
  const doc = {
    kind: 'kubelet-hash/upgrade-plan',
    version: 1,
    from: '1.30',
    to: '1.31',
    store: { runtime: 'records', files: [] },
    counts,
    entries: [entry],
  };
  try {
    return parseNodePlan(JSON.stringify(doc)).entries[0];
  } catch (e) {
    return e;
  }
}

describe('planUpgrade entries are a union by action', () => {
  it('narrows on entry.action (types, and the same at run time)', () => {
    const plan = planUpgrade({ pods, records: [record('c1', 'web', '590c88e0')], from: '1.30', to: '1.31' });
    const e = plan.entries[0]!;
    // The branches below must be the ones taken: a rewrite, with the change the types promise.
    expect(e.action).toBe('rewrite');
    checkShape(e);
    if (e.action === 'rewrite') {
      expectTypeOf(e).toExtend<RewritePlanEntry>();
      expectTypeOf(e.change).toEqualTypeOf<HashChange>();
      expectTypeOf(e.change.to.hash).toEqualTypeOf<string>();
      expectTypeOf(e.computed.to).toEqualTypeOf<string>();
      expectTypeOf(e.observed.hash).toEqualTypeOf<string>();
    } else {
      // Every other action has no change to read.
      expectTypeOf(e.change).toEqualTypeOf<undefined>();
      expectTypeOf(e.computed.to).toEqualTypeOf<string | undefined>();
    }
    if (e.action === 'unknown') expectTypeOf(e.candidates).toEqualTypeOf<string | undefined>();
    else expectTypeOf(e.candidates).toEqualTypeOf<undefined>();
    expectTypeOf<KeepPlanEntry['change']>().toEqualTypeOf<undefined>();
    expectTypeOf<WillRestartPlanEntry['change']>().toEqualTypeOf<undefined>();
    expectTypeOf<UnknownPlanEntry['ruleId']>().toEqualTypeOf<undefined>();
    // The node plan entry is the same union with where the record lives.
    expectTypeOf<Extract<NodePlanEntry, { action: 'rewrite' }>['change']>().toEqualTypeOf<HashChange>();
    expectTypeOf<NodePlanEntry['fingerprint']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NodePlanEntry['action']>().toEqualTypeOf<PlanEntry['action']>();

    const who = { reason: 'r', podUid: 'u', containerName: 'c', observed: {}, computed: {} };
    const change = { from: { hash: '1' }, to: { hash: '2' } };
    // @ts-expect-error a keep entry cannot carry a change
    const keepWithChange: PlanEntry = { ...who, action: 'keep', change };
    // @ts-expect-error a rewrite entry must carry its change
    const rewriteWithout: PlanEntry = {
      ...who,
      action: 'rewrite',
      observed: { hash: '1' },
      computed: { from: '1', to: '2' },
    };
    // @ts-expect-error only unknown entries carry candidates
    const willRestartWithCandidates: NodePlanEntry = { ...who, action: 'will-restart', candidates: '1.29' };
    // @ts-expect-error no rule decides an unknown entry
    const unknownWithRule: NodePlanEntry = { ...who, action: 'unknown', ruleId: 'hash' };
    const rewrite: NodePlanEntry = {
      ...who,
      action: 'rewrite',
      change,
      observed: { hash: '1' },
      computed: { from: '1', to: '2' },
      location: '/x',
    };
    // What tsc refuses above, the plan file refuses at run time, naming the field; the good one reads back.
    const refusedAt = (entry: { action: string }) => (readEntry(entry) as OptionError).path;
    expect(readEntry(keepWithChange)).toBeInstanceOf(OptionError);
    expect(refusedAt(keepWithChange)).toEqual(['entries', 0, 'change']);
    expect(refusedAt(rewriteWithout)).toEqual(['entries', 0, 'change']);
    expect(refusedAt(willRestartWithCandidates)).toEqual(['entries', 0, 'candidates']);
    expect(refusedAt(unknownWithRule)).toEqual(['entries', 0, 'ruleId']);
    expect(readEntry(rewrite)).toEqual(rewrite);
    checkShape(rewrite);
  });

  it('gives each action only its own fields (run time)', () => {
    const records = [
      record('c1', 'web', '590c88e0'), // 1.30's hash: rewrite
      record('c2', 'nohash'), // no stored hash: will-restart
      record('c3', 'other', '1'), // not 1.30's: unknown, with candidates
    ];
    const plan = planUpgrade({ pods, records, from: '1.30', to: '1.31' });
    expect(plan.entries.map((e) => [e.containerName, e.action])).toEqual([
      ['web', 'rewrite'],
      ['nohash', 'will-restart'],
      ['other', 'unknown'],
      ['norecord', 'unknown'],
    ]);
    plan.entries.forEach(checkShape);
    const [rewrite, restart, unknown, norecord] = plan.entries;
    expect(rewrite).toMatchObject({
      observed: { hash: '590c88e0' },
      computed: { from: '590c88e0', to: 'e220f96' },
      change: { from: { hash: '590c88e0' }, to: { hash: 'e220f96' }, containerId: 'c1' },
      ruleId: 'hash',
      record: 0,
    });
    // Another container name, so other hashes: both sides hashed it, the record stores none.
    expect(restart).toMatchObject({
      observed: {},
      computed: { from: expect.stringMatching(/^[0-9a-f]+$/), to: expect.stringMatching(/^[0-9a-f]+$/) },
      ruleId: 'hash',
    });
    expect(unknown!.observed).toEqual({ hash: '1' });
    const other = unknown!;
    expect(other.action === 'unknown' ? typeof other.candidates : 'no candidates').toBe('string');
    expect(norecord).toMatchObject({ observed: {}, computed: {}, role: 'container', list: 'containers' });
    expect('record' in norecord!).toBe(false);
    // 1.25 → 1.26 hash it alike: keep, decided by the hash rule.
    const keep = planUpgrade({ pods, records: [records[0]!], from: '1.25', to: '1.26' }).entries[0]!;
    expect(keep).toMatchObject({ action: 'keep', ruleId: 'hash', observed: { hash: '590c88e0' } });
    checkShape(keep);
  });
});

describe('the plan file carries the same entries', () => {
  // A CRI-O node: three pods whose records a 1.30 kubelet wrote, one already at 1.31's hash, one
  // whose API spec moved on, and a static pod whose UID is generated (the kubelet recreates it).
  const podList = [0, 1, 2, 3].map((i) => fixturePod(i));
  const staticUid = '0123456789abcdef0123456789abcdef';
  podList[3]!.metadata.uid = staticUid;
  const fixtures = [
    ...fixtureContainers(podList.slice(0, 2), '1.30'),
    ...fixtureContainers([podList[2]!], '1.31', 2),
    ...fixtureContainers([podList[3]!], '1.30', 3),
  ];
  const apiPods = structuredClone(podList) as (Record<string, unknown> & (typeof podList)[number])[];
  apiPods[1]!.spec.containers[0]!['image'] = 'registry.example.com/other:9';
  const mirror = apiPods[3]!;
  mirror.metadata = {
    ...mirror.metadata,
    uid: 'mirror-uid',
    annotations: { 'kubernetes.io/config.mirror': staticUid },
  } as never;
  const graphRoot = join(dir, 'graph');
  writeCrioNode(graphRoot, join(dir, 'run'), fixtures);

  it('round-trips: format → parse gives the same plan and the same bytes', async () => {
    const plan = await planNodeUpgrade({
      pods: apiPods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'cri-o', graphRoot, runRoot: join(dir, 'run') },
    });
    const actions = new Set(plan.entries.map((e) => e.action));
    expect([...actions].sort()).toEqual(['keep', 'rewrite', 'unknown', 'will-restart']);
    plan.entries.forEach(checkShape);
    for (const e of plan.entries) {
      expect(e).not.toHaveProperty('record');
      expect(e.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(e.runtime).toBe('cri-o');
      // The file names the record by location; the change has no containerId of its own.
      if (e.action === 'rewrite') expect(Object.keys(e.change).sort()).toEqual(['from', 'to']);
    }
    expect(plan.entries.find((e) => e.action === 'unknown')?.candidates).toEqual(expect.any(String));
    expect(plan.entries.find((e) => e.action === 'will-restart')?.ruleId).toBe('static-pod-kubelet-upgrade');
    const text = formatNodePlan(plan);
    const back = parseNodePlan(text);
    expect(back).toEqual(plan);
    expect(formatNodePlan(back)).toBe(text);
  });

  it('reads a plan file written before the union (no role, list or rule fields)', () => {
    const old = {
      kind: 'kubelet-hash/upgrade-plan',
      version: 1,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'cri-o', graphRoot: '/var/lib/containers/storage' },
      counts: { keep: 1, rewrite: 1, 'will-restart': 0, unknown: 1 },
      entries: [
        {
          action: 'rewrite',
          reason: 'verified against 1.30 (590c88e0); 1.31 computes e220f96',
          runtime: 'cri-o',
          containerId: 'c1',
          location: '/var/lib/containers/storage/overlay-containers/c1/userdata/config.json',
          fingerprint: '0123456789abcdef',
          podUid: 'uid-1',
          podNamespace: 'default',
          podName: 'web-0',
          containerName: 'web',
          observed: { hash: '590c88e0' },
          computed: { from: '590c88e0', to: 'e220f96' },
          change: { from: { hash: '590c88e0' }, to: { hash: 'e220f96' } },
        },
        {
          action: 'keep',
          reason: 'init containers are not compared',
          podUid: 'u',
          containerName: 'i',
          observed: {},
          computed: {},
        },
        {
          action: 'unknown',
          reason: 'stored hash 1 is not what a 1.30 kubelet computes',
          podUid: 'u',
          containerName: 'o',
          observed: { hash: '1' },
          computed: { from: '590c88e0', to: 'e220f96' },
          candidates: 'no release in 1.8–1.35 writes this hash',
        },
      ],
    };
    const plan = parseNodePlan(JSON.stringify(old));
    expect(plan).toEqual(old);
    const e = plan.entries[0]!;
    expect(e.action === 'rewrite' ? e.change.to.hash : null).toBe('e220f96');
  });

  /** The error parseNodePlan throws for a plan with `entry` as its only entry. */
  function refusal(entry: Record<string, unknown>): OptionError {
    const doc = {
      kind: 'kubelet-hash/upgrade-plan',
      version: 1,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'records', files: [] },
      counts: { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 },
      entries: [{ reason: 'r', podUid: 'u', containerName: 'c', observed: {}, computed: {}, ...entry }],
    };
    try {
      parseNodePlan(JSON.stringify(doc));
    } catch (e) {
      expect(e).toBeInstanceOf(OptionError);
      expect((e as OptionError).code).toBe('INVALID_OPTION');
      return e as OptionError;
    }
    throw new Error('parseNodePlan accepted the entry');
  }

  it('refuses entries that break the union, naming the field', () => {
    const change = { from: { hash: '1' }, to: { hash: '2' } };
    expect(refusal({ action: 'keep', change }).path).toEqual(['entries', 0, 'change']);
    expect(refusal({ action: 'rewrite', observed: { hash: '1' }, computed: { from: '1', to: '2' } }).path).toEqual([
      'entries',
      0,
      'change',
    ]);
    expect(refusal({ action: 'rewrite', change, computed: { from: '1', to: '2' } }).path).toEqual([
      'entries',
      0,
      'observed',
      'hash',
    ]);
    expect(refusal({ action: 'will-restart', candidates: '1.29' }).path).toEqual(['entries', 0, 'candidates']);
    expect(refusal({ action: 'unknown', ruleId: 'hash' }).path).toEqual(['entries', 0, 'ruleId']);
    expect(refusal({ action: 'keep', ruleId: 'no-such-rule' }).path).toEqual(['entries', 0, 'ruleId']);
    expect(refusal({ action: 'restart' }).path).toEqual(['entries', 0, 'action']);
    expect(refusal({ action: 'keep', fingerprint: 'xyz' }).path).toEqual(['entries', 0, 'fingerprint']);
  });

  it('names the path of other plan-file errors', () => {
    expect(() => parseNodePlan('{"kind":"kubelet-hash/upgrade-plan","version":2}')).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', path: ['version'] }),
    );
    expect(() => parseNodePlan('{')).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', path: [] }));
  });
});

describe('planUpgrade and rollback name the JSON path of bad input', () => {
  it('a pod that is not an object', () => {
    expect(() => planUpgrade({ pods: [pods[0], 'nope'], records: [], from: '1.30', to: '1.31' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', path: ['input', 'pods', 1] }),
    );
    expect(() =>
      planUpgrade({ pods: [{ metadata: { uid: 'u', name: 7 }, spec: {} }], records: [], from: '1.30', to: '1.31' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', path: ['input', 'pods', 0, 'metadata', 'name'] }));
  });

  it('a rollback manifest that is not one', async () => {
    const backup = join(dir, 'backup');
    const plan = parseNodePlan(
      JSON.stringify({
        kind: 'kubelet-hash/upgrade-plan',
        version: 1,
        from: '1.30',
        to: '1.31',
        store: { runtime: 'docker', root: '/var/lib/docker' },
        counts: { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 },
        entries: [],
      }),
    );
    const point = join(backup, `${planDigest(plan).slice(0, 16)}-20261204T190000000Z`);
    const manifest = join(point, 'kubelet-hash-backup.json');
    mkdirSync(point, { recursive: true, mode: 0o700 });
    const body = {
      kind: 'kubelet-hash/rollback-point',
      version: 2,
      plan: planDigest(plan),
      node: 'n',
      store: plan.store,
      storeIdentity: '1:2',
      created: '2026-12-04T19:00:00.000Z',
      before: [],
      after: [],
      records: [{ containerId: 'c', location: '/a', fingerprint: 7, after: 'x', values: [] }],
    };
    writeFileSync(manifest, JSON.stringify(body), { mode: 0o600 });
    const refused = await rollbackNodePlan(plan, { backupDir: backup }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({ code: 'STORE_CORRUPT', path: ['records', 0, 'fingerprint'] });
    writeFileSync(manifest, '{ not json');
    expect(await rollbackNodePlan(plan, { backupDir: backup }).catch((e: unknown) => e)).toMatchObject({
      code: 'STORE_CORRUPT',
      path: [],
    });
  });
});
