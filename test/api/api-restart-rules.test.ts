/**
 * Issue 11 acceptance: resize policies, static pods (edits and kubelet upgrades), running state,
 * sidecar startup probes, and plans that rewrite sidecars.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ruleReleases } from '../../src/kubelet/restart-rules.js';
import {
  containerChanged,
  hashContainer,
  planUpgrade,
  predictRestarts,
  RESTART_RULES,
  supportedReleases,
  type ContainerRecordInfo,
} from '../../src/index.js';

const RELEASES = supportedReleases();
const minor = (r: string): number => Number(r.split('.')[1]);

describe('resize policies (computePodResizeAction)', () => {
  const pod = (memory: string, cpu = '500m') => ({
    spec: {
      containers: [
        {
          name: 'app',
          image: 'app:1',
          resizePolicy: [
            { resourceName: 'memory', restartPolicy: 'RestartContainer' },
            { resourceName: 'cpu', restartPolicy: 'NotRequired' },
          ],
          resources: { limits: { memory, cpu } },
        },
      ],
    },
  });

  it('memory RestartContainer, limit 256Mi → 512Mi: restart at 1.33 and 1.35, and at 1.29 with the gate on', () => {
    for (const [release, featureGates] of [
      ['1.33', {}],
      ['1.35', {}],
      ['1.29', { InPlacePodVerticalScaling: true }],
    ] as const) {
      const c = predictRestarts(pod('256Mi'), pod('512Mi'), { kubeletVersion: release, featureGates }).containers[0]!;
      expect(c, release).toMatchObject({ action: 'restart', ruleId: 'resize-policy' });
      expect(c.reason).toContain('resize requires restart: memory limit 268435456 bytes → 536870912 bytes');
    }
  });

  it('a CPU change with NotRequired is resized in place: keep', () => {
    for (const [release, featureGates] of [
      ['1.29', { InPlacePodVerticalScaling: 'true' }],
      ['1.33', {}],
      ['1.35', {}],
    ] as const) {
      const c = predictRestarts(pod('256Mi', '500m'), pod('256Mi', '1500m'), { kubeletVersion: release, featureGates })
        .containers[0]!;
      expect(c, release).toMatchObject({ action: 'keep', ruleId: 'resize-policy' });
      expect(c.reason).toContain('resized in place: CPU limit 500m → 1500m');
    }
  });

  it('every release and gate setting: the resize rule holds exactly where the gate is on from 1.27 on', () => {
    for (const release of RELEASES) {
      const m = minor(release);
      for (const gate of m >= 27 && m < 35 ? [true, false] : [undefined]) {
        const featureGates = gate === undefined ? {} : { InPlacePodVerticalScaling: gate };
        const c = predictRestarts(pod('256Mi'), pod('512Mi'), { kubeletVersion: release, featureGates }).containers[0]!;
        const on = gate ?? m >= 33;
        // Gate off: the JSON-era hash covers resources (restart), 1.31+ hashes only name and image (keep).
        const expected = on && m >= 27 ? 'restart' : m <= 30 ? 'restart' : 'keep';
        expect(c.action, `${release} ${JSON.stringify(featureGates)}`).toBe(expected);
        expect(c.ruleId).toBe(on && m >= 27 ? 'resize-policy' : 'hash');
      }
    }
  });

  it('static pods are never resized in place', () => {
    const c = predictRestarts(pod('256Mi'), pod('512Mi'), { kubeletVersion: '1.35', staticPod: true }).containers[0]!;
    expect(c).toMatchObject({ action: 'restart', ruleId: 'static-pod-manifest-edit' });
  });

  it('1.27–1.32 take no resize action for a container without limits; CPU at or below the minimums counts as equal in 1.32 only', () => {
    const noLimits = (cpu: string) => ({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'a',
            resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }],
            resources: { requests: { cpu } },
          },
        ],
      },
    });
    const gates = { InPlacePodVerticalScaling: true };
    expect(
      predictRestarts(noLimits('100m'), noLimits('200m'), { kubeletVersion: '1.31', featureGates: gates })
        .containers[0]!.action,
    ).toBe('keep');
    expect(predictRestarts(noLimits('100m'), noLimits('200m'), { kubeletVersion: '1.33' }).containers[0]!.action).toBe(
      'restart',
    );
    // 1.32's upstream case "Update container CPU resources to equivalent value" (kuberuntime_manager_test.go
    // at v1.32.13): a 1m request and limit running as 2m and 10m is no resize. 1.27–1.31 compare raw
    // (no cm.Min* in computePodResizeAction at v1.31.14); 1.33+ compare with the actuated values, raw.
    const tiny = (request: string, limit: string) => ({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'a',
            resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }],
            resources: { requests: { cpu: request }, limits: { cpu: limit } },
          },
        ],
      },
    });
    const equivalent = (kubeletVersion: string) =>
      predictRestarts(tiny('2m', '10m'), tiny('1m', '1m'), { kubeletVersion, featureGates: gates }).containers[0]!
        .action;
    expect(equivalent('1.31')).toBe('restart');
    expect(equivalent('1.32')).toBe('keep');
    expect(equivalent('1.33')).toBe('restart');
  });
});

describe('static pods', () => {
  const manifest = (image: string, uid?: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'kube-apiserver', namespace: 'kube-system', ...(uid ? { uid } : {}) },
    spec: {
      initContainers: [{ name: 'prep', image: 'busybox' }],
      containers: [
        { name: 'kube-apiserver', image },
        { name: 'proxy', image: 'envoy:1' },
      ],
    },
  });

  it("a manifest changing one container's image restarts every container, at every release", () => {
    for (const release of RELEASES) {
      const p = predictRestarts(manifest('apiserver:1'), manifest('apiserver:2'), {
        kubeletVersion: release,
        staticPod: true,
      });
      expect(p.podRecreated).toBe(true);
      expect(p.containers.map((c) => c.action)).toEqual(['restart', 'restart', 'restart']);
      expect(p.containers.every((c) => c.ruleId === 'static-pod-manifest-edit')).toBe(true);
      expect(p.restarts).toBe(3);
    }
  });

  it('with metadata.uid in the manifest, only the changed container restarts', () => {
    const p = predictRestarts(manifest('apiserver:1', 'fixed'), manifest('apiserver:2', 'fixed'), {
      kubeletVersion: '1.31',
      staticPod: true,
    });
    expect(p.podRecreated).toBe(false);
    expect(p.containers.map((c) => [c.name, c.action])).toEqual([
      ['prep', 'keep'],
      ['kube-apiserver', 'restart'],
      ['proxy', 'keep'],
    ]);
  });

  const generatedUid = '9c1b7f6e5d4c3b2a19087f6e5d4c3b2a';
  const mirror = (uid: string) => ({
    metadata: {
      uid: 'mirror',
      name: 'kube-apiserver-node1',
      namespace: 'kube-system',
      annotations: { 'kubernetes.io/config.mirror': uid },
    },
    spec: manifest('apiserver:1').spec,
  });
  const records = (uid: string, release: string): ContainerRecordInfo[] =>
    ['kube-apiserver', 'proxy'].map((name) => ({
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerName: name,
      podName: 'kube-apiserver-node1',
      podNamespace: 'kube-system',
      podUid: uid,
      hash: hashContainer({ name, image: name === 'proxy' ? 'envoy:1' : 'apiserver:1' }, { kubeletVersion: release }),
      hashLocations: [],
    }));

  it('planUpgrade never says keep/rewrite for a static pod without metadata.uid across a minor upgrade', () => {
    for (let i = 0; i + 1 < RELEASES.length; i++) {
      const [from, to] = [RELEASES[i]!, RELEASES[i + 1]!];
      const plan = planUpgrade({ pods: [mirror(generatedUid)], records: records(generatedUid, from), from, to });
      for (const e of plan.entries) {
        expect(e, `${from} → ${to}`).toMatchObject({ action: 'will-restart', ruleId: 'static-pod-kubelet-upgrade' });
      }
    }
    // 1.30 → 1.31: a kubeadm kube-apiserver mirror pod does not survive.
    const plan = planUpgrade({
      pods: [mirror(generatedUid)],
      records: records(generatedUid, '1.30'),
      from: '1.30',
      to: '1.31',
    });
    expect(plan.counts).toMatchObject({ keep: 0, rewrite: 0, 'will-restart': 2 });
  });

  it('a patch upgrade keeps the internal types; a UID set in the manifest survives minors', () => {
    const patch = planUpgrade({
      pods: [mirror(generatedUid)],
      records: records(generatedUid, '1.30'),
      from: '1.30.1',
      to: '1.30.9',
    });
    expect(patch.counts.keep).toBe(2);
    const set = planUpgrade({
      pods: [mirror('kube-apiserver-fixed')],
      records: records('kube-apiserver-fixed', '1.30'),
      from: '1.30',
      to: '1.31',
    });
    expect(set.counts.rewrite).toBe(2);
    const proven = planUpgrade({
      pods: [mirror(generatedUid)],
      records: records(generatedUid, '1.30'),
      from: '1.30',
      to: '1.31',
      staticPodManifests: [manifest('apiserver:1', generatedUid)],
    });
    expect(proven.counts.rewrite).toBe(2);
  });
});

describe('running state, initialisation and sidecar startup probes', () => {
  const app = { name: 'app', image: 'app:2' };
  const old = hashContainer({ name: 'app', image: 'app:1' }, { kubeletVersion: '1.31' });

  it('without states the verdict says what it assumed', () => {
    const r = containerChanged(app, { hash: old }, { kubeletVersion: '1.31' });
    expect(r).toMatchObject({ action: 'restart', changed: true });
    expect(r.assumptions).toEqual([
      'the container is running (no state given)',
      'the pod has initialised (no pod status given)',
    ]);
  });

  it('an exited container of a Never/OnFailure pod is not started again because its spec changed', () => {
    const exited = { state: { terminated: { exitCode: 0 } } };
    expect(
      containerChanged(app, { hash: old }, { kubeletVersion: '1.31', state: exited, restartPolicy: 'Never' }).action,
    ).toBe('stays-stopped');
    expect(
      containerChanged(app, { hash: old }, { kubeletVersion: '1.31', state: exited, restartPolicy: 'OnFailure' })
        .action,
    ).toBe('stays-stopped');
    expect(
      containerChanged(
        app,
        { hash: old },
        { kubeletVersion: '1.31', state: { state: 'exited', exitCode: 2 }, restartPolicy: 'OnFailure' },
      ).action,
    ).toBe('start');
    expect(containerChanged(app, { hash: old }, { kubeletVersion: '1.31', state: exited }).assumptions).toContain(
      'the pod restartPolicy is Always (none given)',
    );
  });

  it('regular containers wait for initialisation', () => {
    expect(containerChanged(app, { hash: old }, { kubeletVersion: '1.31', podInitialized: false })).toMatchObject({
      action: 'deferred',
      ruleId: 'pod-not-initialised',
    });
  });

  it('a sidecar with a pending startup probe is deferred from 1.32; without a state the verdict assumes success', () => {
    const sidecar = {
      name: 'proxy',
      image: 'envoy:2',
      restartPolicy: 'Always',
      startupProbe: { exec: { command: ['true'] } },
    };
    for (const release of ['1.32', '1.35', '1.36']) {
      const stored = { hash: hashContainer({ ...sidecar, image: 'envoy:1' }, { kubeletVersion: release }) };
      const opts = { kubeletVersion: release, containerList: 'initContainers' as const };
      expect(containerChanged(sidecar, stored, { ...opts, state: { state: 'running', started: false } })).toMatchObject(
        { action: 'deferred', ruleId: 'sidecar-startup-probe-deferral' },
      );
      const assumed = containerChanged(sidecar, stored, opts);
      expect(assumed.action).toBe('restart');
      expect(assumed.assumptions.join(' ')).toContain('startupProbe has succeeded');
    }
  });
});

describe('the rule table', () => {
  it('every rule names a kubelet source file at a release tag and releases inside the supported range', () => {
    for (const r of RESTART_RULES) {
      expect(r.source, r.id).toMatch(/^pkg\/kubelet\/[\w/]+\.go@v1\.\d+\.0 /);
      expect(r.firstMinor).toBeGreaterThanOrEqual(8);
      if (r.lastMinor !== null) expect(r.lastMinor).toBeGreaterThanOrEqual(r.firstMinor);
      expect(r.statement.length).toBeGreaterThan(40);
    }
  });

  it("docs/controllers.md's restart rules state each rule with its releases and source", () => {
    const readme = readFileSync(new URL('../../docs/controllers.md', import.meta.url), 'utf8');
    for (const r of RESTART_RULES) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${r.id}\` |`));
      expect(row, r.id).toBeDefined();
      expect(row).toContain(`| ${ruleReleases(r)}`);
      expect(row).toContain(r.source);
    }
  });
});
