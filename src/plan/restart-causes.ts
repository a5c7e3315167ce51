/**
 * What may restart containers or take pods out of service across a kubelet upgrade, outside the
 * container hash: findings per pod with their source and the releases they concern. `unknown`
 * where only the real kubelet on the node can tell (a device plugin's timing, the CPU manager's
 * policy), `expected` where the released kubelet does it (the readiness flap, a refused static
 * manifest, a RestartContainer resize policy without an actuated-resources record). Read from the API pods only: nothing here looks at the runtime.
 */
import { parseKubeletVersion } from '../releases/index.js';
import { MIRROR_ANNOTATION } from '../pod/mirror-pod.js';
import { parseQuantity } from '../quantity/quantity.js';
import { OptionError } from '../errors.js';

/** The classes of cause, as `--accept-cause` names them. */
export const RESTART_CAUSE_KINDS = [
  'device-plugin-readmission',
  'static-pod-api-reference',
  'pinned-readmission',
  'readiness-flap',
  'allocation-checkpoint',
] as const;

/** One cause, for one pod. */
export interface RestartCause {
  kind: (typeof RESTART_CAUSE_KINDS)[number];
  /** `expected`: the target kubelet does it; `unknown`: it may, depending on what only the node knows. */
  verdict: 'expected' | 'unknown';
  /** `namespace/name`. */
  pod: string;
  podUid: string;
  /** The crossing or the targets it concerns: `targets ≥ 1.34`, `from ≤ 1.32 to ≥ 1.33`. */
  releases: string;
  source: string;
  reason: string;
  /** The containers it restarts, where the cause is a container's own (allocation checkpoints). */
  containers?: string[];
}

/** What the causes are judged on. */
export interface RestartCauseInput {
  /** The API pods on the node (served objects: metadata, spec, status). */
  pods: readonly unknown[];
  from: string;
  to: string;
  /**
   * The target kubelet's feature gates, where set (`ChangeContainerStatusOnKubeletRestart`,
   * `InPlacePodVerticalScaling`, `PreventStaticPodAPIReferences`).
   */
  gates?: Readonly<Record<string, boolean>>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

/** Every container of the spec, init and ephemeral ones included. */
const containersOf = (spec: Obj): Obj[] => [
  ...list(spec['initContainers']),
  ...list(spec['containers']),
  ...list(spec['ephemeralContainers']),
];

/** Resource names outside the native ones: device-plugin (extended) resources such as `nvidia.com/gpu`. */
function extendedResources(spec: Obj): string[] {
  const names = new Set<string>();
  for (const c of containersOf(spec)) {
    const res = obj(c['resources']);
    for (const key of [...Object.keys(obj(res['requests'])), ...Object.keys(obj(res['limits']))])
      if (key.includes('/') && !key.startsWith('kubernetes.io/') && !key.startsWith('requests.')) names.add(key);
  }
  return [...names].sort();
}

/** What a static pod's manifest references from the API, as the 1.34 kubelet's check looks for it (first found). */
function apiReference(spec: Obj): string | undefined {
  if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '') return 'serviceaccounts';
  if (list(spec['imagePullSecrets']).length > 0) return 'secrets';
  for (const c of containersOf(spec)) {
    for (const e of list(c['envFrom'])) {
      if (e['secretRef'] !== undefined) return 'secrets';
      if (e['configMapRef'] !== undefined) return 'configmaps';
    }
    for (const e of list(c['env'])) {
      const from = obj(e['valueFrom']);
      if (from['secretKeyRef'] !== undefined) return 'secrets';
      if (from['configMapKeyRef'] !== undefined) return 'configmaps';
    }
  }
  if (list(spec['resourceClaims']).length > 0) return 'resourceclaims';
  for (const v of list(spec['volumes'])) {
    if (v['configMap'] !== undefined) return 'configmaps (via configmap volumes)';
    if (v['secret'] !== undefined) return 'secrets (via secret volumes)';
    if (v['csi'] !== undefined) return 'csidrivers (via CSI volumes)';
    if (v['persistentVolumeClaim'] !== undefined) return 'persistentvolumeclaims';
    if (v['ephemeral'] !== undefined) return 'persistentvolumeclaims (via ephemeral volumes)';
    if (v['azureFile'] !== undefined) return 'secrets (via azureFile volumes)';
    if (v['glusterfs'] !== undefined) return 'endpoints (via glusterFS volumes)';
    for (const s of list(obj(v['projected'])['sources'])) {
      if (s['configMap'] !== undefined) return 'configmaps (via projected volumes)';
      if (s['secret'] !== undefined) return 'secrets (via projected volumes)';
      if (s['serviceAccountToken'] !== undefined) return 'serviceaccounts (via projected volumes)';
      if (s['clusterTrustBundle'] !== undefined) return 'clustertrustbundles';
    }
  }
  return undefined;
}

/** Whether some container asks for whole CPUs in a Guaranteed pod: what the static CPU manager pins. */
function wholeCpus(pod: Obj, spec: Obj): boolean {
  if (obj(pod['status'])['qosClass'] !== 'Guaranteed') return false;
  return containersOf(spec).some((c) => {
    const cpu = obj(obj(c['resources'])['requests'])['cpu'] ?? obj(obj(c['resources'])['limits'])['cpu'];
    const text = typeof cpu === 'number' ? String(cpu) : typeof cpu === 'string' ? cpu : '';
    return /^[1-9]\d*$/.test(text) || /^[1-9]\d*000m$/.test(text);
  });
}

const hasProbes = (spec: Obj): boolean =>
  containersOf(spec).some((c) => c['readinessProbe'] !== undefined || c['startupProbe'] !== undefined);

/** Whether a served quantity is above zero, as the kubelet's Value()/MilliValue() read it (both round up). */
function positive(q: unknown): boolean {
  if (typeof q !== 'string' && typeof q !== 'number') return q !== undefined && q !== null;
  try {
    const v = parseQuantity(String(q));
    const dec = v.d.Dec;
    return dec !== null ? !dec.unscaled.neg && (dec.unscaled.abs ?? []).some((w) => w !== 0n) : v.i.value > 0n;
  } catch {
    return true; // not a quantity the apiserver serves: never assume it away
  }
}

/**
 * The running containers (regular ones and sidecars) a target kubelet without an actuated-resources
 * record restarts on its first sync: it reads the missing record as zero resources
 * (kuberuntime_manager.go computePodResizeAction, "Missing actuated resource record", v1.33.0 to
 * v1.37.2), so every resource whose resize policy is RestartContainer and whose request or limit is
 * above zero looks resized. Static pods are never resized (IsInPlacePodVerticalScalingAllowed).
 */
function restartedOnResize(pod: Obj, spec: Obj): string[] {
  const status = obj(pod['status']);
  const running = new Map<string, boolean>();
  for (const s of [...list(status['containerStatuses']), ...list(status['initContainerStatuses'])])
    running.set(String(s['name']), obj(s['state'])['running'] !== undefined);
  const candidates = [
    ...list(spec['containers']),
    ...list(spec['initContainers']).filter((c) => c['restartPolicy'] === 'Always'),
  ];
  return candidates
    .filter((c) => running.get(String(c['name'])) ?? true)
    .filter((c) => {
      const res = obj(c['resources']);
      return list(c['resizePolicy']).some(
        (p) =>
          p['restartPolicy'] === 'RestartContainer' &&
          (p['resourceName'] === 'cpu' || p['resourceName'] === 'memory') &&
          (positive(obj(res['requests'])[p['resourceName']]) || positive(obj(res['limits'])[p['resourceName']])),
      );
    })
    .map((c) => String(c['name']));
}

/** Every cause the crossing `from` → `to` brings to these pods. */
export function restartCauses(input: RestartCauseInput): RestartCause[] {
  const from = parseKubeletVersion(input.from, ['from']);
  const to = parseKubeletVersion(input.to, ['to']);
  // The gate is 1.35's (kube_features.go at v1.35.0; absent at v1.34.0): up to 1.34 the flap has no switch.
  const statusOnRestart = to.minor <= 34 || (input.gates?.['ChangeContainerStatusOnKubeletRestart'] ?? false);
  // Beta and on by default from 1.34 (kube_features.go at v1.34.0 and v1.35.0): a node may opt out.
  const refusesReferences = to.minor >= 34 && (input.gates?.['PreventStaticPodAPIReferences'] ?? true);
  // Beta and on from 1.33, GA and locked on from 1.35 (kube_features.go at v1.33.0, v1.35.0).
  const resizing = to.minor >= 35 || (input.gates?.['InPlacePodVerticalScaling'] ?? to.minor >= 33);
  const out: RestartCause[] = [];
  for (const [i, raw] of input.pods.entries()) {
    const pod = obj(raw);
    const meta = obj(pod['metadata']);
    const spec = obj(pod['spec']);
    // A List (or anything without a pod's metadata and spec) would silently find nothing: no cause
    // is not an answer a caller may get from a wrong input.
    const uid = meta['uid'];
    const hasSpec = typeof pod['spec'] === 'object' && pod['spec'] !== null;
    if (typeof uid !== 'string' || !hasSpec)
      throw new OptionError(
        'INVALID_OPTION',
        ['input', 'pods', i],
        'a Pod as the apiserver serves it (metadata.uid, spec)',
        Array.isArray(pod['items'])
          ? `got a ${typeof pod['kind'] === 'string' ? pod['kind'] : 'List'}: give its items`
          : `got metadata.uid ${uid === undefined ? 'missing' : JSON.stringify(uid)}${hasSpec ? '' : ', no spec'}`,
      );
    const phase = obj(pod['status'])['phase'];
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const at = {
      pod: `${String(meta['namespace'])}/${String(meta['name'])}`,
      podUid: uid,
    };
    const extended = extendedResources(spec);
    if (extended.length > 0)
      out.push({
        kind: 'device-plugin-readmission',
        verdict: 'unknown',
        ...at,
        releases: 'every release (open upstream; reported on 1.31)',
        source: 'kubernetes#133382',
        reason: `asks for ${extended.join(', ')}: the restarted kubelet admits the pod again, and if the device plugin has not registered yet it rejects it (UnexpectedAdmissionError) and kills its containers`,
      });
    const annotations = obj(meta['annotations']);
    const reference = annotations[MIRROR_ANNOTATION] !== undefined ? apiReference(spec) : undefined;
    if (reference !== undefined && refusesReferences)
      out.push({
        kind: 'static-pod-api-reference',
        verdict: 'expected',
        ...at,
        releases: 'targets ≥ 1.34 (PreventStaticPodAPIReferences, beta and on by default from 1.34)',
        source: 'kubernetes#131837; pkg/kubelet/config/common.go at v1.34.0 ("static pods may not reference …")',
        reason: `a static pod referencing ${reference}: the target kubelet refuses its manifest, so the pod is no longer one it runs`,
      });
    if (wholeCpus(pod, spec))
      out.push({
        kind: 'pinned-readmission',
        verdict: 'unknown',
        ...at,
        releases: 'every release with the static CPU or memory manager policy',
        // Read with the issues search: #140906 is the memory manager's, #140989 the CPU manager's
        // (pod-scope topology with PodLevelResourceManagers, both fixed upstream); #129078 (static
        // CPU policy with full-pcpus-only) and #123971 (memory manager, init containers) stay open.
        source:
          'kubernetes#140906 (memory manager), kubernetes#140989 (CPU manager): AllocatePod allocates a restored pod again at re-admission; kubernetes#129078, kubernetes#123971 (open)',
        reason:
          'a Guaranteed pod with whole CPUs, pinned when the node runs the static CPU (or memory) manager: re-admission on restart can find too few free CPUs and reject the running pod; only the node’s policy and checkpoint tell',
      });
    const isStatic = annotations[MIRROR_ANNOTATION] !== undefined;
    if (statusOnRestart && hasProbes(spec))
      out.push({
        kind: 'readiness-flap',
        verdict: 'expected',
        ...at,
        releases: 'targets ≤ 1.34, and later ones with ChangeContainerStatusOnKubeletRestart=true',
        source:
          'pkg/features/kube_features.go: ChangeContainerStatusOnKubeletRestart GA on until 1.34, deprecated and off from v1.35.0',
        reason:
          'readiness or startup probes: the restarted kubelet sets its containers not ready until the probes pass again, so the pod leaves its Services’ endpoints for that long (no container restarts)',
      });
    else if (isStatic && hasProbes(spec))
      // 1.35 keeps Ready from the status of the pod it holds; a static pod's is its manifest's, with none.
      out.push({
        kind: 'readiness-flap',
        verdict: 'expected',
        ...at,
        releases: 'static pods, targets ≥ 1.35 with ChangeContainerStatusOnKubeletRestart off (the default)',
        source:
          'pkg/kubelet/prober/prober_manager.go at v1.35.0: setReadyStateOnKubeletRestart and isContainerStarted read the Ready condition and Started of the pod the kubelet holds',
        reason:
          'a static pod with readiness or startup probes: the restarted kubelet keeps Ready only for pods whose held object says Ready and started, and a static pod’s comes from its manifest, with no status: its containers are not ready until the probes pass again (no container restarts)',
      });
    const resized = from.minor <= 32 && to.minor >= 33 && resizing && !isStatic ? restartedOnResize(pod, spec) : [];
    if (resized.length > 0)
      out.push({
        kind: 'allocation-checkpoint',
        verdict: 'expected',
        ...at,
        releases: 'crossings from ≤ 1.32 to ≥ 1.33 (InPlacePodVerticalScaling on: by default from 1.33)',
        source:
          'kubernetes#130599; allocated_pods_state and actuated_pods_state first in pkg/kubelet/allocation at v1.33.0; kuberuntime_manager.go computePodResizeAction ("Missing actuated resource record") v1.33.0–v1.37.2',
        reason: `${resized.join(', ')}: a RestartContainer resize policy for a resource it requests or limits; the target kubelet finds no actuated-resources record (the old one never wrote one), reads it as zero resources and restarts the container to apply its own`,
        containers: resized,
      });
  }
  return out;
}
