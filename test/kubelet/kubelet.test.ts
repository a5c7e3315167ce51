/**
 * The kubelet handle (src/kubelet/kubelet.ts): resolved once, it gives what the option form gives
 * at every public function that takes a release, and refuses what the option form refuses.
 */
import { describe, expect, it } from 'vitest';
import {
  applyApiserverDefaults,
  containerChanged,
  explainHashChange,
  hashContainer,
  hashContainerWithoutResources,
  kubelet,
  Kubelet,
  KubeletRelease,
  OptionError,
  planUpgrade,
  predictRestarts,
  preimage,
  ReleaseError,
  translateHash,
  validateContainer,
} from '../../src/index.js';

const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } }, args: ['a\bb'] };
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

describe('kubelet()', () => {
  it('resolves the release, the patch toolchain and the gates once', () => {
    const k = kubelet('v1.29.7', { featureGates: { InPlacePodVerticalScaling: 'true' } });
    expect(k).toBeInstanceOf(Kubelet);
    expect(k).toBeInstanceOf(KubeletRelease);
    expect([k.release, k.version, k.jsonEscapes]).toEqual(['1.29', 'v1.29.7', 'go1.22']);
    expect(k.toolchain).toContain('go1.22.5');
    expect(k.featureGates).toEqual({ InPlacePodVerticalScaling: true });
    expect(k.gates).toEqual({
      inPlaceResize: true,
      sidecars: true,
      containerRestartRules: false,
      restartAllContainers: false,
      podLevelResize: false,
      legacySidecars: false,
      // Before 1.35 there is no gate: the kubelet always changes the status over its restart.
      statusOnRestart: true,
    });
    // From 1.35 ChangeContainerStatusOnKubeletRestart is deprecated and off; pod-level resize beta on from 1.36.
    expect(kubelet('1.35').gates).toMatchObject({ statusOnRestart: false, podLevelResize: false });
    expect(kubelet('1.36').gates).toMatchObject({ statusOnRestart: false, podLevelResize: true });
    expect(
      kubelet('1.36', { featureGates: { ChangeContainerStatusOnKubeletRestart: true, PodLevelResources: false } })
        .gates,
    ).toMatchObject({ statusOnRestart: true, podLevelResize: false });
    expect(kubelet('1.29').jsonEscapes).toBeUndefined();
    expect(kubelet('1.29.7', { jsonEscapes: 'pre-go1.22' }).jsonEscapes).toBe('pre-go1.22');
  });

  it('refuses what the option form refuses, at the settings', () => {
    expect(codeOf(() => kubelet('1.99'))).toBe('UNSUPPORTED_RELEASE');
    expect(() => kubelet('1.29', { featureGate: {} } as never)).toThrow(/did you mean featureGates/);
    expect(codeOf(() => kubelet('1.26', { featureGates: { InPlacePodVerticalScaling: true } }))).toBe(
      'UNKNOWN_FEATURE_GATE',
    );
    expect(codeOf(() => kubelet('1.35', { featureGates: { InPlacePodVerticalScaling: false } }))).toBe(
      'INVALID_OPTION',
    );
  });

  it('hashes as the option form does, for every release and both inputs', () => {
    for (const v of ['1.8', '1.15', '1.16', '1.29.6', '1.29.7', '1.30', '1.36']) {
      const k = kubelet(v);
      for (const c of [
        web,
        JSON.stringify(web),
        '{"name":"a","image":"b","securityContext":{"runAsUser":9007199254740993}}',
      ]) {
        expect(k.hash(c), v).toBe(hashContainer(c, { kubeletVersion: v }));
        expect(hashContainer(c, k), v).toBe(k.hash(c));
        expect(k.preimage(c)).toEqual(preimage(c, { kubeletVersion: v }));
      }
    }
    const k = kubelet('1.28');
    expect(k.hashWithoutResources(web)).toBe(hashContainerWithoutResources(web, { kubeletVersion: '1.28' }));
    expect(codeOf(() => kubelet('1.31').hashWithoutResources(web))).toBe('NOT_AVAILABLE');
    expect(codeOf(() => kubelet('1.31').validate({ ...web, resources: { limits: { cpu: 'lots' } } }))).toBe(
      'INVALID_QUANTITY',
    );
    expect(codeOf(() => validateContainer({ name: 'a' }, k))).toBeUndefined();
    expect(codeOf(() => k.hash({ kind: 'Pod', spec: { containers: [] } }))).toBe('NOT_A_CONTAINER');
    expect(codeOf(() => k.hash({ image: 'x' }))).toBe('MISSING_NAME');
  });

  it('decides as the option form does: changed, predictRestarts, translate, explain, defaults, plan', () => {
    const gates = { InPlacePodVerticalScaling: true };
    const k = kubelet('1.29.7', { featureGates: gates });
    const resized = { ...web, resources: { limits: { cpu: '1' } } };
    const stored = { hash: k.hash(web), hashWithoutResources: k.hashWithoutResources(web) };
    const byOptions = containerChanged(resized, stored, { kubeletVersion: '1.29.7', featureGates: gates });
    expect(k.changed(resized, stored)).toEqual(byOptions);
    expect(containerChanged(resized, stored, { kubelet: k })).toEqual(byOptions);
    expect(byOptions.changed).toBe(false);

    const oldPod = { metadata: { name: 'p' }, spec: { containers: [web] } };
    const newPod = { metadata: { name: 'p' }, spec: { containers: [resized] } };
    expect(k.predictRestarts(oldPod, newPod)).toEqual(
      predictRestarts(oldPod, newPod, { kubeletVersion: '1.29.7', featureGates: gates }),
    );

    const to = kubelet('1.31');
    expect(k.translateTo(web, to, stored.hash)).toBe(
      translateHash(web, { from: '1.29.7', to: '1.31', observed: stored.hash }),
    );
    expect(translateHash(web, { from: k, to })).toBe(to.hash(web));
    expect(explainHashChange(web, { from: k, to: '1.31' })).toEqual(
      explainHashChange(web, { from: '1.29.7', to: '1.31' }),
    );
    expect(applyApiserverDefaults(web, { kubelet: k })).toEqual(
      applyApiserverDefaults(web, { kubeletVersion: '1.29' }),
    );

    const labels = {
      'io.kubernetes.pod.name': 'p',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.pod.uid': 'u1',
      'io.kubernetes.container.name': 'web',
    };
    const pods = [{ metadata: { uid: 'u1', name: 'p', namespace: 'default' }, spec: { containers: [web] } }];
    const record = JSON.stringify({
      status: { id: 'c1', labels, annotations: { 'io.kubernetes.container.hash': stored.hash } },
    });
    const byString = planUpgrade({ pods, records: [record], from: '1.29.7', to: '1.31' });
    expect(planUpgrade({ pods, records: [record], from: k, to })).toEqual(byString);
    expect(byString.entries[0]!.action).toBe('rewrite');
  });

  it('refuses the option form beside a handle, and a misspelt option with a suggestion', () => {
    const k = kubelet('1.29');
    for (const f of [
      () => containerChanged(web, { hash: '1' }, { kubelet: k, kubeletVersion: '1.29' }),
      () => containerChanged(web, { hash: '1' }, { kubelet: k, featureGates: {} }),
      () =>
        predictRestarts(
          { spec: { containers: [web] } },
          { spec: { containers: [web] } },
          { kubelet: k, jsonEscapes: 'go1.22' },
        ),
      () => translateHash(web, { from: k, to: '1.31', fromJsonEscapes: 'go1.22' }),
      () => planUpgrade({ pods: [], records: [], from: '1.29', to: k, featureGates: {} }),
      () => applyApiserverDefaults(web, { kubelet: k, kubeletVersion: '1.29' }),
    ])
      expect(f).toThrow(OptionError);
    expect(() => containerChanged(web, { hash: '1' }, {})).toThrow(/options\.kubeletVersion/);
    expect(() => translateHash(web, { from: '1.29', to: '1.31', obsrved: '1' } as never)).toThrow(
      /did you mean observed/,
    );
    expect(() => explainHashChange(web, { from: '1.29', too: '1.31' } as never)).toThrow(/did you mean to/);
    expect(() => planUpgrade({ pods: [], records: [], from: '1.29', to: '1.31', nodename: 'n' } as never)).toThrow(
      /did you mean nodeName/,
    );
    expect(() => applyApiserverDefaults(web, { kubeletVersion: '1.29', tokenvolume: 'v' } as never)).toThrow(
      /did you mean tokenVolume/,
    );
    // The refused value is echoed.
    expect(() => translateHash(web, { from: 1.29, to: '1.31' } as never)).toThrow(/found number 1\.29/);
    expect(() => explainHashChange(web, { from: '1.29', to: '1.99' })).toThrow(ReleaseError);
  });
});

describe('ChangeContainerStatusOnKubeletRestart in the sidecar startup-probe deferral', () => {
  // A sidecar whose startup probe has not succeeded: compared only once it does. What a kubelet
  // restart does to that status differs: through 1.34 the probe runs again; from 1.35 (gate off) a
  // started sidecar stays started (prober/worker.go at v1.35.4, kubernetes#136910).
  const pod = (image: string) => ({
    spec: {
      initContainers: [{ name: 'log', image, restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } }],
      containers: [{ name: 'app', image: 'busybox' }],
    },
  });
  const podStatus = {
    initContainerStatuses: [{ name: 'log', state: { running: {} }, started: false }],
    containerStatuses: [{ name: 'app', state: { running: {} } }],
    conditions: [{ type: 'Initialized', status: 'True' }],
  };
  const reason = (kubeletVersion: string, featureGates?: Record<string, boolean>) =>
    predictRestarts(pod('busybox:1.36'), pod('busybox:1.37'), {
      kubeletVersion,
      podStatus,
      ...(featureGates ? { featureGates } : {}),
    }).containers.find((c) => c.name === 'log')!;

  it('deferred at 1.34 and 1.35 alike; the reason says what a kubelet restart does to the started status', () => {
    expect(reason('1.34')).toMatchObject({ action: 'deferred' });
    expect(reason('1.34').reason).toContain('once the probe has run again');
    expect(reason('1.35')).toMatchObject({ action: 'deferred' });
    expect(reason('1.35').reason).toContain('ChangeContainerStatusOnKubeletRestart off');
    expect(reason('1.35', { ChangeContainerStatusOnKubeletRestart: true }).reason).toContain(
      'once the probe has run again',
    );
  });
});
