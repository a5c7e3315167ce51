/**
 * The runtime's word and the API's placement count (issue 37): a container CRI reports not running,
 * or in a sandbox it reports NOTREADY, is never "keep running"; a record of a pod the API places on
 * another node is never "keep".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CriListing } from '../../src/discovery/index.js';
import { verifyNode, withRuntimeState } from '../../src/node-upgrade/index.js';
import { cli } from '../support/cli.js';
import { fixtureContainers, fixturePod, type FixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { writePodList } from '../support/node-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-runtime-word-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type PlacedPod = FixturePod & { spec: { nodeName: string } };
const on = (pod: FixturePod, nodeName: string): PlacedPod => ({ ...pod, spec: { ...pod.spec, nodeName } });

/** A CRI-O node whose records were written by a 1.31 kubelet for `pods`; the API pods are `apiPods`. */
function crioNode(name: string, pods: FixturePod[], apiPods: unknown[]) {
  const fixtures = fixtureContainers(pods, '1.31');
  const graph = join(dir, name, 'graph');
  const run = join(dir, name, 'run');
  writeCrioNode(graph, run, fixtures);
  const podsFile = writePodList(join(dir, name, 'pods.json'), apiPods);
  return { fixtures, graph, run, podsFile, store: ['--crio-root', graph, '--crio-runroot', run] };
}

describe('records of pods the API places on another node are never keep', () => {
  it('verify --node node-a over containers of pods on node-b: unknown, exit 1 (not "all keep running")', async () => {
    const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
    // Pod 0 is on node-a; pods 1 and 2 are on node-b, though their records are in node-a's store.
    const api = [on(pods[0]!, 'node-a'), on(pods[1]!, 'node-b'), on(pods[2]!, 'node-b')];
    const node = crioNode('other-node', pods, api);
    const r = await cli([
      'verify',
      '--kubelet',
      '1.31',
      '--pods',
      node.podsFile,
      ...node.store,
      '--node',
      'node-a',
      '--json',
    ]);
    expect(r.code).toBe(1);
    const rows = (JSON.parse(r.out) as { rows: { action: string; podUid: string; reason: string }[] }).rows;
    for (const row of rows) {
      const pod = api.find((p) => p.metadata.uid === row.podUid)!;
      if (pod.spec.nodeName === 'node-a') expect(row.action).toBe('keep');
      else {
        expect(row.action).toBe('unknown');
        expect(row.reason).toContain(`on node node-b, not on node-a: this node's kubelet kills its containers`);
      }
    }
    expect(rows.filter((x) => x.action === 'unknown').length).toBe(
      node.fixtures.filter((f) => f.pod !== pods[0]).length,
    );
  });

  it('without --node, records of pods on two nodes: every one unknown, naming both nodes', async () => {
    const pods = Array.from({ length: 2 }, (_, i) => fixturePod(i));
    const node = crioNode('two-nodes', pods, [on(pods[0]!, 'node-a'), on(pods[1]!, 'node-b')]);
    const r = await cli(['verify', '--kubelet', '1.31', '--pods', node.podsFile, ...node.store, '--json']);
    expect(r.code).toBe(1);
    const rows = (JSON.parse(r.out) as { rows: { action: string; reason: string }[] }).rows;
    expect(rows.length).toBe(node.fixtures.length);
    for (const row of rows) {
      expect(row.action).toBe('unknown');
      expect(row.reason).toContain('pods on 2 nodes (node-a, node-b)');
    }
  });
});

describe('the runtime’s word counts (CRI container and sandbox states)', () => {
  it('EXITED and in a NOTREADY sandbox are not keep; RUNNING in a READY sandbox is; the plan given is not modified', async () => {
    const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
    const node = crioNode('cri-states', pods, pods);
    const { ok, plan } = await verifyNode({
      kubeletVersion: '1.31',
      pods,
      store: { runtime: 'cri-o', graphRoot: node.graph, runRoot: node.run },
    });
    expect(ok).toBe(true);
    const snapshot = structuredClone(plan);
    const [exited, inNotReady, ...running] = node.fixtures.filter(
      (f, i, all) => all.findIndex((g) => g.sandboxId === f.sandboxId) === i,
    );
    const listing: CriListing = {
      version: 'v1',
      containers: node.fixtures.map((f) => ({
        id: f.id,
        podSandboxId: f.sandboxId,
        name: f.container.name as string,
        attempt: 0,
        state: f === exited ? 2 : 1,
        labels: f.labels,
        annotations: f.annotations,
      })),
      sandboxes: [...new Set(node.fixtures.map((f) => f.sandboxId))].map((id) => ({
        id,
        podUid: node.fixtures.find((f) => f.sandboxId === id)!.pod.metadata.uid,
        state: id === inNotReady!.sandboxId ? 1 : 0,
      })),
    };
    const judged = withRuntimeState(plan, listing);
    expect(plan).toEqual(snapshot);
    const actionOf = (id: string) => judged.entries.find((e) => e.containerId === id)!;
    expect(actionOf(exited!.id)).toMatchObject({ action: 'unknown', reason: expect.stringContaining('EXITED (CRI)') });
    for (const f of node.fixtures.filter((x) => x.sandboxId === inNotReady!.sandboxId))
      expect(actionOf(f.id)).toMatchObject({ action: 'will-restart', reason: expect.stringContaining('NOTREADY') });
    for (const f of running) expect(actionOf(f.id).action).toBe('keep');
    expect(judged.counts).toEqual({
      keep: judged.entries.filter((e) => e.action === 'keep').length,
      rewrite: 0,
      'will-restart': node.fixtures.filter((x) => x.sandboxId === inNotReady!.sandboxId).length,
      unknown: 1,
    });
  });
  it('a record the runtime does not serve is not keep or rewrite (plan --runtime-endpoint over a store CRI has not read)', async () => {
    const pods = Array.from({ length: 2 }, (_, i) => fixturePod(i));
    const node = crioNode('cri-not-served', pods, pods);
    const { plan } = await verifyNode({
      kubeletVersion: '1.31',
      pods,
      store: { runtime: 'cri-o', graphRoot: node.graph, runRoot: node.run },
    });
    const [missing, ...served] = node.fixtures;
    const listing: CriListing = {
      version: 'v1',
      containers: served.map((f) => ({
        id: f.id,
        podSandboxId: f.sandboxId,
        name: f.container.name as string,
        attempt: 0,
        state: 1,
        labels: f.labels,
        annotations: f.annotations,
      })),
      sandboxes: [...new Set(node.fixtures.map((f) => f.sandboxId))].map((id) => ({ id, podUid: '', state: 0 })),
    };
    const judged = withRuntimeState(plan, listing);
    expect(judged.entries.find((e) => e.containerId === missing!.id)).toMatchObject({
      action: 'unknown',
      reason: expect.stringContaining('the runtime does not serve this container over CRI v1 (its store holds it)'),
    });
    for (const f of served) expect(judged.entries.find((e) => e.containerId === f.id)!.action).toBe('keep');
    expect(judged.counts).toMatchObject({ keep: served.length, unknown: 1 });
    // Nothing served at all (containerd started before the records were created): every record unknown.
    expect(withRuntimeState(plan, { version: 'v1', containers: [], sandboxes: [] }).counts).toMatchObject({
      keep: 0,
      unknown: node.fixtures.length,
    });
  });
});
