/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- fake served objects, untyped JSON on purpose */
/**
 * The snapshot and audit of the window: what it reads from served objects, and that every
 * difference between two snapshots is a finding naming its node, pod or container.
 */
import { describe, expect, it } from 'vitest';
import type { ApiCall } from '../../src/fleet/window-guard.js';
import {
  auditWindow,
  parseSnapshot,
  podSnapshot,
  takeSnapshot,
  type WindowSnapshot,
} from '../../src/fleet/window-audit.js';

type Obj = Record<string, any>;

function servedPod(name: string, uid: string, id: string, restarts = 0, ready = 'True'): Obj {
  return {
    metadata: { namespace: 'shop', name, uid },
    status: {
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: '2026-12-04T09:00:00Z' },
        { type: 'Ready', status: ready, lastTransitionTime: '2026-12-04T09:00:05Z' },
      ],
      initContainerStatuses: [{ name: 'init', containerID: 'containerd://i1', restartCount: 0, ready: false }],
      containerStatuses: [
        { name: 'web', containerID: `containerd://${id}`, restartCount: restarts, ready: ready === 'True' },
      ],
    },
  };
}

const servedNode: Obj = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name: 'node-a' },
  spec: {},
  status: {
    conditions: [
      { type: 'MemoryPressure', status: 'False', lastTransitionTime: '2026-12-01T00:00:00Z', lastHeartbeatTime: 'x' },
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-01T00:00:10Z', lastHeartbeatTime: 'y' },
    ],
  },
};

/** An apiserver serving `node` and `pods`, the pods in pages of one (the audit must follow `continue`). */
function served(node: Obj, pods: Obj[]): ApiCall {
  return (_method, path) => {
    if (path === '/api/v1/nodes/node-a') return Promise.resolve({ status: 200, body: node, text: '' });
    const url = new URL(path, 'https://x');
    expect(url.searchParams.get('fieldSelector')).toBe('spec.nodeName=node-a');
    const at = Number(url.searchParams.get('continue') ?? '0');
    const next = at + 1 < pods.length ? String(at + 1) : '';
    return Promise.resolve({
      status: 200,
      body: { kind: 'PodList', metadata: { continue: next }, items: pods.slice(at, at + 1) },
      text: '',
    });
  };
}

const snap = (node: Obj, pods: Obj[]): Promise<WindowSnapshot> =>
  takeSnapshot(served(node, pods), 'node-a', new Date('2026-12-04T10:00:00Z'));

describe('takeSnapshot', () => {
  it('keeps conditions without heartbeats, taints, and per pod (every page) its UID, Ready and containers', async () => {
    const s = await snap(servedNode, [servedPod('b', 'u2', 'c2'), servedPod('a', 'u1', 'c1')]);
    expect(s.conditions).toEqual([
      { type: 'MemoryPressure', status: 'False', lastTransitionTime: '2026-12-01T00:00:00Z' },
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-01T00:00:10Z' },
    ]);
    expect(s.pods.map((p) => p.name)).toEqual(['a', 'b']);
    expect(s.pods[0]).toEqual({
      namespace: 'shop',
      name: 'a',
      uid: 'u1',
      ready: 'True',
      readySince: '2026-12-04T09:00:05Z',
      containers: [
        { list: 'initContainers', name: 'init', containerID: 'containerd://i1', restartCount: 0, ready: false },
        { list: 'containers', name: 'web', containerID: 'containerd://c1', restartCount: 0, ready: true },
      ],
    });
    expect(parseSnapshot(JSON.parse(JSON.stringify(s)), 'before.json')).toEqual(s);
  });

  it('refuses a 200 that is not the Node or not a PodList with items (a snapshot of no pods would audit nothing)', async () => {
    const answering =
      (node: unknown, list: unknown): ApiCall =>
      (_method, path) =>
        Promise.resolve({ status: 200, body: path.startsWith('/api/v1/nodes/') ? node : list, text: '' });
    const refusal = (call: ApiCall) =>
      takeSnapshot(call, 'node-a').then(
        () => 'no error',
        (e: unknown) => (e as Error).message,
      );
    expect(await refusal(answering({ kind: 'Status', status: 'Success' }, { kind: 'PodList', items: [] }))).toBe(
      'INVALID_OPTION at ["/api/v1/nodes/node-a"].kind: expected a Node (got kind "Status")',
    );
    expect(await refusal(answering(servedNode, { kind: 'PodList' }))).toMatch(
      /^INVALID_OPTION at .*\.kind: expected a PodList with items \(got kind "PodList"\)$/,
    );
    expect(await refusal(answering(servedNode, { items: [] }))).toMatch(
      /expected a PodList with items \(got no kind\)$/,
    );
  });

  it('refuses what is no snapshot, naming where', () => {
    expect(() =>
      parseSnapshot(
        { kind: 'WindowSnapshot', node: 'n', takenAt: 't', conditions: [], taints: [], pods: [{}] },
        'f.json',
      ),
    ).toThrow(/f\.json\.pods\.0\.namespace|f\.json.*pods.*0.*namespace/);
  });
});

describe('auditWindow', () => {
  it('finds nothing when nothing changed but heartbeats', async () => {
    const before = await snap(servedNode, [servedPod('a', 'u1', 'c1')]);
    const beats = structuredClone(servedNode);
    for (const c of beats['status']['conditions']) c['lastHeartbeatTime'] = 'later';
    expect(auditWindow(before, await snap(beats, [servedPod('a', 'u1', 'c1')]))).toEqual([]);
  });

  it('names each difference: node condition, taint, restarted container, pod Ready, pod replaced, gone and added', async () => {
    const before = await snap(servedNode, [
      servedPod('a', 'u1', 'c1'),
      servedPod('b', 'u2', 'c2'),
      servedPod('c', 'u3', 'c3'),
      servedPod('d', 'u4', 'c4'),
      servedPod('e', 'u5', 'c5'),
    ]);
    const node = structuredClone(servedNode);
    node['status']['conditions'][1] = { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-04T10:01:00Z' };
    node['spec']['taints'] = [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }];
    const notReady = servedPod('c', 'u3', 'c3');
    notReady['status']['conditions'][1]['lastTransitionTime'] = '2026-12-04T10:00:40Z';
    const after = await snap(node, [
      servedPod('a', 'u1', 'c1-new', 1), // restarted
      servedPod('b', 'u2', 'c2'), // unchanged
      notReady, // went NotReady and back
      servedPod('d', 'u4-other', 'c9'), // deleted and recreated
      servedPod('f', 'u6', 'c6'), // new
    ]);
    expect(auditWindow(before, after)).toEqual([
      {
        kind: 'node-condition',
        subject: 'node/node-a Ready',
        before: 'True since 2026-12-01T00:00:10Z',
        after: 'True since 2026-12-04T10:01:00Z',
      },
      {
        kind: 'node-taint',
        subject: 'node/node-a',
        before: 'absent',
        after: 'node.kubernetes.io/unreachable:NoExecute',
      },
      {
        kind: 'container-restarted',
        subject: 'container shop/a/web',
        before: 'containerd://c1 restarts 0',
        after: 'containerd://c1-new restarts 1',
      },
      {
        kind: 'pod-ready',
        subject: 'pod shop/c',
        before: 'True since 2026-12-04T09:00:05Z',
        after: 'True since 2026-12-04T10:00:40Z',
      },
      { kind: 'pod-replaced', subject: 'pod shop/d', before: 'u4', after: 'u4-other' },
      { kind: 'pod-gone', subject: 'pod shop/e', before: 'u5', after: 'absent' },
      { kind: 'pod-added', subject: 'pod shop/f', before: 'absent', after: 'u6' },
    ]);
  });

  it('a container whose readiness changed, and one no longer reported', () => {
    const before = podSnapshot(servedPod('a', 'u1', 'c1'));
    const after = podSnapshot(servedPod('a', 'u1', 'c1'));
    after.containers[1]!.ready = false;
    after.containers.splice(0, 1);
    const wrap = (p: typeof before): WindowSnapshot => ({
      kind: 'WindowSnapshot',
      node: 'node-a',
      takenAt: 't',
      conditions: [],
      taints: [],
      pods: [p],
    });
    expect(auditWindow(wrap(before), wrap(after)).map((f) => `${f.kind} ${f.subject}`)).toEqual([
      'container-gone container shop/a/init',
      'container-ready container shop/a/web',
    ]);
  });
});
