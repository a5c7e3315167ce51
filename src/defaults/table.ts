/**
 * What the apiserver fills into a container before any kubelet sees it, one data row per fact, in
 * the order the apiserver applies them (SetDefaults_Pod, then the per-container defaulters, then
 * the pod strategy, then the service-account admission plugin). Each row names its upstream source,
 * read at the release tags: `pkg/apis/core/v1/defaults.go` and `zz_generated.defaults.go` of
 * k8s.io/kubernetes (vendored trees at 1.10.9, 1.15.0, 1.17.0, 1.19.1, 1.21.4, 1.22.6, 1.23.15,
 * 1.24.14, 1.26.7, 1.27.7, 1.28.6, 1.29.6, 1.31.11, 1.32.10 and master), `+default=` markers of
 * `core/v1/types.go` at every `kubernetes-1.N.0` tag of k8s.io/api, and the PRs cited per row.
 */
import type { ContainerList } from '../pod/locate.js';

/**
 * The pod-spec lists a row applies to, each with the first minor release it applies there.
 *
 * @example
 * ```ts
 * import { APISERVER_DEFAULTS, type ListStarts } from 'kubelet-hash';
 *
 * const lists: ListStarts = APISERVER_DEFAULTS.find((row) => row.id === 'terminationMessagePath')!.lists;
 * lists.ephemeralContainers; // → 21
 * ```
 */
export type ListStarts = Readonly<Partial<Record<ContainerList, number>>>;

/**
 * The kinds of value rule; how each is applied lives in `apply.ts`.
 *
 * @example
 * ```ts
 * import { APISERVER_DEFAULTS, type DefaultRuleKind } from 'kubelet-hash';
 *
 * const kind: DefaultRuleKind = APISERVER_DEFAULTS.find((row) => row.id === 'imagePullPolicy')!.rule.kind;
 * kind; // → 'image-pull-policy'
 * ```
 */
export type DefaultRuleKind =
  | 'zero'
  | 'force'
  | 'image-pull-policy'
  | 'requests-from-limits'
  | 'round-up-milli'
  | 'host-port'
  | 'resize-policy'
  | 'token-mount';

/**
 * How a row computes its value.
 *
 * @example
 * ```ts
 * import { APISERVER_DEFAULTS, type DefaultRule } from 'kubelet-hash';
 *
 * const rule: DefaultRule = APISERVER_DEFAULTS.find((row) => row.id === 'terminationMessagePath')!.rule;
 * rule.value; // → '/dev/termination-log'
 * ```
 */
export interface DefaultRule {
  /**
   * `zero`: set `value` where the field holds its Go zero value ("", 0, nil pointer); `force`:
   * overwrite with `value` whenever the parent object is present; `image-pull-policy`: `Always` for
   * tag `latest` or neither tag nor digest, else `IfNotPresent`; `requests-from-limits`: requests
   * gain every limit they lack; `round-up-milli`: quantities rounded away from zero to milli;
   * `host-port`: hostPort = containerPort where 0; `resize-policy`: `{resourceName, restartPolicy:
   * NotRequired}` for cpu and memory requests without a policy; `token-mount`: the service-account
   * token volume mount.
   */
  readonly kind: DefaultRuleKind;
  /** The value of `zero` and `force` rules. */
  readonly value?: string | number | boolean;
}

/**
 * An apiserver feature gate a default depends on.
 *
 * @example
 * ```ts
 * import { APISERVER_DEFAULTS, type DefaultGate } from 'kubelet-hash';
 *
 * const gate: DefaultGate | undefined = APISERVER_DEFAULTS.find((row) => row.gate)?.gate;
 * gate?.name; // → 'InPlacePodVerticalScaling'
 * ```
 */
export interface DefaultGate {
  /** The gate's name (`InPlacePodVerticalScaling`). */
  readonly name: string;
  /** The default applies while the gate has this value. */
  readonly when: boolean;
  /** The gate's default over the row's releases. */
  readonly default: boolean;
}

/**
 * One apiserver default.
 *
 * @example
 * ```ts
 * import { apiserverDefaultsFor, type ApiserverDefault } from 'kubelet-hash';
 *
 * const rows: ApiserverDefault[] = apiserverDefaultsFor({ kubeletVersion: '1.29' });
 * rows.some((row) => row.id === 'terminationMessagePath'); // → true
 * ```
 */
export interface ApiserverDefault {
  /** Stable identifier (`probe.timeoutSeconds`). */
  readonly id: string;
  /**
   * Where it applies, as JSON paths inside the container; `*` steps into every array element.
   * A path whose fields a release's model lacks is skipped for that release (the field does not exist there).
   */
  readonly paths: readonly (readonly string[])[];
  /** The value rule. */
  readonly rule: DefaultRule;
  /** First minor release (1.N) with this default. */
  readonly first: number;
  /** Last minor release with it; null while current. */
  readonly last: number | null;
  /** The pod-spec lists it applies to, with the first minor for each. */
  readonly lists: ListStarts;
  /** The apiserver feature gate it depends on: applies when the gate equals `when`; `default` is the gate's default over the row's releases. */
  readonly gate?: DefaultGate;
  /** Applies only when the caller gives the pod spec with `hostNetwork: true`. */
  readonly hostNetworkOnly?: boolean;
  /** Where upstream does it. */
  readonly source: string;
}

// Ephemeral containers (1.16+) get the generated per-field defaults from the start, but
// SetDefaults_Container only from SetDefaults_EphemeralContainer (read at 1.21.4, absent at 1.19.1).
const ALL_LISTS: ListStarts = { initContainers: 8, containers: 8, ephemeralContainers: 16 };
const CONTAINER_DEFAULTER_LISTS: ListStarts = { initContainers: 8, containers: 8, ephemeralContainers: 21 };
const POD_LISTS: ListStarts = { initContainers: 8, containers: 8 };
const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const HTTP_GETS = [
  ...PROBES.map((p) => [p, 'httpGet']),
  ['lifecycle', 'postStart', 'httpGet'],
  ['lifecycle', 'preStop', 'httpGet'],
] as const;
const DEFAULTS_GO = 'pkg/apis/core/v1/defaults.go';
const GENERATED_GO = 'pkg/apis/core/v1/zz_generated.defaults.go';

/**
 * Every container-level apiserver default of every supported release (1.8 on), in the order the apiserver applies
 * them (see {@link apiserverDefaultsFor} for one release's).
 *
 * @example
 * ```ts
 * import { APISERVER_DEFAULTS } from 'kubelet-hash';
 *
 * const grpc = APISERVER_DEFAULTS.find((row) => row.id === 'probe.grpc.service');
 * // GRPCAction.service defaults to "" from 1.23:
 * grpc?.first; // → 23
 * ```
 */
export const APISERVER_DEFAULTS: readonly ApiserverDefault[] = Object.freeze([
  {
    id: 'resources.requests',
    paths: [['resources']],
    rule: { kind: 'requests-from-limits' },
    first: 8,
    last: null,
    lists: POD_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_Pod (containers and init containers; Pods only)`,
  },
  {
    id: 'resizePolicy',
    paths: [['resizePolicy']],
    rule: { kind: 'resize-policy' },
    first: 27,
    last: 32,
    lists: { containers: 27 },
    gate: { name: 'InPlacePodVerticalScaling', when: true, default: false },
    source: `${DEFAULTS_GO} SetDefaults_Pod (kubernetes#116119; removed in 1.33 by kubernetes#128920)`,
  },
  {
    id: 'ports.hostPort',
    paths: [['ports', '*', 'hostPort']],
    rule: { kind: 'host-port' },
    first: 8,
    last: null,
    lists: POD_LISTS,
    hostNetworkOnly: true,
    source: `${DEFAULTS_GO} defaultHostNetworkPorts (SetDefaults_PodSpec to 1.27, SetDefaults_Pod from 1.28)`,
  },
  {
    id: 'imagePullPolicy',
    paths: [['imagePullPolicy']],
    rule: { kind: 'image-pull-policy' },
    first: 8,
    last: null,
    lists: CONTAINER_DEFAULTER_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_Container with pkg/util/parsers.ParseImageName`,
  },
  {
    id: 'terminationMessagePath',
    paths: [['terminationMessagePath']],
    rule: { kind: 'zero', value: '/dev/termination-log' },
    first: 8,
    last: null,
    lists: CONTAINER_DEFAULTER_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_Container (v1.TerminationMessagePathDefault)`,
  },
  {
    id: 'terminationMessagePolicy',
    paths: [['terminationMessagePolicy']],
    rule: { kind: 'zero', value: 'File' },
    first: 8,
    last: null,
    lists: CONTAINER_DEFAULTER_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_Container (v1.TerminationMessageReadFile)`,
  },
  {
    id: 'ports.protocol',
    paths: [['ports', '*', 'protocol']],
    rule: { kind: 'zero', value: 'TCP' },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_ContainerPort to 1.19; ContainerPort.Protocol +default="TCP" from 1.20`,
  },
  {
    id: 'env.fieldRef.apiVersion',
    paths: [['env', '*', 'valueFrom', 'fieldRef', 'apiVersion']],
    rule: { kind: 'zero', value: 'v1' },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_ObjectFieldSelector`,
  },
  {
    id: 'env.fileKeyRef.optional',
    paths: [['env', '*', 'valueFrom', 'fileKeyRef', 'optional']],
    rule: { kind: 'zero', value: false },
    first: 34,
    last: null,
    lists: ALL_LISTS,
    source: 'core/v1/types.go FileKeySelector.Optional +default=false (k8s.io/api kubernetes-1.34.0)',
  },
  {
    id: 'resources.roundUp',
    paths: [
      ['resources', 'limits'],
      ['resources', 'requests'],
    ],
    rule: { kind: 'round-up-milli' },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_ResourceList (Quantity.RoundUp(-3), kubernetes#18538)`,
  },
  ...(
    [
      ['timeoutSeconds', 1],
      ['periodSeconds', 10],
      ['successThreshold', 1],
      ['failureThreshold', 3],
    ] as const
  ).map(([field, value]): ApiserverDefault => ({
    id: `probe.${field}`,
    paths: PROBES.map((p) => [p, field]),
    rule: { kind: 'zero', value },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_Probe (startupProbe from 1.16)`,
  })),
  {
    id: 'httpGet.path',
    paths: HTTP_GETS.map((p) => [...p, 'path']),
    rule: { kind: 'zero', value: '/' },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_HTTPGetAction (probes and lifecycle handlers)`,
  },
  {
    id: 'httpGet.scheme',
    paths: HTTP_GETS.map((p) => [...p, 'scheme']),
    rule: { kind: 'zero', value: 'HTTP' },
    first: 8,
    last: null,
    lists: ALL_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_HTTPGetAction (probes and lifecycle handlers)`,
  },
  {
    id: 'probe.grpc.service',
    paths: PROBES.map((p) => [p, 'grpc', 'service']),
    rule: { kind: 'zero', value: '' },
    first: 23,
    last: null,
    lists: ALL_LISTS,
    source: `GRPCAction.Service +default="" (k8s.io/api kubernetes-1.23.0), generated in ${GENERATED_GO}`,
  },
  {
    id: 'securityContext.procMount.default',
    paths: [['securityContext', 'procMount']],
    rule: { kind: 'zero', value: 'Default' },
    first: 14,
    last: 14,
    lists: POD_LISTS,
    source: `${DEFAULTS_GO} SetDefaults_SecurityContext in 1.14.0 (kubernetes#78633; gone from later 1.14 patches by kubernetes#78883)`,
  },
  {
    id: 'securityContext.procMount.forced',
    paths: [['securityContext', 'procMount']],
    rule: { kind: 'force', value: 'Default' },
    first: 12,
    last: 14,
    lists: POD_LISTS,
    gate: { name: 'ProcMountType', when: false, default: false },
    source:
      'pkg/api/pod/util.go DropDisabledProcMountField on create (1.12.0–1.14.0; later patches keep nil: kubernetes#78881, #78882, #78883)',
  },
  {
    id: 'volumeMounts.serviceAccountToken',
    paths: [['volumeMounts']],
    rule: { kind: 'token-mount' },
    first: 8,
    last: null,
    lists: POD_LISTS,
    source: 'plugin/pkg/admission/serviceaccount/admission.go mountServiceAccountToken (when a token volume is given)',
  },
] satisfies ApiserverDefault[]);

/**
 * Where the service-account admission plugin mounts the token (every supported release).
 *
 * @example
 * ```ts
 * import { SERVICE_ACCOUNT_TOKEN_MOUNT_PATH } from 'kubelet-hash';
 *
 * SERVICE_ACCOUNT_TOKEN_MOUNT_PATH; // → '/var/run/secrets/kubernetes.io/serviceaccount'
 * ```
 */
export const SERVICE_ACCOUNT_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
