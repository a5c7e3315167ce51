/**
 * Feature gates that change the restart rule, as each kubelet release defines them
 * (kube_features.go): SidecarContainers and InPlacePodVerticalScaling, including locked GA gates,
 * and static pods seen through their mirror pods.
 */
import { describe, expect, it } from 'vitest';
import { containerChanged } from '../../src/kubelet/index.js';
import { planUpgrade } from '../../src/plan/index.js';
import { hashContainer, hashContainerWithoutResources } from '../../src/hash-api/hash.js';
import { OptionError } from '../../src/errors.js';
import { releaseInfo, supportedReleases } from '../../src/releases/release-info.js';
import type { ContainerRecordInfo } from '../../src/runtime-records/index.js';

const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' };
const stale = (v: string) => ({ hash: hashContainer({ ...sidecar, image: 'envoy:0' }, { kubeletVersion: v }) });

describe('gate facts per release', () => {
  it('SidecarContainers: none before 1.28, alpha off 1.28, beta on 1.29–1.32, GA locked 1.33–1.36, removed from 1.37', () => {
    const facts = supportedReleases().map((r) => [r, releaseInfo(r).featureGates.SidecarContainers ?? null] as const);
    for (const [r, g] of facts) {
      const m = Number(r.split('.')[1]);
      if (m < 28) expect(g).toBeNull();
      else if (m === 28) expect(g).toEqual({ default: false, stage: 'alpha', locked: false });
      else if (m <= 32) expect(g).toEqual({ default: true, stage: 'beta', locked: false });
      else if (m <= 36) expect(g).toEqual({ default: true, stage: 'GA', locked: true });
      else expect(g).toBeNull();
      expect(releaseInfo(r).retiredGates.includes('SidecarContainers'), r).toBe(m >= 37);
    }
  });

  it('ContainerRestartRules (KEP-5307): none before 1.34, alpha off 1.34, beta on from 1.35', () => {
    expect(releaseInfo('1.33').featureGates.ContainerRestartRules).toBeUndefined();
    expect(releaseInfo('1.34').featureGates.ContainerRestartRules).toEqual({
      default: false,
      stage: 'alpha',
      locked: false,
    });
    expect(releaseInfo('1.35').featureGates.ContainerRestartRules).toEqual({
      default: true,
      stage: 'beta',
      locked: false,
    });
    expect(releaseInfo('1.37').featureGates.ContainerRestartRules).toEqual({
      default: true,
      stage: 'beta',
      locked: false,
    });
  });

  it('1.37: the removed SidecarContainers gate is always on and its name is refused, as the kubelet refuses it', () => {
    const changed = containerChanged(sidecar, stale('1.37'), {
      kubeletVersion: '1.37',
      containerList: 'initContainers',
    });
    expect(changed.changed).toBe(true);
    for (const value of [true, false]) {
      const attempt = () =>
        containerChanged(sidecar, stale('1.37'), {
          kubeletVersion: '1.37',
          containerList: 'initContainers',
          featureGates: { SidecarContainers: value },
        });
      expect(attempt).toThrow(OptionError);
      expect(attempt).toThrow(/removed after GA/);
    }
  });

  it('InPlacePodVerticalScaling: alpha off 1.27–1.32, beta on 1.33–1.34, GA locked from 1.35', () => {
    expect(releaseInfo('1.26').featureGates.InPlacePodVerticalScaling).toBeUndefined();
    expect(releaseInfo('1.32').featureGates.InPlacePodVerticalScaling).toEqual({
      default: false,
      stage: 'alpha',
      locked: false,
    });
    expect(releaseInfo('1.34').featureGates.InPlacePodVerticalScaling).toEqual({
      default: true,
      stage: 'beta',
      locked: false,
    });
    expect(releaseInfo('1.35').featureGates.InPlacePodVerticalScaling).toEqual({
      default: true,
      stage: 'GA',
      locked: true,
    });
  });
});

describe('SidecarContainers decides whether a restartable init container is a sidecar', () => {
  it('1.32 with the gate on (default) restarts a changed sidecar; with it off the kubelet never compares it', () => {
    const on = containerChanged(sidecar, stale('1.32'), { kubeletVersion: '1.32', containerList: 'initContainers' });
    expect(on.changed).toBe(true);
    const off = containerChanged(sidecar, stale('1.32'), {
      kubeletVersion: '1.32',
      containerList: 'initContainers',
      featureGates: { SidecarContainers: false },
    });
    expect(off).toMatchObject({ changed: false, hashDiffers: true, rule: 'not-compared' });
    expect(off.reason).toContain('SidecarContainers is off');
  });

  it('refuses settings a kubelet would refuse: an unknown gate for the release, or a locked gate set against its default', () => {
    const attempt = (v: string, gates: Record<string, boolean>) => () =>
      containerChanged(sidecar, stale(v), { kubeletVersion: v, containerList: 'initContainers', featureGates: gates });
    expect(attempt('1.27', { SidecarContainers: true })).toThrow(OptionError);
    expect(attempt('1.33', { SidecarContainers: false })).toThrow(OptionError);
    expect(attempt('1.35', { InPlacePodVerticalScaling: false })).toThrow(OptionError);
    expect(attempt('1.33', { SidecarContainers: true })().changed).toBe(true); // setting a locked gate to its default is fine
  });
});

describe('planUpgrade treats mirror pods as static pods', () => {
  const app = { name: 'app', image: 'etcd:3', resources: { limits: { cpu: '1' } } };
  const staticUid = '9c1b7f6e5d4c3b2a19087f6e5d4c3b2a';
  const mirror = {
    metadata: {
      uid: 'mirror-uid',
      name: 'etcd-node1',
      namespace: 'kube-system',
      annotations: { 'kubernetes.io/config.mirror': staticUid },
    },
    spec: { containers: [app] },
  };
  const record = (hash: string, withoutResources: string): ContainerRecordInfo => ({
    kind: 'crictl-inspect',
    runtime: 'containerd',
    containerName: 'app',
    podUid: staticUid,
    podName: 'etcd-node1',
    podNamespace: 'kube-system',
    hash,
    hashWithoutResources: withoutResources,
    hashLocations: [],
  });

  it('joins the node’s containers (labelled with the static pod’s uid) to the mirror pod', () => {
    const v = { kubeletVersion: '1.29' };
    const plan = planUpgrade({
      pods: [mirror],
      records: [record(hashContainer(app, v), hashContainerWithoutResources(app, v))],
      from: '1.29',
      to: '1.29',
    });
    expect(plan.entries[0]).toMatchObject({ action: 'keep', podUid: staticUid, containerName: 'app' });
  });

  it('a static pod gets no in-place resize exemption from the new kubelet', () => {
    // A resource name with a backspace: 1.29 (Go 1.21) and 1.30 (Go 1.22) escape it differently, so
    // the hash changes while the hash without resources does not. A 1.30 kubelet with the gate on
    // keeps a regular pod's container (resize exemption) but restarts a static pod's.
    const odd = { ...app, resources: { limits: { 'example.com/\bgpu': '1' } } };
    const from = { kubeletVersion: '1.29' };
    const rec = record(hashContainer(odd, from), hashContainerWithoutResources(odd, from));
    const gates = { InPlacePodVerticalScaling: true };
    const pods = (p: object) => [{ ...p, spec: { containers: [odd] } }];
    // The manifest sets metadata.uid, so the static pod keeps its UID across the minor upgrade.
    const manifests = [{ metadata: { uid: staticUid } }];
    const asStatic = planUpgrade({
      pods: pods(mirror),
      records: [rec],
      from: '1.29',
      to: '1.30',
      featureGates: gates,
      staticPodManifests: manifests,
    });
    expect(asStatic.entries[0]!.action).toBe('rewrite');
    // Without it, the generated UID changes with the kubelet's internal Pod types: the pod is recreated.
    const generated = planUpgrade({
      pods: pods(mirror),
      records: [rec],
      from: '1.29',
      to: '1.30',
      featureGates: gates,
    });
    expect(generated.entries[0]).toMatchObject({ action: 'will-restart', ruleId: 'static-pod-kubelet-upgrade' });
    const regular = { metadata: { uid: staticUid, name: 'etcd', namespace: 'kube-system' } };
    const asRegular = planUpgrade({
      pods: pods(regular),
      records: [rec],
      from: '1.29',
      to: '1.30',
      featureGates: gates,
    });
    expect(asRegular.entries[0]!.action).toBe('keep');
  });
});
