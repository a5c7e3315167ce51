/**
 * The Kubernetes objects that run the agent on every selected node: per node a Job pinned with
 * `nodeName` that plans read-only (an init container lists the pods on its node with kubectl; the
 * agent reads the runtime's root and the kubelet's root through read-only hostPath mounts and
 * prints the plan file to its log), a ServiceAccount with a ClusterRole to read pods (RBAC cannot
 * narrow to one node; the field selector spec.nodeName does), and, as a variant, a Rancher
 * system-upgrade-controller `Plan` that gates, applies and swaps the kubelet node by node.
 */

export interface FleetOptions {
  /** The nodes to run on. */
  nodes: readonly string[];
  from: string;
  to: string;
  /** An image whose /kubelet-hash is the single executable for the node's architecture. */
  image: string;
  /** An image with kubectl (the init container lists the node's pods). */
  kubectlImage: string;
  namespace: string;
  /** The runtime's root on the nodes (from `doctor`), and which runtime it is. */
  runtime: 'containerd' | 'cri-o' | 'docker';
  runtimeRoot: string;
  /** The kubelet's root (pods' volumes; mounted read-only for the agent's view of the node). */
  kubeletRoot: string;
}

export interface SucPlanOptions extends FleetOptions {
  /** How many nodes upgrade at once (system-upgrade-controller's concurrency). */
  concurrency: number;
  /** Label selector (key=value,…) of the nodes the Plan runs on. */
  nodeSelector: Record<string, string>;
  /** A shell command, run with the host's / at /host (chroot /host …), that installs the new kubelet and restarts it. */
  swapCommand: string;
  /** The kubelet's systemd unit, then the runtime's (stopped in that order, started in reverse). */
  units: readonly string[];
}

type K8sObject = Record<string, unknown>;

const NAME = 'kubelet-hash';
const labels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/component': 'node-agent' };

/** A DNS-1123 name for a node's Job (names over 63 characters are cut and keep a hash suffix). */
export function jobName(node: string): string {
  const base = `${NAME}-plan-${node.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.replace(/-+$/, '');
  if (base.length <= 63) return base;
  let h = 0;
  for (const c of node) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${base.slice(0, 54).replace(/-+$/, '')}-${h.toString(16).padStart(8, '0')}`;
}

const rootFlag = (r: FleetOptions['runtime']): string =>
  r === 'containerd' ? '--containerd-root' : r === 'cri-o' ? '--crio-root' : '--docker-root';

function rbac(o: FleetOptions): K8sObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace, labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: o.namespace, labels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${NAME}-read-pods`, labels },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${NAME}-read-pods`, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${NAME}-read-pods` },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: o.namespace }],
    },
  ];
}

function planJob(o: FleetOptions, node: string): K8sObject {
  const hostPath = (name: string, path: string) => ({ name, hostPath: { path, type: 'Directory' } });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: jobName(node), namespace: o.namespace, labels: { ...labels, 'kubelet-hash/node': node } },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels: { ...labels, 'kubelet-hash/node': node } },
        spec: {
          nodeName: node,
          serviceAccountName: NAME,
          restartPolicy: 'Never',
          // Every node, cordoned or tainted ones too: the report must cover the whole fleet.
          tolerations: [{ operator: 'Exists' }],
          initContainers: [
            {
              name: 'pods',
              image: o.kubectlImage,
              command: [
                'sh',
                '-c',
                `kubectl get pods --all-namespaces --field-selector spec.nodeName=${node} -o json > /work/pods.json`,
              ],
              volumeMounts: [{ name: 'work', mountPath: '/work' }],
            },
          ],
          containers: [
            {
              name: 'plan',
              image: o.image,
              command: [
                '/kubelet-hash',
                'plan',
                '--from',
                o.from,
                '--to',
                o.to,
                '--pods',
                '/work/pods.json',
                rootFlag(o.runtime),
                o.runtimeRoot,
                '--out',
                '-',
              ],
              // Reading meta.db needs root; nothing is written (the mounts are read-only).
              securityContext: { runAsUser: 0, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
              volumeMounts: [
                { name: 'work', mountPath: '/work', readOnly: true },
                { name: 'runtime-root', mountPath: o.runtimeRoot, readOnly: true },
                { name: 'kubelet-root', mountPath: o.kubeletRoot, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'work', emptyDir: {} },
            hostPath('runtime-root', o.runtimeRoot),
            hostPath('kubelet-root', o.kubeletRoot),
          ],
        },
      },
    },
  };
}

/** ServiceAccount and RBAC, then one read-only plan Job per node. */
export function fleetJobs(o: FleetOptions): K8sObject[] {
  return [...rbac(o), ...o.nodes.map((n) => planJob(o, n))];
}

/** The shell the Plan's upgrade container runs on each node (host at /host, SUC's convention). */
function upgradeScript(o: SucPlanOptions): string {
  const unit = (verb: string, u: string) => `chroot /host systemctl ${verb} ${u}`;
  const [kubelet = 'kubelet', ...runtimes] = o.units;
  const root = `/host${o.runtimeRoot}`;
  const plan = '/host/var/lib/kubelet-hash/plan.json';
  return [
    'set -eu',
    'mkdir -p /host/var/lib/kubelet-hash',
    'kubectl get pods --all-namespaces --field-selector spec.nodeName="$SYSTEM_UPGRADE_NODE_NAME" -o json > /tmp/pods.json',
    // The kubelet stops first, so no container starts between the plan and apply.
    unit('stop', kubelet),
    // The gate: exit 1 (will-restart or unknown) or 2 stops this node before anything changes.
    `if ! /kubelet-hash plan --from ${o.from} --to ${o.to} --pods /tmp/pods.json ${rootFlag(o.runtime)} ${root} --out ${plan}; then ${unit('start', kubelet)}; exit 1; fi`,
    ...runtimes.map((u) => unit('stop', u)),
    `/kubelet-hash apply ${plan} --backup-dir /host/var/lib/kubelet-hash/backup`,
    ...[...runtimes].reverse().map((u) => unit('start', u)),
    `/kubelet-hash verify --kubelet ${o.to} --pods /tmp/pods.json ${rootFlag(o.runtime)} ${root}`,
    o.swapCommand,
    unit('start', kubelet),
  ].join('\n');
}

/** ServiceAccount and RBAC, and a system-upgrade-controller Plan (upgrade.cattle.io/v1). */
export function sucPlan(o: SucPlanOptions): K8sObject[] {
  return [
    ...rbac(o),
    {
      apiVersion: 'upgrade.cattle.io/v1',
      kind: 'Plan',
      metadata: { name: `${NAME}-${o.to.replace(/\./g, '-')}`, namespace: o.namespace, labels },
      spec: {
        concurrency: o.concurrency,
        // In place: cordon so nothing new lands, but never drain (draining restarts what we keep).
        cordon: true,
        nodeSelector: {
          matchLabels: o.nodeSelector,
        },
        serviceAccountName: NAME,
        version: `v${o.to}`,
        upgrade: { image: o.image, command: ['sh', '-c'], args: [upgradeScript(o)] },
      },
    },
  ];
}
