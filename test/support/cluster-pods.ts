/**
 * Varied pods for the real cluster's judges (test/support/cluster-suite.ts), sent through the
 * apiserver: the static-pod suite's shapes (static-pods.ts) and more of the same kinds, with and
 * without host network. Every probe kind (liveness only `exec true`, so no container is restarted by
 * a probe; HTTP and TCP for readiness and startup that cannot fail), ports, env from fields and
 * resources, quantities in many spellings, init containers, hooks, pod and container security
 * contexts, token mounts on and off (pod field, ServiceAccount field, a volume already mounted at the
 * token path). CPU requests stay small: the node admits pods against its 2 CPUs.
 */
import { CLUSTER_IMAGE } from './cluster.js';
import { staticPods } from './static-pods.js';

export interface ApiPod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: Record<string, unknown> & {
    containers: Record<string, unknown>[];
    initContainers?: Record<string, unknown>[];
  };
}

/** The ServiceAccount whose token is never mounted (automountServiceAccountToken: false on the account). */
export const NO_TOKEN_ACCOUNT = 'no-token';

const sleeper = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  image: CLUSTER_IMAGE,
  command: ['/bin/sleep', '3600'],
  ...extra,
});

/** CPU and memory spellings the apiserver rewrites (or keeps) in its own canonical form. */
const CPU = ['1m', '0.001', '2m', '0.002', '1e-3', '3m', '0.0025', '5m', '0.005', '5e-3', '4m', '0.004'];
const MEMORY = [
  '8Mi',
  '8388608',
  '0.0078125Gi',
  '9M',
  '9e6',
  '9000k',
  '10Mi',
  '1.25e7',
  '12M',
  '0.01Gi',
  '16Mi',
  '1.6e7',
];
const STORAGE = ['1Gi', '1G', '1e9', '500Mi', '0.5Gi', '2Gi'];

/**
 * The pods for namespace `ns` (the node named `node`), `port` the first of a range of host ports no
 * one else in the cluster's namespace uses (host-network pods bind or declare them).
 */
export function clusterPods(ns: string, node: string, port: number): ApiPod[] {
  const pods: ApiPod[] = [];
  const add = (name: string, spec: ApiPod['spec']): void => {
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: { app: name } },
      spec: { nodeName: node, terminationGracePeriodSeconds: 1, ...spec },
    });
  };

  // The static-pod suite's five shapes, as API pods (host network, their own host ports).
  for (const p of staticPods('0', port)) {
    const spec: Record<string, unknown> = { ...p.spec, terminationGracePeriodSeconds: 1 };
    delete spec.securityContext;
    add(`static-${p.metadata.name}`, {
      ...spec,
      ...(p.spec.securityContext ? { securityContext: p.spec.securityContext } : {}),
      containers: p.spec.containers.map((c) => ({ ...c, image: CLUSTER_IMAGE })),
      ...(p.spec.initContainers
        ? { initContainers: p.spec.initContainers.map((c) => ({ ...c, image: CLUSTER_IMAGE })) }
        : {}),
    });
  }

  // Quantities: one pod per spelling pair, requests and limits, with and without host network.
  for (let i = 0; i < 12; i++) {
    const cpu = CPU[i]!;
    const mem = MEMORY[i]!;
    const resources =
      i % 3 === 0
        ? { limits: { cpu, memory: mem } } // requests copied from limits
        : i % 3 === 1
          ? {
              requests: { cpu, memory: mem },
              limits: { memory: '64Mi', 'ephemeral-storage': STORAGE[i % 6]! },
            }
          : { requests: { cpu, 'ephemeral-storage': STORAGE[i % 6]! } };
    add(`quantity-${String(i)}`, {
      ...(i % 2 === 0 ? { hostNetwork: true } : {}),
      containers: [
        sleeper('main', {
          resources,
          env: [
            {
              name: 'CPU_LIMIT',
              valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: ['1m', '0.001', '1'][i % 3] } },
            },
            {
              name: 'MEM_REQ',
              valueFrom: {
                resourceFieldRef: { resource: 'requests.memory', divisor: ['1Mi', '1k', '1M'][i % 3] },
              },
            },
          ],
        }),
      ],
    });
  }

  // Probes of every kind and handler, hooks, on the pod network and on the host's.
  const probeKinds: [string, Record<string, unknown>][] = [
    ['exec', { exec: { command: ['/bin/true'] } }],
    ['http', { httpGet: { port: 8080 } }],
    [
      'http-named',
      { httpGet: { port: 'web', path: '/ready', scheme: 'HTTP', httpHeaders: [{ name: 'X-Kh', value: '1' }] } },
    ],
    ['tcp', { tcpSocket: { port: 8080 } }],
    ['tcp-host', { tcpSocket: { port: 8081, host: '127.0.0.1' } }],
  ];
  probeKinds.forEach(([kind, handler], i) => {
    const hostNetwork = i % 2 === 1;
    const p = port + 10 + i * 2;
    add(`probe-${kind}`, {
      ...(hostNetwork ? { hostNetwork: true } : {}),
      containers: [
        sleeper('app', {
          ports: hostNetwork
            ? [
                { name: 'web', containerPort: p },
                { containerPort: p + 1, protocol: 'UDP' },
              ]
            : [
                { name: 'web', containerPort: 8080 },
                { containerPort: 9090, hostPort: p },
              ],
          readinessProbe: { ...handler, periodSeconds: 5 },
          startupProbe: { exec: { command: ['/bin/true'] }, periodSeconds: 1, failureThreshold: 60 },
          livenessProbe: { exec: { command: ['/bin/true'] }, initialDelaySeconds: 2 + i },
          lifecycle: {
            postStart: { exec: { command: ['/bin/true'] } },
            preStop: i % 2 === 0 ? { httpGet: { port: 8080 } } : { tcpSocket: { port: 8080 } },
          },
          resources: { requests: { cpu: '1m' } },
        }),
      ],
    });
  });

  // Ports: protocols, names, host IPs, explicit host ports; with and without host network.
  for (let i = 0; i < 6; i++) {
    const hostNetwork = i % 2 === 0;
    const p = port + 30 + i * 3;
    add(`ports-${String(i)}`, {
      ...(hostNetwork ? { hostNetwork: true } : {}),
      containers: [
        sleeper('app', {
          ports: [
            { containerPort: p, ...(i % 3 === 0 ? { name: 'main' } : {}) },
            { containerPort: p + 1, protocol: 'UDP', ...(i > 2 ? { hostIP: '127.0.0.1' } : {}) },
            ...(hostNetwork
              ? [{ containerPort: p + 2, hostPort: p + 2, protocol: 'TCP' }]
              : [{ containerPort: 53, hostPort: p + 2 }]),
          ],
        }),
        ...(i < 2 ? [sleeper('side', { ports: [{ containerPort: 7000 + i, name: 'side' }] })] : []),
      ],
    });
  }

  // Env of every source, envFrom, volume mounts.
  add('env-sources', {
    volumes: [
      { name: 'scratch', emptyDir: {} },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
    ],
    containers: [
      sleeper('env', {
        env: [
          { name: 'PLAIN', value: 'x' },
          { name: 'EMPTY' },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
          { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
          { name: 'OPT_CM', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k', optional: true } } },
          { name: 'OPT_SECRET', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } },
          { name: 'EPH', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage' } } },
        ],
        envFrom: [
          { configMapRef: { name: 'absent', optional: true } },
          { prefix: 'S_', secretRef: { name: 'absent', optional: true } },
        ],
        volumeMounts: [
          { name: 'scratch', mountPath: '/scratch', subPath: 'a' },
          { name: 'info', mountPath: '/info', readOnly: true, mountPropagation: 'HostToContainer' },
        ],
        workingDir: '/scratch',
        resources: { requests: { cpu: '1m', memory: '4Mi' } },
      }),
    ],
  });

  // Security contexts at both levels.
  add('security', {
    securityContext: {
      runAsUser: 1000,
      runAsGroup: 3000,
      fsGroup: 2000,
      supplementalGroups: [4000],
      sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }],
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: [
      sleeper('locked', {
        securityContext: {
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        },
        resources: { limits: { cpu: '2m', memory: '8Mi' } },
      }),
      sleeper('root', {
        securityContext: {
          runAsUser: 0,
          capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] },
          seccompProfile: { type: 'Unconfined' },
        },
      }),
      sleeper('privileged', { securityContext: { privileged: true } }),
    ],
  });

  // Init containers (run to completion first), stdin/tty, termination message settings.
  for (let i = 0; i < 3; i++) {
    add(`init-${String(i)}`, {
      ...(i === 2 ? { hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' } : {}),
      initContainers: Array.from({ length: i + 1 }, (_, k) => ({
        name: `init-${String(k)}`,
        image: CLUSTER_IMAGE,
        command: ['/bin/true'],
        ...(k === 0 ? { resources: { limits: { cpu: '3m', memory: '9M' } } } : {}),
        ...(k === 1 ? { terminationMessagePolicy: 'FallbackToLogsOnError' } : {}),
      })),
      containers: [
        sleeper('app', { stdin: true, tty: i === 1, terminationMessagePath: '/tmp/end' }),
        sleeper('side', { imagePullPolicy: 'Never', stdinOnce: i === 0, stdin: i === 0 }),
      ],
    });
  }

  // Token mounts: the pod says no; the account says no; the pod overrides the account; a volume
  // already mounted where the token would go; a named account with its own token.
  add('token-pod-off', { automountServiceAccountToken: false, containers: [sleeper('app')] });
  add('token-account-off', { serviceAccountName: NO_TOKEN_ACCOUNT, containers: [sleeper('app')] });
  add('token-pod-on', {
    serviceAccountName: NO_TOKEN_ACCOUNT,
    automountServiceAccountToken: true,
    initContainers: [{ name: 'first', image: CLUSTER_IMAGE, command: ['/bin/true'] }],
    containers: [sleeper('app')],
  });
  add('token-path-taken', {
    volumes: [{ name: 'mine', emptyDir: {} }],
    containers: [
      sleeper('app', { volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }),
      sleeper('other'),
    ],
  });
  add('token-host-net', { hostNetwork: true, containers: [sleeper('app'), sleeper('two'), sleeper('three')] });

  // Restart policies and a few more shapes.
  add('restart-onfailure', {
    restartPolicy: 'OnFailure',
    containers: [sleeper('app', { env: [{ name: 'POLICY', value: 'OnFailure' }] })],
  });
  add('args-only', {
    containers: [{ name: 'sh', image: CLUSTER_IMAGE, args: ['/bin/sh', '-c', 'sleep 3600'], command: [] }],
  });
  add('many', {
    containers: Array.from({ length: 5 }, (_, k) =>
      sleeper(`c${String(k)}`, k % 2 === 0 ? { resources: { requests: { memory: MEMORY[k]! } } } : {}),
    ),
  });
  return pods;
}

/** A pod for the in-place patch judge: `containers` app containers, `inits` init containers. */
export function patchPod(
  ns: string,
  node: string,
  name: string,
  containers: number,
  inits: number,
  hostNetwork: boolean,
): ApiPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { judge: 'patch' } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      ...(hostNetwork ? { hostNetwork: true } : {}),
      ...(inits
        ? {
            initContainers: Array.from({ length: inits }, (_, k) => ({
              name: `init-${String(k)}`,
              image: CLUSTER_IMAGE,
              command: ['/bin/true'],
            })),
          }
        : {}),
      containers: Array.from({ length: containers }, (_, k) =>
        sleeper(`c${String(k)}`, k === 0 ? { resources: { limits: { cpu: '1m', memory: '8Mi' } } } : {}),
      ),
    },
  };
}

/**
 * Pods of what later releases added to containers, for a cluster of 1.35 or newer: sidecars (init
 * containers with restartPolicy Always), a regular container's own restartPolicy and
 * restartPolicyRules (ContainerRestartRules, on from 1.35), resizePolicy, the sleep lifecycle action.
 * Resources are Burstable (requests below limits), so that a resize keeps the pod's QoS class.
 */
export function modernPods(ns: string, node: string): ApiPod[] {
  const pod = (name: string, spec: ApiPod['spec']): ApiPod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: { nodeName: node, terminationGracePeriodSeconds: 1, ...spec },
  });
  const burstable = { requests: { cpu: '5m', memory: '16Mi' }, limits: { cpu: '50m', memory: '64Mi' } };
  const sidecar = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    sleeper(name, { restartPolicy: 'Always', ...extra });
  const policy = (cpu: string, memory: string) => [
    { resourceName: 'cpu', restartPolicy: cpu },
    { resourceName: 'memory', restartPolicy: memory },
  ];
  return [
    pod('sidecar-one', {
      initContainers: [
        sidecar('log', { startupProbe: { exec: { command: ['/bin/true'] }, periodSeconds: 1 } }),
        { name: 'setup', image: CLUSTER_IMAGE, command: ['/bin/true'] },
      ],
      containers: [sleeper('app', { resources: burstable })],
    }),
    pod('sidecar-two', {
      initContainers: [
        sidecar('proxy', {
          readinessProbe: { exec: { command: ['/bin/true'] }, periodSeconds: 5 },
          lifecycle: { preStop: { sleep: { seconds: 1 } } },
        }),
        sidecar('metrics', { resources: burstable, resizePolicy: policy('NotRequired', 'RestartContainer') }),
      ],
      containers: [sleeper('app'), sleeper('worker')],
    }),
    pod('rules-never', {
      restartPolicy: 'Never',
      containers: [
        sleeper('always', { restartPolicy: 'Always' }),
        sleeper('on-42', {
          restartPolicy: 'Never',
          restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42, 43] } }],
        }),
      ],
    }),
    pod('rules-always', {
      containers: [
        sleeper('main'),
        sleeper('once', {
          restartPolicy: 'OnFailure',
          restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'NotIn', values: [0] } }],
        }),
      ],
    }),
    pod('resize-cpu-free', {
      containers: [sleeper('app', { resources: burstable, resizePolicy: policy('NotRequired', 'NotRequired') })],
    }),
    pod('resize-memory-restart', {
      containers: [
        sleeper('app', { resources: burstable, resizePolicy: policy('NotRequired', 'RestartContainer') }),
        sleeper('plain', { resources: { requests: { cpu: '2m', memory: '8Mi' }, limits: { memory: '32Mi' } } }),
      ],
    }),
    pod('resize-both-restart', {
      containers: [
        sleeper('app', { resources: burstable, resizePolicy: policy('RestartContainer', 'RestartContainer') }),
      ],
    }),
    pod('sleep-hooks', {
      containers: [
        sleeper('app', {
          lifecycle: { postStart: { sleep: { seconds: 1 } }, preStop: { sleep: { seconds: 1 } } },
          resources: { limits: { cpu: '20m', memory: '24Mi' } },
        }),
      ],
    }),
  ];
}

/**
 * Pods with resize policies, for a node crossing into 1.33's allocation checkpoints (kubernetes#130599):
 * RestartContainer for memory with memory requested and limited (a regular container and a sidecar),
 * RestartContainer for memory without any memory asked for, NotRequired only, and a container without
 * a policy beside one with. CPU stays NotRequired: a cgroup's CPU shares read back rounded.
 */
export function resizePods(ns: string, node: string): ApiPod[] {
  const pod = (name: string, spec: ApiPod['spec']): ApiPod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: { nodeName: node, terminationGracePeriodSeconds: 1, ...spec },
  });
  const burstable = { requests: { cpu: '5m', memory: '16Mi' }, limits: { cpu: '50m', memory: '64Mi' } };
  const policy = (memory: string) => [
    { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    { resourceName: 'memory', restartPolicy: memory },
  ];
  return [
    pod('resize-restart', {
      containers: [
        sleeper('app', { resources: burstable, resizePolicy: policy('RestartContainer') }),
        sleeper('plain', { resources: { requests: { cpu: '2m', memory: '8Mi' }, limits: { memory: '32Mi' } } }),
      ],
    }),
    pod('resize-sidecar', {
      initContainers: [
        sleeper('log', { restartPolicy: 'Always', resources: burstable, resizePolicy: policy('RestartContainer') }),
      ],
      containers: [sleeper('app', { resources: burstable, resizePolicy: policy('NotRequired') })],
    }),
    pod('resize-memory-unasked', {
      containers: [
        sleeper('app', { resources: { requests: { cpu: '5m' } }, resizePolicy: policy('RestartContainer') }),
      ],
    }),
    pod('resize-in-place', {
      containers: [sleeper('app', { resources: burstable, resizePolicy: policy('NotRequired') })],
    }),
  ];
}
