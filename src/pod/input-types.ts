/**
 * The shapes the container and pod functions take, spelled out for editors and type checks. Every
 * field is optional and loosely typed: the functions check the values themselves (with the errors
 * a kubelet or apiserver would give), and `@kubernetes/client-node`'s `V1Container`/`V1Pod` (class
 * instances with Dates in metadata and status) fit as they are. The `| object` keeps any other
 * object (a parsed manifest typed `object`, a field this list does not name) acceptable.
 */

/**
 * A Kubernetes container (`v1.Container`), the fields a kubelet's hash can read.
 *
 * @example
 * ```ts
 * import { hashContainer, type ContainerFields } from 'kubelet-hash';
 * const web: ContainerFields = { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] };
 * // From 1.31 only name and image are hashed: the ports do not count.
 * hashContainer(web, { kubeletVersion: '1.31' }) === hashContainer({ name: 'web', image: 'nginx:1.27' }, { kubeletVersion: '1.31' }); // → true
 * ```
 *
 * @group Hashing
 */
export interface ContainerFields {
  name?: string;
  image?: string;
  command?: readonly string[];
  args?: readonly string[];
  workingDir?: string;
  ports?: readonly object[];
  envFrom?: readonly object[];
  env?: readonly object[];
  resources?: object;
  resizePolicy?: readonly object[];
  restartPolicy?: string;
  restartPolicyRules?: readonly object[];
  volumeMounts?: readonly object[];
  volumeDevices?: readonly object[];
  livenessProbe?: object;
  readinessProbe?: object;
  startupProbe?: object;
  lifecycle?: object;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: object;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

/**
 * A Pod, a pod spec, or a workload with a pod template (`spec.template`), as `predictRestarts` and
 * `locateContainers` take them.
 *
 * @example
 * ```ts
 * import { predictRestarts, type PodFields } from 'kubelet-hash';
 * const pod: PodFields = { metadata: { name: 'web-0' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
 * predictRestarts(pod, pod, { kubeletVersion: '1.31' }).containers[0]!.action; // → 'keep'
 * ```
 *
 * @group Kubelet decisions
 */
export interface PodFields {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  /** A Pod's spec, or a workload's (with `template`). */
  spec?: object;
  status?: object;
  /** A pod spec given alone. */
  containers?: readonly (ContainerFields | object)[];
  initContainers?: readonly (ContainerFields | object)[];
  ephemeralContainers?: readonly object[];
}

/**
 * What `predictRestarts` takes for each side: see {@link PodFields}.
 *
 * @example
 * ```ts
 * import { predictRestarts, type PodInput } from 'kubelet-hash';
 * const before: PodInput = { spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] } };
 * const after: PodInput = { spec: { containers: [{ name: 'app', image: 'busybox:1.37' }] } };
 * predictRestarts(before, after, { kubeletVersion: '1.31' }).containers[0]!.action; // → 'restart'
 * ```
 *
 * @group Kubelet decisions
 */
export type PodInput = PodFields | object;
