/**
 * planUpgrade over a node-sized fleet: 10,000 DaemonSet-like containers (5,000 pods × 2 containers
 * from two templates), records as parsed infos and as crictl-inspect texts. Identical specs are
 * hashed once, so the cost is the join, the stable keys and (for texts) record parsing.
 * Run: npx vitest bench --run bench/plan-upgrade.bench.ts
 */
import { bench, describe } from 'vitest';
import { hashContainer } from '../src/hashing/hash.js';
import { planUpgrade } from '../src/kubelet/plan-upgrade.js';
import type { ContainerRecordInfo } from '../src/runtime/index.js';

const TEMPLATES = [
  {
    name: 'node-agent',
    image: 'registry.example.com/agent:2.4.1',
    args: ['--node=$(NODE_NAME)', '--v=2'],
    env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
    resources: { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [{ name: 'host-root', mountPath: '/host', readOnly: true }],
    securityContext: { privileged: true },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  },
  {
    name: 'exporter',
    image: 'quay.io/prometheus/node-exporter:v1.8.0',
    ports: [{ name: 'metrics', containerPort: 9100, hostPort: 9100, protocol: 'TCP' }],
    resources: { limits: { memory: '64Mi' } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  },
];

const PODS = 5000;
const stored = TEMPLATES.map((t) => hashContainer(t, { kubeletVersion: '1.29' }));
const pods: object[] = [];
const infos: ContainerRecordInfo[] = [];
const texts: string[] = [];
for (let i = 0; i < PODS; i++) {
  const uid = `6f0c${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`;
  // Each pod carries its own copy of the spec, as the apiserver serves them.
  pods.push({
    metadata: { uid, name: `node-agent-${i}`, namespace: 'kube-system' },
    spec: { containers: TEMPLATES.map((t) => structuredClone(t)) },
  });
  TEMPLATES.forEach((t, k) => {
    const id = `${i.toString(16).padStart(8, '0')}${k}`.padEnd(64, 'a');
    infos.push({
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerId: id,
      containerName: t.name,
      podName: `node-agent-${i}`,
      podNamespace: 'kube-system',
      podUid: uid,
      hash: stored[k]!,
      hashLocations: ['status.annotations'],
    });
    texts.push(
      JSON.stringify({
        status: {
          id,
          metadata: { attempt: 0, name: t.name },
          state: 'CONTAINER_RUNNING',
          labels: {
            'io.kubernetes.container.name': t.name,
            'io.kubernetes.pod.name': `node-agent-${i}`,
            'io.kubernetes.pod.namespace': 'kube-system',
            'io.kubernetes.pod.uid': uid,
          },
          annotations: { 'io.kubernetes.container.hash': stored[k], 'io.kubernetes.container.restartCount': '0' },
        },
        info: { sandboxID: 'f'.repeat(64), pid: 1000 + i },
      }),
    );
  });
}

describe('planUpgrade, 10,000 DaemonSet containers (1.29 → 1.33)', () => {
  bench('records as parsed infos', () => {
    const plan = planUpgrade({ pods, records: infos, from: '1.29', to: '1.33' });
    if (plan.counts.rewrite !== 10000) throw new Error(`expected 10000 rewrites, got ${JSON.stringify(plan.counts)}`);
  });
  bench('records as crictl inspect texts', () => {
    const plan = planUpgrade({ pods, records: texts, from: '1.29', to: '1.33' });
    if (plan.counts.rewrite !== 10000) throw new Error(`expected 10000 rewrites, got ${JSON.stringify(plan.counts)}`);
  });
});
