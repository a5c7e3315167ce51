/**
 * The pod sandbox as computePodActions sees it (`podSandboxChanged`, from 1.29 in
 * pkg/kubelet/kuberuntime/util): whether it needs a new one, and whether one existed before (the
 * kubelet's `attempt != 0`). A node agent knows the sandbox from CRI; a controller only from the
 * `PodReadyToStartContainers` condition, where the kubelet publishes it. What is not given is
 * assumed, and said.
 */
import type { JsonPathSegment } from '../errors.js';
import { readOptionFields, type OptionFields } from '../option-fields.js';

/**
 * The pod's sandbox as the runtime reports it (CRI `PodSandboxStatus` of the pod's newest sandbox):
 * whether one `exists`, is `ready` (`SANDBOX_READY`, the only ready one) and `hasIp` (a pod-network
 * pod's sandbox without an IP is replaced). Members not given are assumed (ready, with an IP) and
 * said in the answer.
 *
 * @example
 * ```ts
 * import { predictRestarts, type SandboxInput } from 'kubelet-hash';
 * const pod = { spec: { containers: [{ name: 'web', image: 'nginx' }] } };
 * const sandbox: SandboxInput = { exists: true, ready: false };
 * predictRestarts(pod, pod, { kubeletVersion: '1.30', sandbox }).pod.action; // → 'kill-and-recreate'
 * ```
 *
 * @group Kubelet decisions
 */
export interface SandboxInput {
  /** A sandbox of this pod exists in the runtime (ready or not). */
  exists?: boolean;
  /** The newest sandbox is ready, and no other one is. */
  ready?: boolean;
  /** The sandbox has an IP address (ignored for hostNetwork pods). */
  hasIp?: boolean;
}

/** A sandbox's facts, each optional (absent: assumed, and said). */
const SANDBOX_FIELDS = { exists: 'boolean', ready: 'boolean', hasIp: 'boolean' } as const satisfies OptionFields;

/** Reads a {@link SandboxInput}: a typed error names the member (an unknown one with a suggestion). */
export function readSandbox(input: unknown, path: JsonPathSegment[]): SandboxInput {
  return readOptionFields(input, path, {
    fields: SANDBOX_FIELDS,
    expected: 'a sandbox state: { exists?: boolean, ready?: boolean, hasIp?: boolean }',
  });
}

/** What the kubelet concludes about the sandbox. */
export interface SandboxOutcome {
  /** It makes a new sandbox (killing the pod first). */
  recreate: boolean;
  /** A sandbox existed before (the new one's attempt is not 0). */
  existed: boolean;
  /** Why, for people. */
  why: string;
  assumptions: string[];
}

/**
 * `podSandboxChanged` over what the caller knows: the runtime's sandbox (`sandbox`), else the pod's
 * PodReadyToStartContainers condition (`conditionReady`), else nothing (ready assumed).
 */
export function sandboxOutcome(
  sandbox: SandboxInput | undefined,
  conditionReady: boolean | undefined,
  hostNetwork: boolean,
): SandboxOutcome {
  const assumptions: string[] = [];
  if (sandbox !== undefined) {
    if (sandbox.exists === false) return { recreate: true, existed: false, why: 'the pod has no sandbox', assumptions };
    if (sandbox.exists === undefined) assumptions.push('a sandbox exists (sandbox.exists not given)');
    if (sandbox.ready === false)
      return { recreate: true, existed: true, why: 'the pod sandbox is not ready', assumptions };
    if (sandbox.ready === undefined) assumptions.push('the sandbox is ready (sandbox.ready not given)');
    if (!hostNetwork && sandbox.hasIp === false)
      return { recreate: true, existed: true, why: 'the pod sandbox has no IP address', assumptions };
    if (!hostNetwork && sandbox.hasIp === undefined)
      assumptions.push('the sandbox has an IP address (sandbox.hasIp not given)');
    return { recreate: false, existed: true, why: 'the sandbox is ready', assumptions };
  }
  if (conditionReady === false) {
    assumptions.push(
      'a sandbox exists (the PodReadyToStartContainers condition does not tell a missing sandbox from a stopped one)',
    );
    return {
      recreate: true,
      existed: true,
      why: 'the PodReadyToStartContainers condition is False: the sandbox is not ready or has no network',
      assumptions,
    };
  }
  if (conditionReady === true)
    return { recreate: false, existed: true, why: 'PodReadyToStartContainers is True', assumptions };
  assumptions.push(
    'the pod sandbox is ready and has an IP (no sandbox state and no PodReadyToStartContainers condition given)',
  );
  return { recreate: false, existed: true, why: 'the sandbox is assumed ready', assumptions };
}
