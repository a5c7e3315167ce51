/** Which kind of container the kubelet sees, which decides whether it compares hashes at all. */
import { OptionError } from '../errors.js';
import { CONTAINER_LISTS, type ContainerList } from '../pod/locate.js';

/**
 * - `container`: `spec.containers[i]`;
 * - `sidecar`: an init container with `restartPolicy: Always` (a restartable init container);
 * - `init`: an ordinary init container (runs to completion, never rerun for a spec change);
 * - `ephemeral`: a debug container (never restarted).
 *
 * @example
 * ```ts
 * import { predictRestarts, type ContainerRole } from 'kubelet-hash';
 *
 * const pod = { spec: { initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'nginx' }] } };
 * const roles: ContainerRole[] = predictRestarts(pod, pod, { kubeletVersion: '1.33' }).containers.map((c) => c.role);
 * roles; // → ['sidecar', 'container']
 * ```
 *
 * @group Kubelet decisions
 */
export type ContainerRole = (typeof CONTAINER_ROLES)[number];

/** Every {@link ContainerRole}, in the order a pod lists them. */
export const CONTAINER_ROLES = ['container', 'sidecar', 'init', 'ephemeral'] as const;

export function containerRole(list: unknown, container: unknown): ContainerRole {
  const l = list ?? 'containers';
  if (!CONTAINER_LISTS.includes(l as ContainerList)) {
    throw new OptionError(
      'INVALID_OPTION',
      ['options', 'containerList'],
      '"containers", "initContainers" or "ephemeralContainers"',
      `found ${JSON.stringify(list)}`,
    );
  }
  if (l === 'ephemeralContainers') return 'ephemeral';
  if (l === 'containers') return 'container';
  const policy =
    typeof container === 'object' && container !== null
      ? (container as Record<string, unknown>)['restartPolicy']
      : undefined;
  return policy === 'Always' ? 'sidecar' : 'init';
}
