/**
 * Varied static pods for the real-kubelet test (host network, the local busybox image): probes of
 * every kind that cannot fail (exec `true`; HTTP and TCP only for readiness), ports, env from fields
 * and resources, resources in many quantity spellings, pod and container security contexts, an init
 * container, hooks, a volume; every pod sets `metadata.uid` but one. Also the pods as the apiserver
 * would serve them (mirror pods, containers with the release's defaults applied), for `plan`/`verify`.
 */
import { applyApiserverDefaults } from '../../src/index.js';

export const IMAGE = 'kubelet-hash.local/busybox:1';

export interface StaticPod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; uid?: string };
  spec: Record<string, unknown> & {
    containers: Record<string, unknown>[];
    initContainers?: Record<string, unknown>[];
  };
}

const sleep = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  image: IMAGE,
  command: ['/bin/sleep', '3600'],
  ...extra,
});

/**
 * The pods; `uidPrefix` makes their UIDs (and so their log directories) unique to one run, `port`
 * is the first of four host ports no one else uses.
 */
export function staticPods(uidPrefix: string, port: number): StaticPod[] {
  const uid = (n: number): string => `${uidPrefix}-0000-4000-8000-00000000000${n}`;
  const base = { hostNetwork: true, terminationGracePeriodSeconds: 2 };
  return [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', uid: uid(1) },
      spec: {
        ...base,
        containers: [
          {
            name: 'httpd',
            image: IMAGE,
            imagePullPolicy: 'Never',
            command: ['/bin/httpd', '-f', '-p', `127.0.0.1:${port}`, '-h', '/tmp'],
            ports: [{ name: 'http', containerPort: port }],
            readinessProbe: { httpGet: { path: '/', port: 'http', host: '127.0.0.1' }, periodSeconds: 3 },
            livenessProbe: { exec: { command: ['/bin/true'] }, initialDelaySeconds: 5, periodSeconds: 7 },
            env: [
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
              { name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
              { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
              { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
              { name: 'GREETING', value: 'hello $(POD_NAME) ünïcødé' },
            ],
            resources: { requests: { cpu: '50m', memory: '32Mi' }, limits: { cpu: '0.5', memory: '64Mi' } },
          },
          sleep({
            name: 'sidecar',
            resources: {
              requests: { cpu: '0.01', memory: '33554432' },
              limits: { cpu: '100m', memory: '0.0625Gi', 'ephemeral-storage': '1G' },
            },
          }),
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'api', namespace: 'kube-system', uid: uid(2) },
      spec: {
        ...base,
        securityContext: { fsGroup: 2000, supplementalGroups: [3000], runAsUser: 1000, runAsGroup: 3000 },
        initContainers: [{ name: 'init', image: IMAGE, command: ['/bin/true'], resources: { limits: { cpu: '20m' } } }],
        containers: [
          sleep({
            name: 'app',
            securityContext: {
              runAsUser: 65534,
              runAsGroup: 65534,
              runAsNonRoot: true,
              readOnlyRootFilesystem: true,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
              seccompProfile: { type: 'RuntimeDefault' }, // 1.19+: a 1.16 kubelet hashes without it
            },
            startupProbe: { exec: { command: ['/bin/true'] }, failureThreshold: 30, periodSeconds: 2 },
            resources: { limits: { cpu: '250m', memory: '128Mi' } },
            env: [
              {
                name: 'MEM_LIMIT_MI',
                valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
              },
              {
                name: 'CPU_REQUEST_M',
                valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'requests.cpu', divisor: '1m' } },
              },
            ],
          }),
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker', namespace: 'team-a', uid: uid(3) },
      spec: {
        ...base,
        dnsPolicy: 'Default',
        volumes: [{ name: 'scratch', emptyDir: {} }],
        containers: [
          {
            name: 'loop',
            image: IMAGE,
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/sh', '-c'],
            args: ['while true; do sleep 5; done'],
            workingDir: '/tmp',
            stdin: true,
            tty: true,
            lifecycle: {
              postStart: { exec: { command: ['/bin/true'] } },
              preStop: { exec: { command: ['/bin/true'] } },
            },
            terminationMessagePolicy: 'FallbackToLogsOnError',
            volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
            resources: { requests: { cpu: '2.5e-2', memory: '6.4e7' }, limits: { cpu: '1', memory: '128M' } },
          },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'cache', namespace: 'team-a', uid: uid(4) },
      spec: {
        ...base,
        containers: [
          sleep({
            name: 'memcache',
            ports: [
              { name: 'dns', containerPort: port + 1, protocol: 'UDP' },
              { containerPort: port + 2, hostIP: '127.0.0.1' },
            ],
            readinessProbe: { tcpSocket: { port: port + 2 }, timeoutSeconds: 2, failureThreshold: 5 },
            resources: { requests: { cpu: '0.1', memory: '100Mi' }, limits: { cpu: '200m', memory: '0.2Gi' } },
          }),
          sleep({
            name: 'stats',
            resources: { limits: { cpu: '5e-2', memory: '16Mi', 'ephemeral-storage': '500Mi' } },
          }),
        ],
      },
    },
    {
      // No metadata.uid: the kubelet derives one from the pod (plan predicts will-restart across minors).
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nouid', namespace: 'default' },
      spec: { ...base, containers: [sleep({ name: 'plain', resources: { requests: { cpu: '10m' } } })] },
    },
  ];
}

/** The pod's name as the kubelet runs a static pod: NAME-NODENAME. */
export const runningName = (pod: StaticPod, node: string): string => `${pod.metadata.name}-${node}`;

/**
 * The pods as the apiserver would serve their mirror pods to `kubectl get pods -o json`: the mirror
 * annotation carries the static pod's UID (`uids` maps the pod's name to the UID the kubelet uses),
 * containers carry `release`'s defaults as the kubelet's file source applies them (no admission, so
 * no service-account token).
 */
export function mirrorPods(
  pods: readonly StaticPod[],
  node: string,
  uids: ReadonlyMap<string, string>,
  release: string,
): unknown {
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: pods.map((pod, i) => {
      const staticUid = uids.get(pod.metadata.name)!;
      const defaulted = (list: 'containers' | 'initContainers', cs: Record<string, unknown>[] | undefined) =>
        cs?.map((c) => applyApiserverDefaults(c, { kubeletVersion: release, podSpec: pod.spec, list }));
      const spec: Record<string, unknown> = {
        ...pod.spec,
        nodeName: node,
        containers: defaulted('containers', pod.spec.containers),
      };
      if (pod.spec.initContainers) spec.initContainers = defaulted('initContainers', pod.spec.initContainers);
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: runningName(pod, node),
          namespace: pod.metadata.namespace,
          uid: `mirror-${i}-${staticUid}`,
          annotations: { 'kubernetes.io/config.mirror': staticUid, 'kubernetes.io/config.source': 'file' },
        },
        spec,
      };
    }),
  };
}
