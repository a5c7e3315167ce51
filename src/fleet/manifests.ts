/**
 * The Kubernetes objects that run the agent on every selected node: per node a Job pinned with
 * `nodeName` that plans read-only (an init container, the agent itself, lists the pods on its node
 * over HTTPS with a projected short-lived token; the agent then reads only the runtime's record
 * directories through read-only hostPath mounts and prints its plan rows to its log), a
 * ServiceAccount with a ClusterRole to read pods (RBAC cannot narrow to one node; the field
 * selector spec.nodeName does), and, as a variant, a Rancher system-upgrade-controller `Plan` that
 * gates, applies and swaps the kubelet node by node.
 */
import type { RuntimeName } from '../runtime-records/index.js';
import { RUNTIME_LAYOUTS, type RuntimeLayout } from '../discovery/index.js';
import { storeMounts } from './store-mounts.js';

export interface FleetOptions {
  /** The nodes to run on. */
  nodes: readonly string[];
  from: string;
  to: string;
  /** An image whose /kubelet-hash is the single executable for the node's architecture (and /bin/sh). */
  image: string;
  namespace: string;
  /** The runtime's root on the nodes (from `doctor`), and which runtime it is. */
  runtime: RuntimeName;
  runtimeRoot: string;
  /** CRI-O's runroot on the nodes (default /run/containers/storage): plan reads its config.json copies too. */
  crioRunRoot?: string;
}

export interface SucPlanOptions extends FleetOptions {
  /** How many nodes upgrade at once (system-upgrade-controller's concurrency). */
  concurrency: number;
  /** Label selector (key=value,…) of the nodes the Plan runs on. */
  nodeSelector: Record<string, string>;
  /**
   * The host command that installs the new kubelet (not starting it): words split on spaces, run
   * chrooted into the host (upgrade-node --swap); a script on the host where more is needed.
   */
  swapCommand: string;
  /**
   * The kubelet's systemd unit, then the runtime's (stopped in that order, started in reverse);
   * default {@link defaultUnits} of the runtime.
   */
  units?: readonly string[];
  /** dockerd's daemon.json on the nodes (default /etc/docker/daemon.json), read for live-restore. */
  dockerConfig?: string;
}

/**
 * The node facts per runtime the Plan needs beyond the root come from discovery's layouts, the ones
 * `doctor` reads (one table): the plain layout of each runtime names its systemd units, CRI-O's
 * default runroot and dockerd's daemon.json.
 */
function layoutOf(runtime: FleetOptions['runtime']): RuntimeLayout {
  const layout = RUNTIME_LAYOUTS.find((l) => l.name === runtime);
  if (!layout) throw new Error(`no plain layout for ${runtime}`); // every runtime has one (layouts.ts)
  return layout;
}

/** The kubelet and the runtime's units, in stop order, for a node running `runtime` under kubelet `from`. */
export function defaultUnits(runtime: FleetOptions['runtime'], from: string): string[] {
  const units: string[] = [...(layoutOf(runtime).units ?? [])];
  const minor = /^v?1\.(\d+)/.exec(from)?.[1];
  if (runtime === 'docker' && minor !== undefined && Number(minor) < 24) units.shift();
  return ['kubelet', ...units];
}

type K8sObject = Record<string, unknown>;

const NAME = 'kubelet-hash';
const labels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/component': 'node-agent' };

/** `prefix-word` as a DNS-1123 label: lowercase, other characters as `-`, no trailing `-`. */
const labelOf = (prefix: string, word: string): string =>
  `${prefix}-${word.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.replace(/-+$/, '');

/**
 * `label` as it stands when it fits 63 characters and `exact`; else cut, with a hash of `key`
 * (what the name stands for) as suffix, so two keys never share a name through the cut.
 */
function boundedLabel(label: string, key: string, exact = true): string {
  if (label.length <= 63 && exact) return label;
  let h = 0;
  for (const c of key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${label.slice(0, 54).replace(/-+$/, '')}-${h.toString(16).padStart(8, '0')}`;
}

/** A DNS-1123 name for a node's Job (names over 63 characters are cut and keep a hash suffix). */
export function jobName(node: string): string {
  return boundedLabel(labelOf(`${NAME}-plan`, node), node);
}

/**
 * The name of the cluster-scoped ClusterRole and ClusterRoleBinding for `namespace`: one pair per
 * namespace, so the manifests of a second namespace never take over the first one's binding. A
 * DNS-1123 label (63 characters at most; a namespace that is not one, or a name too long, keeps
 * a hash of the namespace).
 */
export function clusterRbacName(namespace: string): string {
  return scopedName('read-pods', namespace);
}

/** The ClusterRole and binding that let the system-upgrade-controller's Job cordon its node, for `namespace`. */
function clusterCordonName(namespace: string): string {
  return scopedName('cordon', namespace);
}

function scopedName(what: string, namespace: string): string {
  const label = labelOf(`${NAME}-${what}`, namespace);
  return boundedLabel(label, namespace, label === `${NAME}-${what}-${namespace}`);
}

const rootFlag = (r: FleetOptions['runtime']): string =>
  r === 'containerd' ? '--containerd-root' : r === 'cri-o' ? '--crio-root' : '--docker-root';

/** CRI-O's runroot: the option, else the plain layout's default (the one `doctor` assumes). */
const runRootOf = (o: FleetOptions): string => o.crioRunRoot ?? layoutOf('cri-o').defaultRunRoot!;

/**
 * The label every cluster-scoped object carries with its namespace, so one command removes a
 * namespace's objects and only them: `kubectl delete namespace NS` and
 * `kubectl delete clusterrole,clusterrolebinding -l kubelet-hash/namespace=NS`.
 */
const NAMESPACE_LABEL = 'kubelet-hash/namespace';

/**
 * The Pod Security level the objects need: hostPath volumes are refused by `baseline` and
 * `restricted` (the agent must read the runtime's records on the node), so `privileged`, and only
 * in this namespace, which holds nothing else.
 */
const POD_SECURITY = {
  'pod-security.kubernetes.io/enforce': 'privileged',
  'pod-security.kubernetes.io/audit': 'privileged',
  'pod-security.kubernetes.io/warn': 'privileged',
};

function rbac(o: FleetOptions, cordon: boolean): K8sObject[] {
  const scoped = { ...labels, [NAMESPACE_LABEL]: o.namespace };
  const pair = (name: string, rules: K8sObject[]): K8sObject[] => [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: scoped }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: scoped },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: o.namespace }],
    },
  ];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace, labels: { ...labels, ...POD_SECURITY } } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: NAME, namespace: o.namespace, labels },
      // Jobs: only the container that lists pods gets a token, projected into it alone (see planJob).
      // The Plan: the controller builds the Job's pod itself (no projected volume can be added), and
      // both of its containers need the token: the controller's cordon (kubectl) and upgrade-node,
      // which lists the node's pods.
      automountServiceAccountToken: cordon,
    },
    ...pair(clusterRbacName(o.namespace), [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]),
    // The controller cordons the node with the Plan's ServiceAccount (cordon: a patch of spec.unschedulable).
    ...(cordon
      ? pair(clusterCordonName(o.namespace), [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }])
      : []),
  ];
}

/** Where the ServiceAccount token is looked for in a pod (client-go's and the agent's in-cluster default). */
const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The pod's token for the API, projected: bound to the pod, expiring after 10 minutes (the least
 * the apiserver grants), with the cluster's CA from the kube-root-ca.crt ConfigMap.
 */
const apiAccessVolume = {
  name: 'api-access',
  projected: {
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 600 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ],
  },
};

/** Every capability dropped: uid 0 reads root's files as their owner, without DAC_OVERRIDE or any other. */
const LOCKED_DOWN = {
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

/** The uid and gid of `nobody` in the image (build:image's /etc/passwd). */
const NOBODY = 65534;

/**
 * The plan container's command around the agent: `plan` exits 1 when a node has findings, and
 * that is a verdict in the log, not a failed Job (so `kubectl wait --for=condition=complete` ends
 * for NO-GO as for GO); exit 2 (unreadable input) and anything else still fail the Job.
 */
export const PLAN_EXIT_WRAPPER = '"$@"; s=$?; if [ "$s" -eq 1 ]; then exit 0; fi; exit "$s"';

function planJob(o: FleetOptions, node: string): K8sObject {
  const mounts = storeMounts(o.runtime, o.runtimeRoot, runRootOf(o));
  const storeFlags = [
    rootFlag(o.runtime),
    o.runtimeRoot,
    ...(o.runtime === 'cri-o' ? ['--crio-runroot', runRootOf(o)] : []),
  ];
  const recursive = releaseMinor(o.to) >= 30;
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
          automountServiceAccountToken: false,
          restartPolicy: 'Never',
          // Every node, cordoned or tainted ones too: the report must cover the whole fleet.
          tolerations: [{ operator: 'Exists' }],
          // fsGroup: the plan container (uid 0, no capability) reads the pod list nobody wrote (0640).
          securityContext: { seccompProfile: { type: 'RuntimeDefault' }, fsGroup: NOBODY },
          initContainers: [
            {
              name: 'pods',
              image: o.image,
              command: ['/kubelet-hash', 'fleet', 'pods', '--node', node, '--out', '/work/pods.json'],
              securityContext: { ...LOCKED_DOWN, runAsNonRoot: true, runAsUser: NOBODY, runAsGroup: NOBODY },
              volumeMounts: [
                { name: 'work', mountPath: '/work' },
                { name: 'api-access', mountPath: TOKEN_DIR, readOnly: true },
              ],
            },
          ],
          containers: [
            {
              name: 'plan',
              image: o.image,
              command: [
                'sh',
                '-c',
                PLAN_EXIT_WRAPPER,
                'plan',
                '/kubelet-hash',
                'plan',
                '--from',
                o.from,
                '--to',
                o.to,
                '--pods',
                '/work/pods.json',
                '--node',
                node,
                ...storeFlags,
                '--ndjson',
              ],
              // Reading meta.db needs uid 0 (it is root's, 0600); nothing is written (the mounts are read-only).
              securityContext: { ...LOCKED_DOWN, runAsUser: 0 },
              volumeMounts: [
                { name: 'work', mountPath: '/work', readOnly: true },
                ...mounts.map((m) => ({
                  name: m.name,
                  mountPath: m.path,
                  readOnly: true,
                  // Sub-mounts read-only too where the kubelet can (1.30+); plain read-only elsewhere.
                  ...(recursive ? { recursiveReadOnly: 'IfPossible' } : {}),
                })),
              ],
            },
          ],
          volumes: [
            { name: 'work', emptyDir: {} },
            apiAccessVolume,
            ...mounts.map((m) => ({ name: m.name, hostPath: { path: m.path, type: 'Directory' } })),
          ],
        },
      },
    },
  };
}

/** The minor of a release (`1.31`, `v1.31.2` → 31). */
function releaseMinor(release: string): number {
  return Number(/^v?1\.(\d+)/.exec(release)?.[1] ?? 0);
}

/**
 * The options with `from` and `to` as bare releases (`v1.31` → `1.31`): read once here, so that a
 * name or field that adds its own `v` never says `vv1.31`. The caller's object is not changed.
 */
function withBareReleases<O extends FleetOptions>(o: O): O {
  const bare = (v: string): string => v.trim().replace(/^[vV](?=\d)/, '');
  return { ...o, from: bare(o.from), to: bare(o.to) };
}

/** ServiceAccount and RBAC, then one read-only plan Job per node. */
export function fleetJobs(options: FleetOptions): K8sObject[] {
  const o = withBareReleases(options);
  return [...rbac(o, false), ...o.nodes.map((n) => planJob(o, n))];
}

/**
 * The Plan's upgrade container runs the agent's `upgrade-node` (src/cli/commands-upgrade-node.ts)
 * with the host's / at /host (the controller's convention): plan, gate, stop, apply, swap, start,
 * verify, its recovery rules and its journal on the host are the agent's, in TypeScript; the host's
 * services are driven by the host's own systemctl, chrooted into /host. The image needs nothing but
 * the executable (no shell, no util-linux): the node helper it carries takes the lock and chroots.
 */
function upgradeArgs(o: SucPlanOptions): string[] {
  const [kubelet = 'kubelet', ...runtimes] = o.units ?? defaultUnits(o.runtime, o.from);
  return [
    '--from',
    o.from,
    '--to',
    o.to,
    // The controller sets it in the container; the kubelet expands $(VAR) in args.
    '--node',
    '$(SYSTEM_UPGRADE_NODE_NAME)',
    '--host-root',
    '/host',
    '--runtime',
    o.runtime,
    '--runtime-root',
    o.runtimeRoot,
    ...(o.runtime === 'cri-o' ? ['--crio-runroot', runRootOf(o)] : []),
    // Without it apply would read the agent container's own /etc/docker/daemon.json, not the node's.
    ...(o.runtime === 'docker' ? ['--docker-config', o.dockerConfig ?? layoutOf('docker').config] : []),
    '--kubelet-unit',
    kubelet,
    ...runtimes.flatMap((u) => ['--runtime-unit', u]),
    '--swap',
    o.swapCommand,
  ];
}

/** ServiceAccount and RBAC, and a system-upgrade-controller Plan (upgrade.cattle.io/v1). */
export function sucPlan(options: SucPlanOptions): K8sObject[] {
  const o = withBareReleases(options);
  return [
    ...rbac(o, true),
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
        upgrade: {
          image: o.image,
          command: ['/kubelet-hash', 'upgrade-node'],
          args: upgradeArgs(o),
          // Not privileged: chroot into /host (SYS_CHROOT) and root's own files; the rest dropped.
          securityContext: {
            privileged: false,
            allowPrivilegeEscalation: false,
            runAsUser: 0,
            capabilities: { drop: ['ALL'], add: ['SYS_CHROOT'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
        },
      },
    },
  ];
}
