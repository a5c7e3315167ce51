/**
 * A node-sized fleet for planUpgrade benchmarks: 5,000 DaemonSet-style pods × 2 containers from two
 * templates, with the runtime records their kubelet (1.29) wrote, as parsed infos and as
 * `crictl inspect` texts; and a node-wide `docker inspect` text of a chosen size.
 */
import { readFileSync } from 'node:fs';
import { hashContainer } from '../src/index.js';
import type { ContainerRecordInfo } from '../src/runtime-records/index.js';

export const TEMPLATES = [
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

export interface Fleet {
  pods: object[];
  infos: ContainerRecordInfo[];
  texts: string[];
}

const uidOf = (i: number): string => `6f0c${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`;

export function daemonSetFleet(podCount: number): Fleet {
  const stored = TEMPLATES.map((t) => hashContainer(t, { kubeletVersion: '1.29' }));
  const fleet: Fleet = { pods: [], infos: [], texts: [] };
  for (let i = 0; i < podCount; i++) {
    const uid = uidOf(i);
    // Each pod carries its own copy of the spec, as the apiserver serves them.
    fleet.pods.push({
      metadata: { uid, name: `node-agent-${i}`, namespace: 'kube-system' },
      spec: { containers: TEMPLATES.map((t) => structuredClone(t)) },
    });
    TEMPLATES.forEach((t, k) => {
      const id = `${i.toString(16).padStart(8, '0')}${k}`.padEnd(64, 'a');
      fleet.infos.push({
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
      fleet.texts.push(
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
  return fleet;
}

/** The members of a docker inspect element this generator edits. */
interface DockerInspectElement {
  ID: string;
  Config: { Labels: Record<string, string> };
  [member: string]: unknown;
}

/**
 * `docker inspect $(docker ps -q)` of a cri-dockerd node, about `megabytes` MB: copies of the
 * fixture's application container, one per pod of {@link daemonSetFleet} (first template).
 */
export function nodeWideDockerInspect(megabytes: number): { text: string; pods: object[] } {
  const [app] = JSON.parse(
    readFileSync(new URL('../fixtures/runtime/docker-inspect.json', import.meta.url), 'utf8'),
  ) as DockerInspectElement[];
  const stored = hashContainer(TEMPLATES[0]!, { kubeletVersion: '1.29' });
  const one = JSON.stringify(app, null, 4).length;
  const count = Math.ceil((megabytes * 1e6) / one);
  const parts: string[] = [];
  const pods: object[] = [];
  for (let i = 0; i < count; i++) {
    const uid = uidOf(i);
    const c = structuredClone(app!);
    c.ID = i.toString(16).padStart(8, '0').padEnd(64, 'b');
    const labels = c.Config.Labels;
    labels['io.kubernetes.pod.uid'] = uid;
    labels['io.kubernetes.pod.name'] = `node-agent-${i}`;
    labels['io.kubernetes.pod.namespace'] = 'kube-system';
    labels['io.kubernetes.container.name'] = TEMPLATES[0]!.name;
    labels['annotation.io.kubernetes.container.hash'] = stored;
    delete labels['annotation.io.kubernetes.container.hashWithoutResources'];
    parts.push(JSON.stringify(c, null, 4));
    pods.push({
      metadata: { uid, name: `node-agent-${i}`, namespace: 'kube-system' },
      spec: { containers: [structuredClone(TEMPLATES[0])] },
    });
  }
  return { text: `[\n${parts.join(',\n')}\n]`, pods };
}
