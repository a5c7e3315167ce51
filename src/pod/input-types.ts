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
  /** The container name, unique in the pod. */
  name?: string;
  /** The image reference as written in the spec. */
  image?: string;
  /** The entrypoint (the image's when absent). */
  command?: readonly string[];
  /** The entrypoint's arguments. */
  args?: readonly string[];
  /** The working directory. */
  workingDir?: string;
  /** `ContainerPort` objects. */
  ports?: readonly object[];
  /** `EnvFromSource` objects. */
  envFrom?: readonly object[];
  /** `EnvVar` objects. */
  env?: readonly object[];
  /** `ResourceRequirements`: limits, requests, claims. */
  resources?: object;
  /** `ContainerResizePolicy` objects (in-place resize, 1.27+). */
  resizePolicy?: readonly object[];
  /** `Always` makes an init container a sidecar (1.28+); from 1.34 also on regular containers. */
  restartPolicy?: string;
  /** `ContainerRestartRule` objects (1.34+). */
  restartPolicyRules?: readonly object[];
  /** `VolumeMount` objects. */
  volumeMounts?: readonly object[];
  /** `VolumeDevice` objects. */
  volumeDevices?: readonly object[];
  /** A `Probe`. */
  livenessProbe?: object;
  /** A `Probe`. */
  readinessProbe?: object;
  /** A `Probe`. */
  startupProbe?: object;
  /** `Lifecycle` hooks. */
  lifecycle?: object;
  /** Where the termination message is read from. */
  terminationMessagePath?: string;
  /** `File` or `FallbackToLogsOnError`. */
  terminationMessagePolicy?: string;
  /** `Always`, `IfNotPresent` or `Never`. */
  imagePullPolicy?: string;
  /** A `SecurityContext`. */
  securityContext?: object;
  /** Keep a stdin buffer open. */
  stdin?: boolean;
  /** Close stdin after the first attach ends. */
  stdinOnce?: boolean;
  /** Allocate a TTY. */
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
  /** The object's API version (`v1` for a Pod, `apps/v1`…). */
  apiVersion?: string;
  /** `Pod`, `Deployment`, … (absent for a bare pod spec). */
  kind?: string;
  /** `ObjectMeta`: name, namespace, uid, annotations…. */
  metadata?: object;
  /** A Pod's spec, or a workload's (with `template`). */
  spec?: object;
  /** A Pod's status: its container states are read when `podStatus` is not given separately where a function says so. */
  status?: object;
  /** A pod spec given alone. */
  containers?: readonly (ContainerFields | object)[];
  /** Init containers of a pod spec given alone. */
  initContainers?: readonly (ContainerFields | object)[];
  /** Ephemeral containers of a pod spec given alone. */
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
