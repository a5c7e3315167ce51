/**
 * A node's kubelet crossing 1.34 → 1.35 under a 1.37.2 control plane (upgraded first; both kubelets
 * within its skew), on containerd 2.1.9 (the suite: support/cluster-crossing-suite.ts): the varied
 * pods and three static pods with readiness and startup probes —
 * - one whose manifest sets `metadata.uid`: the same pod on both kubelets;
 * - one without: 1.35 hashes the manifest with FNV-128a where 1.34 used MD5 (kubernetes#133511), a new
 *   pod UID, so the plan says will-restart;
 * - one with a ConfigMap volume, on a 1.34 node that opted out of the beta PreventStaticPodAPIReferences
 *   (kubernetes#131837; on by default from 1.34) with a 1.35 configuration that does not: 1.35 refuses
 *   its manifest, so it kills the pod (the plan's static-pod-api-reference cause).
 * The 1.34 kubelet is restarted as it is first: its probed pods flap Ready (the readiness-flap cause,
 * targets ≤ 1.34); 1.35 keeps their Ready over its start (ChangeContainerStatusOnKubeletRestart off
 * from 1.35, pkg/kubelet/prober at v1.35.0: containers started before the restart keep Ready).
 */
import { CLUSTER_IMAGE } from '../support/cluster.js';
import { clusterCrossingSuite, type StaticManifest } from '../support/cluster-crossing-suite.js';

const CONFIG = 'kh-static-config';

function staticPods(ns: string): StaticManifest[] {
  const probed = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name,
    image: CLUSTER_IMAGE,
    command: ['/bin/sleep', '3600'],
    readinessProbe: { exec: { command: ['/bin/true'] }, periodSeconds: 5 },
    startupProbe: { exec: { command: ['/bin/true'] }, periodSeconds: 1, failureThreshold: 60 },
    ...extra,
  });
  const manifest = (name: string, uid: string | undefined, spec: Record<string, unknown>): StaticManifest => ({
    name,
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, ...(uid === undefined ? {} : { uid }) },
      spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [], ...spec },
    },
  });
  return [
    manifest('static-fixed', `${ns}-fixed`, { containers: [probed('app'), probed('side')] }),
    manifest('static-generated', undefined, { containers: [probed('app')] }),
    manifest('static-configmap', `${ns}-configmap`, {
      volumes: [{ name: 'config', configMap: { name: CONFIG } }],
      containers: [probed('app', { volumeMounts: [{ name: 'config', mountPath: '/config' }] })],
    }),
  ];
}

clusterCrossingSuite(
  '1.34.4-1.35.4',
  '2.1.9',
  {
    objects: (ns) => [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CONFIG, namespace: ns }, data: { mode: 'static' } },
    ],
    staticPods,
    gates: { from: { PreventStaticPodAPIReferences: false } },
    restartFrom: true,
  },
  'API pods and static pods across the kubelet minor',
);
