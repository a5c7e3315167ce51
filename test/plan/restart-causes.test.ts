/**
 * Restart causes outside the hash: one test per finding class, each citing its source (the issue
 * upstream, and where the kubelet's sources at the release tag show it).
 */
import { describe, expect, it } from 'vitest';
import { restartCauses } from '../../src/plan/restart-causes.js';

type Obj = Record<string, unknown>;
const pod = (name: string, spec: Obj, extra: { annotations?: Obj; qosClass?: string; phase?: string } = {}): Obj => ({
  metadata: {
    namespace: 'shop',
    name,
    uid: `uid-${name}`,
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
  },
  spec,
  status: { phase: extra.phase ?? 'Running', ...(extra.qosClass ? { qosClass: extra.qosClass } : {}) },
});
const c = (extra: Obj = {}): Obj => ({ name: 'app', image: 'busybox', ...extra });
const kinds = (from: string, to: string, pods: Obj[], gates?: Record<string, boolean>) =>
  restartCauses({ pods, from, to, ...(gates ? { gates } : {}) }).map((f) => `${f.kind} ${f.verdict} ${f.pod}`);

describe('restartCauses', () => {
  it('device-plugin extended resources: re-admission may reject the running pod — kubernetes#133382 (open upstream)', () => {
    const gpu = pod('gpu', { containers: [c({ resources: { limits: { 'nvidia.com/gpu': '1', cpu: '1' } } })] });
    const plain = pod('plain', { containers: [c({ resources: { limits: { cpu: '1', 'hugepages-2Mi': '2Mi' } } })] });
    expect(kinds('1.30', '1.31', [gpu, plain])).toEqual(['device-plugin-readmission unknown shop/gpu']);
    const [finding] = restartCauses({ pods: [gpu], from: '1.30', to: '1.31' });
    expect(finding).toMatchObject({ source: 'kubernetes#133382' });
    expect(finding!.reason).toMatch(/nvidia\.com\/gpu.*UnexpectedAdmissionError/);
  });

  it('static pods referencing API objects are refused from 1.34 (PreventStaticPodAPIReferences; pkg/kubelet/config/common.go at v1.34.0) — kubernetes#131837', () => {
    const mirror = { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' };
    const refs = pod(
      'etcd',
      { containers: [c({ envFrom: [{ configMapRef: { name: 'x' } }] })] },
      { annotations: mirror },
    );
    const clean = pod(
      'apiserver',
      { containers: [c()], volumes: [{ name: 'h', hostPath: { path: '/etc' } }] },
      { annotations: mirror },
    );
    const apiPod = pod('api', { containers: [c({ envFrom: [{ configMapRef: { name: 'x' } }] })] });
    expect(kinds('1.33', '1.34', [refs, clean, apiPod])).toEqual(['static-pod-api-reference expected shop/etcd']);
    expect(kinds('1.32', '1.33', [refs])).toEqual([]);
    // A node that opts out of the beta gate keeps running it.
    expect(kinds('1.34', '1.35', [refs], { PreventStaticPodAPIReferences: false })).toEqual([]);
    const projected = pod(
      'p',
      { containers: [c()], volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] },
      { annotations: mirror },
    );
    expect(restartCauses({ pods: [projected], from: '1.33', to: '1.35' })[0]).toMatchObject({
      source: expect.stringMatching(/kubernetes#131837/) as unknown,
      reason: expect.stringMatching(/serviceaccounts \(via projected volumes\)/) as unknown,
    });
  });

  it('pods the static CPU manager pins (Guaranteed, whole CPUs) may fail re-admission — kubernetes#140906 (memory manager), #140989 (CPU manager), #129078, #123971; unknown: the policy is the node’s', () => {
    const pinned = pod(
      'pinned',
      { containers: [c({ resources: { limits: { cpu: '2', memory: '1Gi' } } })] },
      { qosClass: 'Guaranteed' },
    );
    const milli = pod(
      'milli',
      { containers: [c({ resources: { limits: { cpu: '2000m', memory: '1Gi' } } })] },
      { qosClass: 'Guaranteed' },
    );
    const shared = pod(
      'shared',
      { containers: [c({ resources: { limits: { cpu: '1500m', memory: '1Gi' } } })] },
      { qosClass: 'Guaranteed' },
    );
    const burst = pod(
      'burst',
      { containers: [c({ resources: { requests: { cpu: '2' } } })] },
      { qosClass: 'Burstable' },
    );
    expect(kinds('1.31', '1.31', [pinned, milli, shared, burst])).toEqual([
      'pinned-readmission unknown shop/pinned',
      'pinned-readmission unknown shop/milli',
    ]);
    expect(restartCauses({ pods: [pinned], from: '1.31', to: '1.31' })[0]!.source).toMatch(
      /^kubernetes#140906 \(memory manager\), kubernetes#140989 \(CPU manager\).*kubernetes#129078, kubernetes#123971/,
    );
  });

  it('the readiness flap: targets ≤ 1.34, and later ones with ChangeContainerStatusOnKubeletRestart=true (kube_features.go: off from v1.35.0), for pods with readiness or startup probes', () => {
    const probed = pod('probed', { containers: [c({ readinessProbe: { exec: { command: ['true'] } } })] });
    const started = pod('started', {
      initContainers: [c({ restartPolicy: 'Always', startupProbe: { tcpSocket: { port: 80 } } })],
      containers: [c()],
    });
    const none = pod('none', { containers: [c({ livenessProbe: { exec: { command: ['true'] } } })] });
    const done = pod('done', { containers: [c({ readinessProbe: {} })] }, { phase: 'Succeeded' });
    expect(kinds('1.33', '1.34', [probed, started, none, done])).toEqual([
      'readiness-flap expected shop/probed',
      'readiness-flap expected shop/started',
    ]);
    expect(kinds('1.34', '1.35', [probed])).toEqual([]);
    // 1.35 keeps Ready from the status of the pod it holds: a static pod's manifest has none.
    const mirror = { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' };
    const staticProbed = pod(
      'static',
      { containers: [c({ startupProbe: { exec: { command: ['true'] } } })] },
      { annotations: mirror },
    );
    const [flap] = restartCauses({ pods: [staticProbed], from: '1.34', to: '1.35' });
    expect(flap).toMatchObject({
      kind: 'readiness-flap',
      source: expect.stringMatching(/prober_manager\.go at v1\.35\.0/) as unknown,
    });
    expect(
      kinds('1.35', '1.36', [staticProbed, pod('static-none', { containers: [c()] }, { annotations: mirror })]),
    ).toEqual(['readiness-flap expected shop/static']);
    expect(kinds('1.34', '1.35', [probed], { ChangeContainerStatusOnKubeletRestart: true })).toEqual([
      'readiness-flap expected shop/probed',
    ]);
    // 1.34 has no such gate (kube_features.go at v1.34.0): its restart always flaps.
    expect(kinds('1.33', '1.34', [probed], { ChangeContainerStatusOnKubeletRestart: false })).toEqual([
      'readiness-flap expected shop/probed',
    ]);
  });

  it('allocation checkpoints first written by 1.33 (allocated_pods_state, actuated_pods_state; kubernetes#130599): from ≤ 1.32 the target reads the missing actuated record as zero (kuberuntime_manager.go computePodResizeAction at v1.33.0) and restarts each running container with RestartContainer for a resource it requests or limits', () => {
    const restartMemory = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
    const resizable = pod('resizable', {
      containers: [
        c({ resizePolicy: restartMemory, resources: { limits: { memory: '1Gi' } } }),
        c({ name: 'plain', resources: { limits: { memory: '1Gi' } } }),
      ],
    });
    const inPlace = pod('in-place', {
      containers: [
        c({
          resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
          resources: { limits: { cpu: '1' } },
        }),
      ],
    });
    // Its policy names memory, which it neither requests nor limits: zero equals zero.
    const cpuOnly = pod('cpu-only', {
      containers: [c({ resizePolicy: restartMemory, resources: { requests: { cpu: '5m', memory: '0' } } })],
    });
    const sidecar = pod('sidecar', {
      initContainers: [
        c({
          name: 'log',
          restartPolicy: 'Always',
          resizePolicy: restartMemory,
          resources: { requests: { memory: '1Mi' } },
        }),
        c({ name: 'setup', resizePolicy: restartMemory, resources: { requests: { memory: '1Mi' } } }),
      ],
      containers: [c()],
    });
    const mirror = { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' };
    const staticPod = pod(
      'static',
      { containers: [c({ resizePolicy: restartMemory, resources: { limits: { memory: '1Gi' } } })] },
      { annotations: mirror },
    );
    const all = [resizable, inPlace, cpuOnly, sidecar, staticPod];
    expect(kinds('1.32', '1.33', all)).toEqual([
      'allocation-checkpoint expected shop/resizable',
      'allocation-checkpoint expected shop/sidecar',
    ]);
    const [finding] = restartCauses({ pods: [resizable], from: '1.32', to: '1.33' });
    expect(finding).toMatchObject({
      containers: ['app'],
      source: expect.stringMatching(/kubernetes#130599/) as unknown,
    });
    expect(restartCauses({ pods: [sidecar], from: '1.32', to: '1.33' })[0]!.containers).toEqual(['log']);
    expect(kinds('1.31', '1.34', [resizable])).toEqual(['allocation-checkpoint expected shop/resizable']);
    expect(kinds('1.33', '1.34', [resizable])).toEqual([]);
    // The gate off on a 1.33 or 1.34 target: no allocation manager state, no resize; locked on from 1.35.
    expect(kinds('1.32', '1.33', [resizable], { InPlacePodVerticalScaling: false })).toEqual([]);
    expect(kinds('1.32', '1.35', [resizable], { InPlacePodVerticalScaling: false })).toEqual([
      'allocation-checkpoint expected shop/resizable',
    ]);
    // A container not running is started, not resized.
    const waiting = {
      ...resizable,
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'app', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
      },
    };
    expect(kinds('1.32', '1.33', [waiting])).toEqual([]);
  });

  it('a List, or an item without a pod’s uid and spec, is refused at its index (an empty answer would read as no cause)', () => {
    const one = pod('web', { containers: [c({ readinessProbe: { tcpSocket: { port: 80 } } })] });
    const at = (pods: unknown[]) => {
      try {
        restartCauses({ pods, from: '1.30', to: '1.31' });
        return 'no error';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(at([{ kind: 'PodList', items: [one] }])).toBe(
      'INVALID_OPTION at .input.pods[0]: expected a Pod as the apiserver serves it (metadata.uid, spec) (got a PodList: give its items)',
    );
    expect(at([one, { metadata: { name: 'x' } }])).toBe(
      'INVALID_OPTION at .input.pods[1]: expected a Pod as the apiserver serves it (metadata.uid, spec) (got metadata.uid missing, no spec)',
    );
    expect(kinds('1.30', '1.31', [one])).toEqual(['readiness-flap expected shop/web']);
  });
});
