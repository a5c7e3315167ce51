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
 * @group Kubelet decisions
 */
export type PodInput = PodFields | object;
