/**
 * decide() is planUpgrade's only evaluator: the pod's sandbox and a static pod's UID across a
 * minor upgrade are its first rows (a verdict with a rule, not a later pass over the entries), and
 * a node plan's records keep the facts they have (a crictl record's runtime stays `unknown`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decide, resolveGates } from '../../src/kubelet/index.js';
import { hashContainer } from '../../src/index.js';
import { releaseInfo } from '../../src/releases/index.js';
import { planUpgrade } from '../../src/plan/plan-upgrade.js';
import { formatNodePlan, parseNodePlan, planNodeUpgrade } from '../../src/node-upgrade/index.js';
import { restartRule } from '../../src/kubelet/restart-rules.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-plan-decide-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
const setup = { name: 'setup', image: 'busybox' };
const labels = (name: string) => ({
  'io.kubernetes.pod.name': 'web-0',
  'io.kubernetes.pod.namespace': 'default',
  'io.kubernetes.pod.uid': 'uid-1',
  'io.kubernetes.container.name': name,
});
const record = (id: string, name: string, hash: string) =>
  JSON.stringify({ status: { id, labels: labels(name), annotations: { 'io.kubernetes.container.hash': hash } } });
const pods = [
  {
    metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' },
    spec: { initContainers: [setup], containers: [web] },
  },
];
// 1.30's hash of `web`: a rewrite without sandboxes; `setup` is an init container (never compared).
const records = [record('c1', 'web', '590c88e0'), record('c2', 'setup', '1')];

describe('decide(): the pod-level rows come first', () => {
  const info = releaseInfo('1.31');
  const base = {
    info,
    gates: resolveGates(info, {}, []),
    expected: 1n,
    stored: 1n,
    expectedWithoutResources: () => 0n,
    storedWithoutResources: 0n,
    container: web,
    path: [],
    runtime: { state: 'running' as const },
  };

  it('a changed sandbox recreates the pod, before the role and the hash are looked at', () => {
    for (const role of ['container', 'init', 'sidecar', 'ephemeral'] as const) {
      const v = decide({ ...base, role, staticPod: false, sandboxChange: 'no sandbox' });
      expect(v).toMatchObject({ action: 'restart', ruleId: 'pod-sandbox-changed', recreatesPod: true });
      expect(v.ruleSource).toBe(restartRule('pod-sandbox-changed').source);
      expect(v.reason).toContain('PodSandboxChanged');
    }
    // A sandbox that fits (null) or was not read (absent): the container's own rows decide.
    expect(decide({ ...base, role: 'container', staticPod: false, sandboxChange: null })).toMatchObject({
      action: 'keep',
      ruleId: 'hash',
      recreatesPod: false,
    });
    expect(decide({ ...base, role: 'init', staticPod: false })).toMatchObject({ ruleId: 'init-not-compared' });
  });

  it("a static pod's generated UID changes across a minor upgrade only", () => {
    const staticPod = { ...base, role: 'container' as const, staticPod: true };
    expect(decide({ ...staticPod, upgradeFrom: releaseInfo('1.30') })).toMatchObject({
      action: 'restart',
      ruleId: 'static-pod-kubelet-upgrade',
      recreatesPod: true,
    });
    expect(decide({ ...staticPod, upgradeFrom: releaseInfo('1.30'), staticUidFixed: true }).ruleId).toBe('hash');
    expect(decide({ ...staticPod, upgradeFrom: releaseInfo('v1.31.4') }).ruleId).toBe('hash');
    expect(decide({ ...staticPod, role: 'container', staticPod: false, upgradeFrom: releaseInfo('1.30') }).ruleId).toBe(
      'hash',
    );
  });

  it('a not-compared verdict says whether a later release compares it (the sidecar rewrite follows it)', () => {
    const sidecar = decide({ ...base, info: releaseInfo('1.30'), role: 'sidecar', staticPod: false, stored: 2n });
    expect(sidecar).toMatchObject({ action: 'keep', ruleId: 'sidecar-not-compared', comparedLater: true });
    const init = decide({ ...base, role: 'init', staticPod: false, stored: 2n });
    expect(init).toMatchObject({ action: 'keep', ruleId: 'init-not-compared', comparedLater: false });
  });
});

describe('planUpgrade: the sandbox is a row of the decision', () => {
  it('without sandboxes: the rewrite and the init container kept', () => {
    const plan = planUpgrade({ pods, records, from: '1.30', to: '1.31' });
    expect(plan.entries.map((e) => [e.containerName, e.action, e.ruleId])).toEqual([
      ['web', 'rewrite', 'hash'],
      ['setup', 'keep', 'init-not-compared'],
    ]);
    expect(plan.sandboxFindings).toBeUndefined();
  });

  it('a pod with no sandbox: every entry will-restart under pod-sandbox-changed, no change left behind', () => {
    const plan = planUpgrade({ pods, records, from: '1.30', to: '1.31', sandboxes: [] });
    expect(plan.entries.map((e) => [e.containerName, e.action, e.ruleId])).toEqual([
      ['web', 'will-restart', 'pod-sandbox-changed'],
      ['setup', 'will-restart', 'pod-sandbox-changed'],
    ]);
    for (const e of plan.entries) {
      expect('change' in e).toBe(false);
      expect(e.ruleSource).toBe(restartRule('pod-sandbox-changed').source);
      expect(e.reason).toBe(
        'the runtime holds no sandbox record for the pod: the kubelet recreates the whole pod (PodSandboxChanged), whatever the hashes',
      );
    }
    expect(plan.counts).toEqual({ keep: 0, rewrite: 0, 'will-restart': 2, unknown: 0 });
    expect(plan.sandboxFindings).toEqual([
      {
        podUid: 'uid-1',
        podName: 'web-0',
        podNamespace: 'default',
        reason: 'the runtime holds no sandbox record for the pod',
      },
    ]);
  });

  it('a fitting sandbox changes nothing; a host-network one does not fit a pod-network pod', () => {
    const fits = planUpgrade({
      pods,
      records,
      from: '1.30',
      to: '1.31',
      sandboxes: [{ id: 's1', podUid: 'uid-1', hostNetwork: false, ip: '10.0.0.7' }],
    });
    expect(fits.entries.map((e) => e.action)).toEqual(['rewrite', 'keep']);
    expect(fits.sandboxFindings).toEqual([]);
    const wrong = planUpgrade({
      pods,
      records,
      from: '1.30',
      to: '1.31',
      sandboxes: [{ id: 's1', podUid: 'uid-1', hostNetwork: true, ip: '' }],
    });
    expect(wrong.entries.map((e) => e.ruleId)).toEqual(['pod-sandbox-changed', 'pod-sandbox-changed']);
    expect(wrong.sandboxFindings?.[0]?.reason).toContain('network namespace');
  });
});

describe('node plans keep the facts the records have', () => {
  it("a crictl record file's runtime is what it shows (unknown), not containerd", async () => {
    const file = join(dir, 'crictl-web.json');
    writeFileSync(file, records[0]!);
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'records', files: [file] },
    });
    const web0 = plan.entries.find((e) => e.containerName === 'web');
    expect(web0).toMatchObject({ action: 'rewrite', runtime: 'unknown', location: file, containerId: 'c1' });
  });
});

describe('a keep that a missing input could turn into a restart is unknown', () => {
  // 1.33 turns InPlacePodVerticalScaling on: a pending resize of a RestartContainer resource restarts
  // the container, and the plan does not know the running container's resources.
  const resized = {
    name: 'web',
    image: 'nginx:1.27',
    resources: { limits: { cpu: '500m' } },
    resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }],
  };
  const podOf = (c: object) => [
    { metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [c] } },
  ];
  const recordOf = (c: object) => [record('c1', 'web', hashContainer(c, { kubeletVersion: '1.32' }))];

  it('with a resizePolicy that restarts: unknown, naming the input', () => {
    const plan = planUpgrade({ pods: podOf(resized), records: recordOf(resized), from: '1.32', to: '1.33' });
    expect(plan.entries.map((e) => e.action)).toEqual(['unknown']);
    expect(plan.entries[0]!.reason).toContain("the running container's resources (ContainerStatus.resources)");
    expect(plan.entries[0]!.reason).toContain('the stored hash already equals the 1.33 hash');
  });

  it('its node plan file is one apply reads: the unknown entry names no rule (the real 1.32 → 1.33 crossing found one that did)', async () => {
    const file = join(dir, 'crictl-resized.json');
    writeFileSync(file, recordOf(resized)[0]!);
    const plan = await planNodeUpgrade({
      pods: podOf(resized),
      from: '1.32',
      to: '1.33',
      store: { runtime: 'records', files: [file] },
    });
    expect(plan.entries.map((e) => [e.action, e.ruleId])).toEqual([['unknown', undefined]]);
    expect(parseNodePlan(formatNodePlan(plan)).entries).toHaveLength(1);
  });

  it('without one (a resize happens in place): keep', () => {
    const inPlace = { ...resized, resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] };
    const plan = planUpgrade({ pods: podOf(inPlace), records: recordOf(inPlace), from: '1.32', to: '1.33' });
    expect(plan.entries.map((e) => e.action)).toEqual(['keep']);
  });

  it('with the gate off at the new kubelet, the resize rule does not apply: keep', () => {
    const plan = planUpgrade({
      pods: podOf(resized),
      records: recordOf(resized),
      from: '1.32',
      to: '1.33',
      featureGates: { InPlacePodVerticalScaling: false },
    });
    expect(plan.entries.map((e) => e.action)).toEqual(['keep']);
  });
});

describe("plan reads ContainerStatus.resources: the running container's resources decide a resize", () => {
  // The container asks for 500m; its status says what it runs with. 1.27–1.32 kubelets compare the
  // spec with the status itself (kuberuntime_manager.go:553 (v1.31.14), status written by
  // kubelet_pods.go:2150 (v1.29.0)); 1.33+ with the actuated checkpoint the same kubelet wrote
  // (kuberuntime_manager.go:601 (v1.33.13)), which the status reports (kubelet_pods.go:2705 (v1.37.2)).
  const web = (policy: string) => ({
    name: 'web',
    image: 'nginx:1.27',
    // As served: the apiserver defaults requests to limits.
    resources: { limits: { cpu: '500m' }, requests: { cpu: '500m' } },
    resizePolicy: [{ resourceName: 'cpu', restartPolicy: policy }],
  });
  const running = (cpu: string, extra: object = {}) => ({
    containerStatuses: [
      { name: 'web', state: { running: {} }, resources: { limits: { cpu }, requests: { cpu } }, ...extra },
    ],
  });
  const plan = (c: object, status: object, from: string, to: string, gates?: Record<string, boolean>) =>
    planUpgrade({
      pods: [{ metadata: { uid: 'uid-1', name: 'web-0', namespace: 'default' }, spec: { containers: [c] }, status }],
      records: [record('c1', 'web', hashContainer(c, { kubeletVersion: from }))],
      from,
      to,
      ...(gates ? { featureGates: gates } : {}),
    }).entries[0]!;

  it('resources as the spec asks (1.33 → 1.34): keep, where without them the plan says unknown', () => {
    expect(plan(web('RestartContainer'), running('500m'), '1.33', '1.34').action).toBe('keep');
    expect(plan(web('RestartContainer'), {}, '1.33', '1.34').action).toBe('unknown');
  });

  it('a resize not applied yet under RestartContainer (1.33 → 1.34): will-restart, by the resize rule', () => {
    const entry = plan(web('RestartContainer'), running('250m'), '1.33', '1.34');
    expect([entry.action, entry.ruleId]).toEqual(['will-restart', 'resize-policy']);
    expect(entry.reason).toContain('ContainerStatus.resources');
  });

  it('the same resize under NotRequired: keep, by the resize rule (resized in place)', () => {
    const entry = plan(web('NotRequired'), running('250m'), '1.33', '1.34');
    expect([entry.action, entry.ruleId]).toEqual(['keep', 'resize-policy']);
  });

  it('a hash the kubelet compares differently (1.30 → 1.31, the gate on): rewriting it does not stop the resize restart', () => {
    const gates = { InPlacePodVerticalScaling: true };
    expect(plan(web('RestartContainer'), running('250m'), '1.30', '1.31', gates).action).toBe('will-restart');
    expect(plan(web('RestartContainer'), running('500m'), '1.30', '1.31', gates).action).toBe('rewrite');
  });

  it('a resize not admitted yet (PodResizePending from 1.33, status.resize Deferred before): unknown, saying so', () => {
    const pending = {
      ...running('250m'),
      conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Deferred' }],
    };
    const at134 = plan(web('RestartContainer'), pending, '1.33', '1.34');
    expect(at134.action).toBe('unknown');
    expect(at134.reason).toContain('the PodResizePending condition (Deferred): the resize is not admitted yet');
    const at131 = plan(web('RestartContainer'), { ...running('250m'), resize: 'Deferred' }, '1.31', '1.32', {
      InPlacePodVerticalScaling: true,
    });
    expect([at131.action, at131.reason.includes('status.resize Deferred')]).toEqual(['unknown', true]);
  });

  it('across 1.32 → 1.33 the status does not tell (no actuated checkpoint yet): unknown', () => {
    const entry = plan(web('RestartContainer'), running('500m'), '1.32', '1.33');
    expect(entry.action).toBe('unknown');
    expect(entry.reason).toContain('wrote no actuated checkpoint');
  });

  it('a container that is not running reports its allocated resources, not what it runs with: not read', () => {
    const waiting = {
      containerStatuses: [{ name: 'web', state: { waiting: {} }, resources: { limits: { cpu: '500m' } } }],
    };
    expect(plan(web('RestartContainer'), waiting, '1.33', '1.34').action).toBe('unknown');
  });
});
