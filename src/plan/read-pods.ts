/**
 * The reading of pods for a plan: each API pod checked (metadata.uid, one pod per uid) and reduced
 * to what the join needs (its containers by name, static or not, hostNetwork, which containers run),
 * the pods on the node, and what the runtime's sandboxes say of each pod.
 */
import { zodNow } from '../on-demand.js';
import { OptionError, parseWith } from '../errors.js';
import { locateContainers, type LocatedContainer } from '../pod/locate.js';
import { mirroredPodUid } from '../pod/mirror-pod.js';
import { stableKey } from '../json/stable-key.js';
import { maybeGeneratedStaticUid } from '../kubelet/index.js';
import type { PodSandboxInfo } from './plan-vocabulary.js';

function buildPodSchema() {
  const { z } = zodNow();
  return z.looseObject({
    metadata: z.looseObject({
      uid: z.string().min(1),
      name: z.string().optional(),
      namespace: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    }),
    spec: z.looseObject({ nodeName: z.string().optional(), hostNetwork: z.boolean().optional() }),
    status: z
      .looseObject({
        phase: z.string().optional(),
        conditions: z.array(z.unknown()).optional(),
        resize: z.unknown().optional(),
        containerStatuses: z.array(z.unknown()).optional(),
        initContainerStatuses: z.array(z.unknown()).optional(),
      })
      .optional(),
  });
}

let podSchema: ReturnType<typeof buildPodSchema> | undefined;

/** An API pod as the join reads it. */
export interface ApiPod {
  uid: string;
  /** Its index in the pods given. */
  index: number;
  name?: string;
  namespace?: string;
  /** A static pod (seen through its mirror pod): the in-place resize exemption does not apply. */
  staticPod: boolean;
  /** A static pod whose UID survives a kubelet minor upgrade: a manifest given sets it, or it cannot be a generated one. */
  staticUidFixed: boolean;
  containers: Map<string, LocatedContainer>;
  /** `spec.nodeName`, when scheduled. */
  nodeName?: string;
  /** `spec.hostNetwork`. */
  hostNetwork: boolean;
  /** The pod has finished (phase Succeeded or Failed): none of its containers runs. */
  finished: boolean;
  /** Container names whose status says they are not running (waiting, terminated). */
  notRunning: Set<string>;
  /** A running container's `ContainerStatus.resources` by name: its actual resources (see {@link runningResources}). */
  statusResources: Map<string, object>;
  /** Why a resize the spec asks for is not admitted yet, when the status says so (see {@link pendingResize}). */
  resizePending?: string;
}

/** The API pods by uid (a uid given twice is refused: which pod the records belong to cannot be told). */
export function readPods(items: readonly unknown[], fixedStaticUids: ReadonlySet<string>): Map<string, ApiPod> {
  const out = new Map<string, ApiPod>();
  items.forEach((item, i) => {
    const { metadata, spec, status } = parseWith(
      (podSchema ??= buildPodSchema()),
      item,
      ({ path, message }) =>
        new OptionError(
          'INVALID_OPTION',
          path,
          'a Pod as the apiserver serves it (metadata.uid, spec.containers)',
          message,
        ),
      ['input', 'pods', i],
    );
    const containers = new Map(locateContainers(item).map((c) => [c.name, c]));
    const staticUid = mirroredPodUid(metadata);
    const pod: ApiPod = {
      index: i,
      uid: staticUid ?? metadata.uid,
      staticPod: staticUid !== undefined,
      staticUidFixed:
        staticUid !== undefined && (!maybeGeneratedStaticUid(staticUid) || fixedStaticUids.has(staticUid)),
      containers,
      hostNetwork: spec.hostNetwork === true,
      finished: status?.phase === 'Succeeded' || status?.phase === 'Failed',
      notRunning: notRunningNames([...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? [])]),
      statusResources: runningResources([
        ...(status?.containerStatuses ?? []),
        ...(status?.initContainerStatuses ?? []),
      ]),
    };
    const pending = pendingResize(status?.conditions, status?.resize);
    if (pending !== undefined) pod.resizePending = pending;
    if (spec.nodeName !== undefined) pod.nodeName = spec.nodeName;
    if (metadata.name !== undefined) pod.name = metadata.name;
    if (metadata.namespace !== undefined) pod.namespace = metadata.namespace;
    const first = out.get(pod.uid);
    if (first !== undefined) {
      // Which one the records belong to cannot be told: first-wins would check the wrong spec.
      throw new OptionError(
        'DUPLICATE_POD',
        ['input', 'pods', i, 'metadata', 'uid'],
        'each API pod once (one uid, one pod)',
        `pods ${first.index} (${first.namespace ?? '?'}/${first.name ?? '?'}) and ${i} (${pod.namespace ?? '?'}/${pod.name ?? '?'}) share uid ${JSON.stringify(pod.uid)}${stableKey(item) === stableKey(items[first.index]) ? ', the same pod given twice' : ', with different specs'}`,
      );
    }
    out.set(pod.uid, pod);
  });
  return out;
}

/** Names of the containers whose `ContainerStatus` says they do not run (a status without `state.running`). */
function notRunningNames(statuses: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const st of statuses) {
    if (st === null || typeof st !== 'object') continue;
    const { name, state } = st as { name?: unknown; state?: unknown };
    if (typeof name !== 'string' || state === null || typeof state !== 'object') continue;
    if (!('running' in state)) out.add(name);
  }
  return out;
}

/**
 * `ContainerStatus.resources` of the running containers: what the runtime reports the container runs
 * with (limits and requests from CRI's ContainerStatus, else the allocated ones), which the kubelet
 * writes with InPlacePodVerticalScaling on (pkg/kubelet/kubelet_pods.go:2150 (v1.29.0),
 * :2294 (v1.33.13), :2705 (v1.37.2), convertContainerStatusResources). A container that is not
 * running reports its allocated resources instead, so it is left out.
 */
function runningResources(statuses: readonly unknown[]): Map<string, object> {
  const out = new Map<string, object>();
  for (const st of statuses) {
    if (st === null || typeof st !== 'object') continue;
    const { name, state, resources } = st as { name?: unknown; state?: unknown; resources?: unknown };
    if (typeof name !== 'string' || resources === null || typeof resources !== 'object') continue;
    if (state !== null && typeof state === 'object' && 'running' in state) out.set(name, resources);
  }
  return out;
}

/**
 * A resize not admitted yet: the PodResizePending condition (1.33+, pkg/kubelet/status/status_manager.go:84
 * (v1.33.13)) or `status.resize` Proposed, Deferred or Infeasible (1.27–1.32, pkg/apis/core/types.go:3876
 * (v1.29.0)). The kubelet does not
 * apply it until it admits it, which a restarted kubelet may do: its outcome cannot be told.
 */
function pendingResize(conditions: readonly unknown[] | undefined, resize: unknown): string | undefined {
  for (const c of conditions ?? []) {
    if (c === null || typeof c !== 'object') continue;
    const { type, status, reason } = c as { type?: unknown; status?: unknown; reason?: unknown };
    if (type === 'PodResizePending' && status === 'True')
      return `the PodResizePending condition${typeof reason === 'string' ? ` (${reason})` : ''}`;
  }
  if (resize === 'Proposed' || resize === 'Deferred' || resize === 'Infeasible') return `status.resize ${resize}`;
  return undefined;
}

/**
 * The API pods scheduled on the node: those with `spec.nodeName` equal to `nodeName`; without
 * one, every pod when they name at most one node, else the pods on the nodes of `joined` (pods a
 * record belongs to). Refuses a multi-node list that no record places.
 */
export function podsOnNodeOf(pods: Map<string, ApiPod>, nodeName: string | undefined, joined: Set<string>): ApiPod[] {
  const all = [...pods.values()];
  if (nodeName !== undefined) {
    const here = all.filter((p) => p.nodeName === nodeName);
    // A node no given pod is on: the missing-record check would have nothing to check.
    if (here.length === 0 && all.length > 0) throw nodeNotFound(nodeName, all);
    return here;
  }
  const nodes = new Set(all.map((p) => p.nodeName).filter((n): n is string => n !== undefined));
  if (nodes.size <= 1) return all;
  const here = new Set([...joined].map((uid) => pods.get(uid)?.nodeName).filter((n) => n !== undefined));
  if (here.size === 0) {
    const names = [...nodes].sort();
    throw new OptionError(
      'INVALID_OPTION',
      ['input', 'nodeName'],
      "the node's name: the pods are scheduled on several nodes and no record places this one",
      `${names.length} nodes: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`,
    );
  }
  return all.filter((p) => p.nodeName !== undefined && here.has(p.nodeName));
}

/** `nodeName` is on no given pod: the nodes they are on, and the one that differs only in case. */
function nodeNotFound(nodeName: string, pods: readonly ApiPod[]): OptionError {
  const nodes = [...new Set(pods.map((p) => p.nodeName).filter((n): n is string => n !== undefined))].sort();
  const near = nodes.find((n) => n.toLowerCase() === nodeName.toLowerCase());
  const unscheduled = pods.filter((p) => p.nodeName === undefined).length;
  return new OptionError(
    'NODE_NOT_FOUND',
    ['input', 'nodeName'],
    `a node some given pod is scheduled on (spec.nodeName): no pod of the ${pods.length} given is on ${JSON.stringify(nodeName)}`,
    `${near !== undefined ? `did you mean ${JSON.stringify(near)}? ` : ''}${nodes.length > 0 ? `the pods are on ${nodes.slice(0, 5).join(', ')}${nodes.length > 5 ? `, … (${nodes.length} nodes)` : ''}` : 'no pod names a node'}${unscheduled > 0 && nodes.length > 0 ? `; ${unscheduled} name none` : ''}`,
  );
}

/** Why the kubelet's PodSandboxChanged recreates `pod`, or `undefined` when a sandbox fits it. */
export function sandboxProblem(pod: ApiPod, sandboxes: readonly PodSandboxInfo[] | undefined): string | undefined {
  if (!sandboxes || sandboxes.length === 0) return 'the runtime holds no sandbox record for the pod';
  const mode = (host: boolean): string => (host ? 'the node (hostNetwork)' : 'its own (pod network)');
  const fitting = sandboxes.filter((s) => s.hostNetwork === pod.hostNetwork);
  if (fitting.length === 0)
    return `its sandbox's network namespace is ${mode(!pod.hostNetwork)} but the API pod asks for ${mode(pod.hostNetwork)}`;
  if (!pod.hostNetwork && fitting.every((s) => s.ip === ''))
    return 'its sandbox has no IP recorded for a pod-network pod';
  return undefined;
}
