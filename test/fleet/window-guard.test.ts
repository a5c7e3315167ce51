/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- fake served objects, untyped JSON on purpose */
/**
 * The window guard against an in-memory apiserver that keeps resourceVersions as the real one does
 * (a PUT with a stale one is a 409): what it writes, when it hands over, and its deadline.
 */
import { describe, expect, it } from 'vitest';
import type { ApiAnswer } from '../../src/fleet/api-client.js';
import { holdNode, microTime, versionMatches, type ApiCall } from '../../src/fleet/window-guard.js';

type Obj = Record<string, any>;

const NODE = 'node-a';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE}`;
const NODE_PATH = `/api/v1/nodes/${NODE}`;

/** A fake apiserver holding one Lease (unless `noLease`) and one Node; `tick` advances its clock. */
function fakeCluster(options: { noLease?: boolean; kubeletVersion?: string } = {}) {
  let clock = Date.parse('2026-12-04T10:00:00Z');
  let rv = 100;
  const writes: { method: string; path: string; body: Obj }[] = [];
  const lease: Obj | undefined = options.noLease
    ? undefined
    : {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: NODE, namespace: 'kube-node-lease', resourceVersion: String(rv) },
        spec: { holderIdentity: NODE, leaseDurationSeconds: 40, renewTime: '2026-12-04T09:59:55.000000Z' },
      };
  const node: Obj = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE, resourceVersion: String(++rv) },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2026-12-04T09:59:50Z' },
        { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-12-04T09:59:50Z' },
      ],
      nodeInfo: { kubeletVersion: options.kubeletVersion ?? 'v1.30.14' },
    },
  };
  const ok = (body: Obj): ApiAnswer => ({ status: 200, body: structuredClone(body), text: '' });
  const put = (current: Obj, body: Obj): ApiAnswer => {
    if (body['metadata']['resourceVersion'] !== current['metadata']['resourceVersion'])
      return { status: 409, body: { kind: 'Status', message: 'the object has been modified' }, text: '' };
    Object.assign(current, structuredClone(body));
    current['metadata']['resourceVersion'] = String(++rv);
    return ok(current);
  };
  const call: ApiCall = (method, path, body) => {
    if (method !== 'GET') writes.push({ method, path, body: structuredClone(body as Obj) });
    if (path === LEASE) {
      if (lease === undefined) return Promise.resolve({ status: 404, body: { kind: 'Status' }, text: '' });
      return Promise.resolve(method === 'GET' ? ok(lease) : put(lease, body as Obj));
    }
    if (path === NODE_PATH && method === 'GET') return Promise.resolve(ok(node));
    if (path === `${NODE_PATH}/status` && method === 'PUT') return Promise.resolve(put(node, body as Obj));
    return Promise.resolve({ status: 404, body: undefined, text: 'no such path' });
  };
  return {
    call,
    writes,
    now: () => new Date(clock),
    advance: (ms: number) => (clock += ms),
    /** The (new) kubelet renews as itself and reports `version`. */
    kubeletRenews(version: string) {
      node['status']['nodeInfo'] = { kubeletVersion: version };
      node['metadata']['resourceVersion'] = String(++rv);
      if (lease) {
        lease['spec'] = { ...lease['spec'], renewTime: microTime(new Date(clock)) };
        lease['metadata']['resourceVersion'] = String(++rv);
      } else {
        const ready = (node['status']['conditions'] as Obj[]).find((c) => c['type'] === 'Ready')!;
        ready['lastHeartbeatTime'] = new Date(clock + 500).toISOString().replace(/\.\d{3}Z$/, 'Z');
      }
    },
  };
}

describe('holdNode', () => {
  it('renews only spec.renewTime of the node Lease, conditionally on the resourceVersion read, every interval; hands over to the target kubelet', async () => {
    const f = fakeCluster();
    let ticks = 0;
    const report = await holdNode(f.call, {
      node: NODE,
      target: '1.31',
      deadlineMs: 600_000,
      intervalMs: 10_000,
      now: f.now,
      sleep: (ms) => {
        f.advance(ms);
        if (++ticks === 6) f.kubeletRenews('v1.31.14');
        return Promise.resolve();
      },
    });
    expect(report).toMatchObject({
      mode: 'lease',
      outcome: 'handed-over',
      renewals: 6,
      conflicts: 0,
      foreignRenewal: true,
      kubeletVersion: 'v1.31.14',
    });
    expect(f.writes.map((w) => `${w.method} ${w.path}`)).toEqual(Array(6).fill(`PUT ${LEASE}`));
    const first = f.writes[0]!.body;
    expect(first['spec']).toEqual({
      holderIdentity: NODE,
      leaseDurationSeconds: 40,
      renewTime: '2026-12-04T10:00:00.000000Z',
    });
    expect(first['metadata']['resourceVersion']).toBe('100');
    expect(f.writes[1]!.body['spec']['renewTime']).toBe('2026-12-04T10:00:10.000000Z');
  });

  it('stops at the deadline when no kubelet renews, and says so', async () => {
    const f = fakeCluster();
    const report = await holdNode(f.call, {
      node: NODE,
      target: '1.31',
      deadlineMs: 60_000,
      intervalMs: 10_000,
      now: f.now,
      sleep: (ms) => Promise.resolve(void f.advance(ms)),
    });
    expect(report).toMatchObject({ outcome: 'deadline', renewals: 6, foreignRenewal: false });
    expect(report.message).toMatch(/no kubelet renewed/);
    expect(Date.parse(report.endedAt) - Date.parse(report.startedAt)).toBe(60_000);
  });

  it('does not hand over to a kubelet of another version: it stops renewing while that one renews, and reports it at the deadline', async () => {
    const f = fakeCluster();
    let ticks = 0;
    const report = await holdNode(f.call, {
      node: NODE,
      target: '1.31.14',
      deadlineMs: 60_000,
      intervalMs: 10_000,
      now: f.now,
      sleep: (ms) => {
        f.advance(ms);
        if (++ticks >= 2) f.kubeletRenews('v1.30.14'); // the old kubelet came back, renewing every interval
        return Promise.resolve();
      },
    });
    expect(report).toMatchObject({
      outcome: 'deadline',
      renewals: 2,
      foreignRenewal: true,
      kubeletVersion: 'v1.30.14',
    });
    expect(report.message).toMatch(/reports v1\.30\.14, not 1\.31\.14/);
  });

  it('a 409 (somebody wrote between read and write) is counted, and the next read tells who', async () => {
    const f = fakeCluster();
    let ticks = 0;
    const racing: ApiCall = async (method, path, body) => {
      if (method === 'PUT' && ticks === 1) f.kubeletRenews('v1.31.14');
      return f.call(method, path, body);
    };
    const report = await holdNode(racing, {
      node: NODE,
      target: '1.31',
      deadlineMs: 600_000,
      intervalMs: 10_000,
      now: f.now,
      sleep: (ms) => {
        f.advance(ms);
        ticks++;
        return Promise.resolve();
      },
    });
    expect(report).toMatchObject({ outcome: 'handed-over', renewals: 1, conflicts: 1 });
  });

  it('without a node Lease (before 1.14, or NodeLease off) it renews the Ready condition’s heartbeat in the node status, nothing else', async () => {
    const f = fakeCluster({ noLease: true });
    let ticks = 0;
    const report = await holdNode(f.call, {
      node: NODE,
      target: '1.16',
      deadlineMs: 600_000,
      intervalMs: 10_000,
      now: f.now,
      sleep: (ms) => {
        f.advance(ms);
        if (++ticks === 3) f.kubeletRenews('v1.16.15');
        return Promise.resolve();
      },
    });
    expect(report).toMatchObject({ mode: 'node-status', outcome: 'handed-over', renewals: 3 });
    expect(f.writes.map((w) => `${w.method} ${w.path}`)).toEqual(Array(3).fill(`PUT ${NODE_PATH}/status`));
    expect(f.writes[0]!.body['status']['conditions']).toEqual([
      { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2026-12-04T09:59:50Z' },
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-12-04T10:00:00Z' },
    ]);
  });

  it('a signal stops it', async () => {
    const f = fakeCluster();
    const stop = new AbortController();
    const report = await holdNode(f.call, {
      node: NODE,
      deadlineMs: 600_000,
      intervalMs: 10_000,
      now: f.now,
      signal: stop.signal,
      sleep: (ms) => {
        f.advance(ms);
        stop.abort();
        return Promise.resolve();
      },
    });
    expect(report).toMatchObject({ outcome: 'stopped', renewals: 1 });
  });

  it('refuses a Lease it may not read (403), naming the path', async () => {
    const denied: ApiCall = () =>
      Promise.resolve({ status: 403, body: { kind: 'Status', message: 'forbidden: User "x"' }, text: '' });
    await expect(holdNode(denied, { node: NODE, deadlineMs: 1, intervalMs: 1 })).rejects.toThrow(
      /kube-node-lease\/leases\/node-a.*HTTP 403: forbidden/,
    );
  });
});

describe('versionMatches', () => {
  it.each([
    ['v1.31.14', '1.31', true],
    ['v1.31.14', 'v1.31.14', true],
    ['v1.31.14+k3s1', '1.31.14', true],
    ['v1.31.14', '1.31.1', false],
    ['v1.310.0', '1.31', false],
    ['v1.30.14', '1.31', false],
  ])('%s is %s: %s', (reported, target, want) => {
    expect(versionMatches(reported, target)).toBe(want);
  });
});
