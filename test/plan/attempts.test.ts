/**
 * A store keeps a container's exited attempts until the kubelet collects them; the kubelet compares
 * only the newest attempt of a pod's container (kuberuntime: container statuses newest first, the
 * first of each name judged). So older attempts of the same pod uid + container name are shown as
 * superseded, never as unknown, and the newest is judged as any record. What cannot be ordered, or
 * belongs to no API pod, still refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { planUpgrade, type PlanRecord } from '../../src/plan/plan-upgrade.js';
import { planNodeUpgrade } from '../../src/node-upgrade/index.js';
import { fixtureAttempt, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-plan-attempts-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const pods = [fixturePod(1), fixturePod(2)];
const [web, other] = fixtureContainers(pods, '1.30');
const webSpec = pods[0]!.spec.containers[0]!;
// The hash 1.30 gave the container before its image was changed in place (the kubelet restarted it).
const oldHash = hashContainer({ ...webSpec, image: 'registry.example.com/team/api:0.9' }, { kubeletVersion: '1.30' });

/** A containerd root holding `fixtures`, planned 1.30 → 1.31 against `pods`. */
async function planNode(name: string, fixtures: readonly FixtureContainer[], apiPods: readonly unknown[] = pods) {
  const root = writeContainerdNode(join(dir, name), fixtures);
  return planNodeUpgrade({
    pods: apiPods,
    from: '1.30',
    to: '1.31',
    store: { runtime: 'containerd', root, namespace: 'k8s.io' },
  });
}

const byId = <T extends { containerId?: string }>(entries: readonly T[], f: FixtureContainer): T =>
  entries.find((e) => e.containerId === f.id)!;

describe('older attempts of a pod container', () => {
  // Attempt 0 ran the old image and exited; attempt 1 runs the API spec.
  const exited = fixtureAttempt(web!, 0, { seed: 9001, hash: oldHash });
  const running = fixtureAttempt(web!, 1, { seed: 9002 });

  it('are superseded by the newest attempt, which is planned as today: a healthy node is a GO', async () => {
    const plan = await planNode('healthy', [exited, running, other!]);
    expect(byId(plan.entries, exited)).toMatchObject({
      action: 'keep',
      supersededBy: { attempt: 1, containerId: running.id },
      observed: { hash: oldHash },
      computed: {},
    });
    expect(byId(plan.entries, exited).reason).toMatch(
      /^superseded: attempt 0 of this container; the kubelet compares only the newest attempt \(1, container [0-9a-f]{13}\)/,
    );
    expect(byId(plan.entries, running)).toMatchObject({ action: 'rewrite', observed: { hash: web!.hash } });
    expect(byId(plan.entries, other!)).toMatchObject({ action: 'rewrite' });
    expect(plan.counts).toEqual({ keep: 1, rewrite: 2, 'will-restart': 0, unknown: 0 });
  });

  it('plan shows them as superseded and exits 0', async () => {
    const root = writeContainerdNode(join(dir, 'cli'), [exited, running, other!]);
    const podsFile = writePodList(join(dir, 'cli-pods.json'), pods);
    const r = await cli(planArgs({ podsFile, store: ['--containerd-root', root] }));
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/^superseded +\S+ +api +\S+ +\S+ +[0-9a-f]{13} +superseded: attempt 0/m);
    expect(r.out).toContain('keep 1 (1 superseded), rewrite 2, will-restart 0, unknown 0');
  });

  it('every older attempt, however many, and in any store order', async () => {
    const attempts = [3, 0, 2, 1].map((a) =>
      fixtureAttempt(web!, a, { seed: 9100 + a, hash: a === 3 ? web!.hash : oldHash }),
    );
    const plan = await planNode('many', attempts);
    const newest = attempts[0]!;
    for (const a of attempts.slice(1))
      expect(byId(plan.entries, a)).toMatchObject({
        action: 'keep',
        supersededBy: { attempt: 3, containerId: newest.id },
      });
    expect(byId(plan.entries, newest)).toMatchObject({ action: 'rewrite' });
  });

  it('an older attempt never hides a newest one that does not verify', async () => {
    const good = fixtureAttempt(web!, 0, { seed: 9201 });
    const bad = fixtureAttempt(web!, 1, { seed: 9202, hash: oldHash });
    const plan = await planNode('newest-bad', [good, bad, other!]);
    expect(byId(plan.entries, good)).toMatchObject({ action: 'keep', supersededBy: { attempt: 1 } });
    expect(byId(plan.entries, bad)).toMatchObject({ action: 'unknown' });
    expect(byId(plan.entries, bad).reason).toContain('is not what a 1.30 kubelet computes');
  });
});

describe('what cannot be ordered or claimed still refuses', () => {
  it('two records holding the newest attempt are both unknown (older ones still superseded)', async () => {
    const old = fixtureAttempt(web!, 0, { seed: 9301, hash: oldHash });
    const a = fixtureAttempt(web!, 1, { seed: 9302 });
    const b = fixtureAttempt(web!, 1, { seed: 9303 });
    const plan = await planNode('tied', [old, a, b, other!]);
    for (const f of [a, b]) {
      expect(byId(plan.entries, f)).toMatchObject({ action: 'unknown' });
      expect(byId(plan.entries, f).reason).toBe(
        "2 records of this pod's container hold its newest attempt (1): which one the kubelet compares cannot be told",
      );
    }
    expect(byId(plan.entries, old)).toMatchObject({ action: 'keep', supersededBy: { attempt: 1 } });
    expect(byId(plan.entries, old)).not.toHaveProperty('supersededBy.containerId');
    expect(plan.counts.unknown).toBe(2);
  });

  it('attempts of a pod no API pod claims stay unknown, every one of them', async () => {
    const gone = { ...pods[0]!, metadata: { ...pods[0]!.metadata, uid: 'deleted-pod-uid' } };
    const [g] = fixtureContainers([gone], '1.30', 7);
    const attempts = [fixtureAttempt(g!, 0, { seed: 9401 }), fixtureAttempt(g!, 1, { seed: 9402 })];
    const plan = await planNode('unclaimed', [...attempts, web!, other!]);
    for (const f of attempts) {
      expect(byId(plan.entries, f)).toMatchObject({ action: 'unknown' });
      expect(byId(plan.entries, f).reason).toContain('no API pod has uid "deleted-pod-uid"');
      expect(byId(plan.entries, f)).not.toHaveProperty('supersededBy');
    }
  });

  it('a record without an attempt leaves its container unordered: each record judged as it stands', () => {
    const pod = { metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [webSpec] } };
    const rec = (containerId: string, hash: string, attempt?: number): PlanRecord => ({
      podUid: 'uid-1',
      containerName: webSpec.name as string,
      containerId,
      hash,
      ...(attempt !== undefined ? { attempt } : {}),
    });
    const plan = planUpgrade({
      pods: [pod],
      records: [rec('c-old', oldHash), rec('c-new', web!.hash, 1)],
      from: '1.30',
      to: '1.31',
    });
    expect(plan.entries.map((e) => [e.containerId, e.action])).toEqual([
      ['c-old', 'unknown'],
      ['c-new', 'rewrite'],
    ]);
    // With both attempts the old one is superseded.
    const ordered = planUpgrade({
      pods: [pod],
      records: [rec('c-old', oldHash, 0), rec('c-new', web!.hash, 1)],
      from: '1.30',
      to: '1.31',
    });
    expect(ordered.entries.map((e) => [e.containerId, e.action])).toEqual([
      ['c-old', 'keep'],
      ['c-new', 'rewrite'],
    ]);
    expect(ordered.counts.unknown).toBe(0);
  });

  it('attempts of another container name are not of this container', () => {
    const pod = { metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [webSpec] } };
    const plan = planUpgrade({
      pods: [pod],
      records: [
        { podUid: 'uid-1', containerName: 'sidecar-gone', containerId: 'c0', hash: oldHash, attempt: 0 },
        { podUid: 'uid-1', containerName: webSpec.name as string, containerId: 'c1', hash: web!.hash, attempt: 1 },
      ],
      from: '1.30',
      to: '1.31',
    });
    expect(plan.entries.map((e) => [e.containerId, e.action])).toEqual([
      ['c0', 'unknown'],
      ['c1', 'rewrite'],
    ]);
  });
});
