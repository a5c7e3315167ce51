/**
 * Who applies a change to running pods, as data: one row per rule of the apiserver's Pod update
 * validation, of the native workload controllers and of OpenKruise's in-place update, with the
 * releases it holds for and the source it was read from. `pod-update.ts`, `native-rollout.ts` and
 * `openkruise.ts` decide by these rows, so every prediction names its rule and source.
 *
 * Kubernetes rules count Kubernetes minors (`8` for 1.8); OpenKruise rules count OpenKruise 1.x
 * minors (`8` for v1.8). Sources are `path@tag (function)`; `@master` marks text read at
 * kubernetes/kubernetes master (commit 000f2605, 2025) whose first release is given by the range.
 */

/**
 * Who decides what happens to the running pods: the apiserver (admits or refuses the edit), a
 * controller (replaces pods, or patches them in place), or the kubelet (restarts containers of a
 * pod patched in place).
 *
 * @example
 * ```ts
 * import { predictRollout, type RolloutDecider } from 'kubelet-hash';
 * const pod = (image: string) => ({ kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'web', image }] } });
 * const by: RolloutDecider = predictRollout(pod('nginx:1'), pod('nginx:2'), { kubeletVersion: '1.31' }).decidedBy;
 * by; // → 'kubelet'
 * ```
 *
 * @group Kubelet decisions
 */
export type RolloutDecider = 'apiserver' | 'controller' | 'kubelet';

/**
 * Every rule {@link predictRollout} applies; see {@link ROLLOUT_RULES}.
 *
 * @example
 * ```ts
 * import { predictRollout, type RolloutRuleId } from 'kubelet-hash';
 * const job = (image: string) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'a', image }] } } } });
 * const id: RolloutRuleId | null = predictRollout(job('a:1'), job('a:2'), { kubeletVersion: '1.31' }).ruleId;
 * id; // → 'job-template-immutable'
 * ```
 *
 * @group Kubelet decisions
 */
export type RolloutRuleId =
  | 'pod-metadata-mutable'
  | 'pod-metadata-immutable'
  | 'pod-mirror-annotation'
  | 'pod-containers-added-or-removed'
  | 'pod-image'
  | 'pod-active-deadline'
  | 'pod-tolerations-added'
  | 'pod-termination-grace-negative'
  | 'pod-scheduling-gates-removed'
  | 'pod-resources-update'
  | 'pod-resize-subresource'
  | 'pod-resize-qos'
  | 'pod-resize-removal'
  | 'pod-resize-memory-limit-decrease'
  | 'pod-resize-pod-level-resources'
  | 'pod-resize-static-or-windows'
  | 'pod-resize-node-support'
  | 'pod-resize-sidecar'
  | 'pod-resize-init'
  | 'pod-ephemeral-subresource'
  | 'pod-ephemeral-immutable'
  | 'pod-spec-immutable'
  | 'pod-metadata-server-set'
  | 'pod-active-deadline-value'
  | 'pod-toleration-values'
  | 'pod-toleration-comparison'
  | 'pod-scheduling-gate-values'
  | 'pod-gated-scheduling-directives'
  | 'pod-static-no-ephemeral'
  | 'pod-default-tolerations'
  | 'pod-ephemeral-dropped'
  | 'pod-ephemeral-alone'
  | 'apps-selector-immutable'
  | 'deployment-rollout'
  | 'deployment-paused'
  | 'template-unchanged'
  | 'replicaset-future-pods'
  | 'statefulset-rolling-update'
  | 'statefulset-on-delete'
  | 'statefulset-spec-immutable'
  | 'statefulset-field-immutable'
  | 'daemonset-rolling-update'
  | 'daemonset-on-delete'
  | 'job-template-immutable'
  | 'cronjob-future-jobs'
  | 'pod-active-deadline-exceeded'
  | 'job-suspended'
  | 'job-parallelism-lowered'
  | 'job-active-deadline-exceeded'
  | 'workload-scaled-down'
  | 'kruise-scaled-down'
  | 'kruise-pods-to-delete'
  | 'kruise-readiness-hash'
  | 'kruise-recreate'
  | 'kruise-in-place-image'
  | 'kruise-in-place-metadata'
  | 'kruise-env-from-metadata'
  | 'kruise-in-place-resources'
  | 'kruise-resources-not-resizable'
  | 'kruise-recreate-fallback'
  | 'kruise-in-place-only-refused'
  | 'kruise-on-delete'
  | 'kruise-paused';

/**
 * One rule of who applies a change.
 *
 * @example
 * ```ts
 * import { ROLLOUT_RULES, type RolloutRule } from 'kubelet-hash';
 * const byApiserver: RolloutRule[] = ROLLOUT_RULES.filter((r) => r.decidedBy === 'apiserver' && r.id.startsWith('pod-'));
 * byApiserver.some((r) => r.id === 'pod-spec-immutable'); // → true
 * ```
 *
 * @group Kubelet decisions
 */
export interface RolloutRule {
  /** The rule's stable name. */
  readonly id: RolloutRuleId;
  /** Who decides by this rule. */
  readonly decidedBy: RolloutDecider;
  /** Whose releases `firstMinor`/`lastMinor` count: Kubernetes 1.x or OpenKruise 1.x. */
  readonly releases: 'kubernetes' | 'openkruise';
  /** The first minor release the rule holds in. */
  readonly firstMinor: number;
  /** `null` while it holds in the newest release modelled. */
  readonly lastMinor: number | null;
  /** A feature gate the rule needs (an apiserver gate, or an OpenKruise manager gate). */
  readonly gate?: {
    /** The gate's name. */
    readonly name: string;
    /** The value the rule needs. */
    readonly on: boolean;
  };
  /** Where it is decided: `path@tag (function)`. */
  readonly source: string;
  /** The rule in one sentence. */
  readonly statement: string;
}

const VALIDATION = 'pkg/apis/core/validation/validation.go';
const APPS_VALIDATION = 'pkg/apis/apps/validation/validation.go';
const KRUISE_DEFAULTS = 'pkg/util/inplaceupdate/inplace_update_defaults.go';

/**
 * The rules, apiserver first (it admits or refuses before any controller or kubelet acts).
 *
 * @example
 * ```ts
 * import { ROLLOUT_RULES } from 'kubelet-hash';
 * const env = ROLLOUT_RULES.find((r) => r.id === 'kruise-env-from-metadata')!;
 * [env.decidedBy, env.releases, env.firstMinor, env.gate?.name]; // → ['controller', 'openkruise', 0, 'InPlaceUpdateEnvFromMetadata']
 * ```
 *
 * @group Kubelet decisions
 */
export const ROLLOUT_RULES: readonly RolloutRule[] = Object.freeze([
  {
    id: 'pod-metadata-mutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodUpdate → ValidateObjectMetaUpdate)`,
    statement:
      "A running Pod's labels and annotations may change; the kubelet restarts nothing for them (env read through the downward API keeps the value it started with).",
  },
  {
    id: 'pod-metadata-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go@v1.8.0 (ValidateObjectMetaUpdate)',
    statement: 'metadata.name, metadata.namespace and metadata.uid of an object never change: "field is immutable".',
  },
  {
    id: 'pod-mirror-annotation',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodSpecificAnnotationUpdates)`,
    statement: 'The kubernetes.io/config.mirror annotation of a Pod may not be added, removed or changed.',
  },
  {
    id: 'pod-containers-added-or-removed',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodUpdate); ${VALIDATION}@master (ValidateContainerUpdates)`,
    statement:
      'A Pod update may not add or remove containers or init containers (spec.containers / spec.initContainers: "pod updates may not add or remove containers").',
  },
  {
    id: 'pod-image',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodUpdate: munge spec.containers[*].image, spec.initContainers[*].image); ${VALIDATION}@v1.20.2 (ValidateContainerUpdates: Required image, no leading or trailing whitespace; judged on the real 1.20.2 apiserver)`,
    statement:
      'spec.containers[*].image and spec.initContainers[*].image may change, to a non-empty image without leading or trailing whitespace (else refused at that image field); the kubelet then decides per container.',
  },
  {
    id: 'pod-active-deadline',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodUpdate: spec.activeDeadlineSeconds)`,
    statement:
      'spec.activeDeadlineSeconds may be set where it was unset or lowered; raising or unsetting it is refused.',
  },
  {
    id: 'pod-tolerations-added',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (validateOnlyAddedTolerations)`,
    statement:
      'spec.tolerations may gain entries; an existing toleration may not be removed or changed except its tolerationSeconds.',
  },
  {
    id: 'pod-termination-grace-negative',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 22,
    lastMinor: null,
    source: `${VALIDATION}@master (ValidatePodUpdate: terminationGracePeriodSeconds); absent from ${VALIDATION}@v1.20.2 (read) and a 1.22 change (kubernetes/kubernetes#98866, release 1.22 per #103476 and the 1.22 release notes)`,
    statement: 'spec.terminationGracePeriodSeconds may be set to 1 where it was negative; any other change is refused.',
  },
  {
    id: 'pod-scheduling-gates-removed',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 27,
    lastMinor: null,
    gate: { name: 'PodSchedulingReadiness', on: true },
    source: `${VALIDATION}@v1.27.0 (validateOnlyDeletedSchedulingGates; KEP-3521: alpha in 1.26, beta and on by default from 1.27, GA 1.30; 1.26 with the gate turned on is not modelled)`,
    statement:
      'spec.schedulingGates may only lose entries (a pod with gates is not yet scheduled, so no kubelet runs it).',
  },
  {
    id: 'pod-resources-update',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 27,
    lastMinor: 31,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.27.0 (ValidatePodUpdate: munge spec.containers[*].resources; alpha from 1.27, KEP-1287); until 1.31: kubernetes/kubernetes#128266 moved resizes to the resize subresource in 1.32`,
    statement:
      'With InPlacePodVerticalScaling on, 1.27–1.31 accept cpu and memory requests and limits of spec.containers[*] in the Pod update itself; the kubelet resizes (or restarts, by resizePolicy).',
  },
  {
    id: 'pod-resize-subresource',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 32,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@master (ValidatePodResize; pkg/registry/core/pod/strategy.go podResizeStrategy); from 1.32: kubernetes/kubernetes#128266 (the resize subresource, 1.32 release notes; KEP-1287 history "v1.32 updates"), alpha in 1.32, on by default from 1.33; sidecars from 1.33 (#128367)`,
    statement:
      'From 1.32 cpu and memory of containers (from 1.33 also sidecars) change only through the resize subresource (kubectl patch --subresource resize), in a request that changes nothing else; the Pod update refuses them.',
  },
  {
    id: 'pod-resize-qos',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 27,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.27.0 (ValidatePodUpdate: "Pod QoS is immutable"); ${VALIDATION}@v1.33.0 (ValidatePodResize)`,
    statement: "A resize may not change the pod's QoS class (Guaranteed, Burstable, BestEffort).",
  },
  {
    id: 'pod-resize-removal',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 32,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.32.13 (ValidatePodResize: resourcesRemoved), @v1.33.13–@v1.37.2 (validateContainerResize); on 1.27–1.31 the update's munge (@v1.29.6, @v1.30.14, @v1.31.14 mungeCpuMemResources) lets cpu and memory entries go`,
    statement:
      'From 1.32 a resize may not remove a resource request or limit (refused at spec.containers[i].resources.requests or .limits; sidecars likewise); a whole limits or requests map may be added to a container that had none.',
  },
  {
    id: 'pod-resize-memory-limit-decrease',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 33,
    lastMinor: 33,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.33.13 (validateContainerResize: memory limits may not be decreased or added unless the memory resizePolicy is RestartContainer); absent from @v1.32.13 and @v1.34.4`,
    statement:
      "On 1.33 only, a memory limit may not be lowered (or added) by a resize unless the container's memory resizePolicy is RestartContainer (refused at spec.containers[i].resources.limits[memory]).",
  },
  {
    id: 'pod-resize-pod-level-resources',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 32,
    lastMinor: 35,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.32.13, @v1.33.13, @v1.34.4 ("pods with pod-level resources cannot be resized"), @v1.35.4 (unless InPlacePodLevelResourcesVerticalScaling, alpha and off); pkg/features/kube_features.go@v1.37.2 (beta, on, from 1.36; its pod-level checks are not modelled)`,
    statement:
      'A pod with pod-level resources (spec.resources) cannot be resized on 1.32–1.35 (refused at the empty path).',
  },
  {
    id: 'pod-resize-static-or-windows',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 32,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.32.13–@v1.37.2 (ValidatePodResize: "static pods cannot be resized", "windows pods cannot be resized")`,
    statement:
      'A static (mirror) pod or a Windows pod (spec.os.name windows) cannot be resized (refused at the empty path).',
  },
  {
    id: 'pod-resize-node-support',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 32,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.32.13–@v1.37.2 (isPodResizeRequestSupported: the first running container's status must report resources)`,
    statement:
      "A resize is refused (at spec) when the old pod's status shows a running container without status resources: its node's kubelet does not resize.",
  },
  {
    id: 'pod-resize-sidecar',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 33,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.33.13 (ValidatePodResize: restartable init containers munged like containers, with SidecarContainers); @v1.32.13 munges containers only (a sidecar resize meets "only cpu and memory resources are mutable" at spec)`,
    statement: 'Sidecars (init containers with restartPolicy Always) are resized like containers from 1.33.',
  },
  {
    id: 'pod-resize-init',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 36,
    lastMinor: null,
    gate: { name: 'InPlacePodVerticalScaling', on: true },
    source: `${VALIDATION}@v1.36.3 and @v1.37.2 (ValidatePodResize: InPlacePodVerticalScalingInitContainers, beta and on from 1.36, GA 1.37); @v1.35.4 ("resources for non-sidecar init containers are immutable")`,
    statement:
      'From 1.36 the cpu and memory of regular init containers may be resized too; before, a resize touching them is refused at spec.',
  },
  {
    id: 'pod-ephemeral-subresource',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 23,
    lastMinor: null,
    gate: { name: 'EphemeralContainers', on: true },
    source: `${VALIDATION}@v1.23.0 (ValidatePodEphemeralContainersUpdate; beta, on by default from 1.23, GA 1.25)`,
    statement:
      'Ephemeral containers are added only through the ephemeralcontainers subresource (kubectl debug); the kubelet starts them once.',
  },
  {
    id: 'pod-ephemeral-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 23,
    lastMinor: null,
    source: `${VALIDATION}@v1.23.0 (ValidatePodEphemeralContainersUpdate: "may not be removed or changed"); ${VALIDATION}@master (ValidatePodUpdate)`,
    statement:
      'An ephemeral container may not be removed or changed, and the Pod update itself may not touch spec.ephemeralContainers.',
  },
  {
    id: 'pod-spec-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.8.0 (ValidatePodUpdate: "pod updates may not change fields other than …")`,
    statement:
      'Any other change of a running Pod\'s spec is refused; the apiserver reports it at `spec` ("pod updates may not change fields other than …" with a diff), the prediction names the first changed field.',
  },
  {
    id: 'pod-metadata-server-set',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go@v1.20.2 (ValidateObjectMetaAccessorUpdate: deletionTimestamp, deletionGracePeriodSeconds immutable; no new finalizers once deleting); staging/src/k8s.io/apiserver/pkg/registry/rest/update.go@v1.20.2 (BeforeUpdate: generation, creationTimestamp and a set deletionTimestamp kept from the old object, a removed deletionGracePeriodSeconds restored)',
    statement:
      'metadata.deletionTimestamp may not be set by an update, nor deletionGracePeriodSeconds set or changed ("field is immutable" at that field); a change of a set deletionTimestamp, of creationTimestamp or generation, or the removal of deletionGracePeriodSeconds is overwritten with the old value (no effect); finalizers may not be added to a pod being deleted.',
  },
  {
    id: 'pod-active-deadline-value',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.20.2 and @v1.37.2 (ValidatePodSpec: activeDeadlineSeconds in [1, MaxInt32], checked on the whole new pod before ValidatePodUpdate's own range [0, MaxInt32])`,
    statement:
      'A new spec.activeDeadlineSeconds must be between 1 and 2147483647: 0 or below is refused at spec.activeDeadlineSeconds, though the update rule alone allows 0.',
  },
  {
    id: 'pod-toleration-values',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: `${VALIDATION}@v1.20.2 and @v1.37.2 (ValidateTolerations, validateTaintEffect; run on the whole new pod and again by validateOnlyAddedTolerations)`,
    statement:
      'Every toleration of the new pod is validated: key a qualified name; an empty key only with Exists; tolerationSeconds only with effect NoExecute; Equal (or empty) with a label value (reported at operator), Exists with no value; effect empty or NoSchedule, PreferNoSchedule, NoExecute. The refusal names tolerations[i] and the member.',
  },
  {
    id: 'pod-toleration-comparison',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 35,
    lastMinor: null,
    source: `${VALIDATION}@v1.37.2 (ValidateTolerations: Lt/Gt only with AllowTaintTolerationComparisonOperators); pkg/api/pod/util.go@v1.37.2 (allowed when the old pod uses them); pkg/features/kube_features.go@v1.37.2 (TaintTolerationComparisonOperators alpha from 1.35, off)`,
    statement:
      'From 1.35, operators Lt and Gt (with a decimal integer value) are accepted when the old pod already uses them (the TaintTolerationComparisonOperators gate is alpha and off, not modelled); otherwise they are an unsupported operator.',
  },
  {
    id: 'pod-scheduling-gate-values',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 27,
    lastMinor: null,
    gate: { name: 'PodSchedulingReadiness', on: true },
    source: `${VALIDATION}@v1.29.6 and @v1.37.2 (validateSchedulingGates: qualified names, no duplicates)`,
    statement: 'Scheduling gate names must be qualified names without duplicates (refused at spec.schedulingGates[i]).',
  },
  {
    id: 'pod-gated-scheduling-directives',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 27,
    lastMinor: null,
    gate: { name: 'PodSchedulingReadiness', on: true },
    source: `${VALIDATION}@v1.29.6 (ValidatePodUpdate: AllowMutableNodeSelectorAndNodeAffinity for a gated pod, from PodSchedulingReadiness), @v1.30.14 and @v1.37.2 (unconditional; validateNodeSelectorMutation, validateNodeAffinityMutation, validateNodeSelectorTermHasOnlyAdditions); KEP-3838 (beta 1.27)`,
    statement:
      'On a pod that still has scheduling gates, spec.nodeSelector may gain entries (not lose or change them) and the required node affinity may be narrowed (set where it had no terms; else the same number of terms, each only gaining match expressions or fields); preferred node affinity may change.',
  },
  {
    id: 'pod-static-no-ephemeral',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 28,
    lastMinor: null,
    source: `${VALIDATION}@v1.29.6, @v1.30.14 and @v1.37.2 (ValidatePodEphemeralContainersUpdate: "static pods do not support ephemeral containers", reported at the empty path, which field.Path prints as \`[]\`; kubernetes/kubernetes#113935), also @v1.28.15; absent from @v1.20.2`,
    statement:
      'A mirror pod (a static pod, annotation kubernetes.io/config.mirror) takes no ephemeral containers: the ephemeralcontainers subresource refuses them.',
  },
  {
    id: 'pod-default-tolerations',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'plugin/pkg/admission/defaulttolerationseconds/admission.go@v1.20.2 and @v1.37.2 (Admit, on Create and Update of pods proper, default-enabled; before validation)',
    statement:
      'A Pod update that leaves no toleration of node.kubernetes.io/not-ready (or unreachable) with effect NoExecute gets one back (operator Exists, tolerationSeconds 300) before validation: removing the default tolerations is admitted and changes nothing.',
  },
  {
    id: 'pod-ephemeral-dropped',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 16,
    lastMinor: 22,
    gate: { name: 'EphemeralContainers', on: false },
    source: 'pkg/api/pod/util.go@v1.20.2 (dropDisabledFields: EphemeralContainers off by default until 1.23)',
    statement:
      'With the EphemeralContainers gate off (the default before 1.23), ephemeral containers a Pod update adds to a pod that has none are dropped: the update is admitted and nothing starts.',
  },
  {
    id: 'pod-ephemeral-alone',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 23,
    lastMinor: null,
    source: `${VALIDATION}@v1.31.14 and @v1.37.2 (ValidatePodUpdate: the munged spec keeps spec.ephemeralContainers, so a Pod update that changes them is refused at spec)`,
    statement:
      'Only the ephemeralcontainers subresource adds ephemeral containers, and it takes nothing else: an edit that adds them together with any other change is one Pod update, refused at spec.',
  },
  {
    id: 'apps-selector-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 9,
    lastMinor: null,
    source: `${APPS_VALIDATION}@v1.9.0 (ValidateDeploymentUpdate, ValidateReplicaSetUpdate, ValidateDaemonSetUpdate: apps/v1 selector immutable)`,
    statement: 'spec.selector of an apps/v1 Deployment, ReplicaSet, DaemonSet or StatefulSet is immutable.',
  },
  {
    id: 'deployment-rollout',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/deployment/sync.go@v1.8.0 (getNewReplicaSet: ComputeHash of the template); pkg/controller/deployment/util/deployment_util.go@v1.8.0 (EqualIgnoreHash)',
    statement:
      'A change of spec.template makes a new ReplicaSet: every pod is replaced (RollingUpdate: a few at a time; Recreate: all deleted first), whatever the kubelet would do with the containers.',
  },
  {
    id: 'deployment-paused',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/deployment/deployment_controller.go@v1.8.0 (syncDeployment: d.Spec.Paused → sync only)',
    statement: 'A paused Deployment rolls nothing out until it is resumed; then every pod is replaced.',
  },
  {
    id: 'template-unchanged',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/deployment/util/deployment_util.go@v1.8.0 (EqualIgnoreHash); pkg/controller/history/controller_history.go@v1.8.0 (HashControllerRevision of the template patch)',
    statement:
      'A change outside spec.template (replicas, strategy, minReadySeconds, labels of the workload), or one that leaves the template equal once decoded (quantity spellings, `[]` for absent, key order), leaves the template hash and revision as they were: no pod is replaced.',
  },
  {
    id: 'replicaset-future-pods',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/replicaset/replica_set.go@v1.8.0 (manageReplicas: new pods from rs.Spec.Template only)',
    statement:
      'A ReplicaSet or ReplicationController never compares running pods with its template: they keep running; pods it creates later use the new template.',
  },
  {
    id: 'statefulset-rolling-update',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/statefulset/stateful_set_control.go@v1.8.0 (updateStatefulSet: RollingUpdate, partition)',
    statement:
      'RollingUpdate (the default) deletes and recreates each pod whose ordinal is at least spec.updateStrategy.rollingUpdate.partition (0 by default), highest ordinal first.',
  },
  {
    id: 'statefulset-on-delete',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/statefulset/stateful_set_control.go@v1.8.0 (updateStatefulSet: OnDelete)',
    statement: 'OnDelete replaces nothing: a pod gets the new template when it is deleted.',
  },
  {
    id: 'statefulset-spec-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: 36,
    source: `${APPS_VALIDATION}@v1.8.0 and @v1.36.0 (ValidateStatefulSetUpdate: "updates to statefulset spec for fields other than …")`,
    statement:
      'spec.selector, spec.serviceName, spec.volumeClaimTemplates and spec.podManagementPolicy of a StatefulSet are immutable in every release (the other fields have moved in and out of the list across releases and are not judged here).',
  },
  {
    id: 'statefulset-field-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 37,
    lastMinor: null,
    source: `${APPS_VALIDATION}@v1.37.2 (ValidateStatefulSetUpdate: ValidateImmutableField per field, no catch-all; @v1.36.0 still has the catch-all at spec)`,
    statement:
      'From 1.37 a change of spec.volumeClaimTemplates, spec.serviceName or spec.podManagementPolicy is refused at that field ("field is immutable"), in that order; the other StatefulSet fields are no longer refused at spec.',
  },
  {
    id: 'daemonset-rolling-update',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/daemon/update.go@v1.8.0 (rollingUpdate)',
    statement: 'RollingUpdate (the default in apps/v1) replaces the pod on every node, maxUnavailable at a time.',
  },
  {
    id: 'daemonset-on-delete',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/controller/daemon/update.go@v1.8.0 (OnDelete: no rolling update)',
    statement: 'OnDelete replaces nothing: a node gets the new pod when its old one is deleted.',
  },
  {
    id: 'job-template-immutable',
    decidedBy: 'apiserver',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source: 'pkg/apis/batch/validation/validation.go@v1.8.0 (ValidateJobSpecUpdate: spec.template immutable)',
    statement:
      "A Job's spec.template is immutable: the edit is refused (the scheduling directives of a suspended Job that never started, mutable from 1.27, are not modelled).",
  },
  {
    id: 'cronjob-future-jobs',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/cronjob/utils.go@v1.8.0 (getJobFromTemplate); pkg/controller/cronjob/cronjob_controllerv2.go@v1.21.0',
    statement: 'A CronJob change applies to the Jobs it creates later; running Jobs and their pods are left alone.',
  },
  {
    id: 'pod-active-deadline-exceeded',
    decidedBy: 'kubelet',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/kubelet/active_deadline.go@v1.20.2 (pastActiveDeadline: time since status.startTime ≥ spec.activeDeadlineSeconds; no startTime, no kill); pkg/kubelet/kubelet.go@v1.20.2 (syncPod: a pod the active deadline handler says to end is killed, phase Failed, reason DeadlineExceeded)',
    statement:
      "An admitted activeDeadlineSeconds (set, or lowered) at or below the pod's age (now − status.startTime) makes the kubelet kill the running pod at its next sync; a pod with no status.startTime is not killed until it has one.",
  },
  {
    id: 'job-suspended',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 22,
    lastMinor: null,
    source:
      'pkg/controller/job/job_controller.go@v1.30.14 (manageJob: a suspended Job deletes all its active pods); pkg/features/kube_features.go@v1.30.14 (SuspendJob: alpha 1.21 off by default, beta 1.22 on, GA 1.24); pkg/registry/batch/job/strategy.go@v1.30.14 (dropDisabledFields: suspend dropped while the gate is off, so 1.21 with the default gates is not modelled as a suspend)',
    statement:
      'spec.suspend set to true on a Job makes the Job controller delete every active pod of the Job (1.22+, where SuspendJob is on by default).',
  },
  {
    id: 'job-parallelism-lowered',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/job/job_controller.go@v1.20.2 (manageJob: active > parallelism → delete active − parallelism pods); pkg/apis/batch/v1/defaults.go@v1.20.2 (parallelism defaults to 1)',
    statement:
      'A lower spec.parallelism makes the Job controller delete the active pods beyond it (all of them at 0); the pods deleted are the difference between status.active and the new parallelism.',
  },
  {
    id: 'job-active-deadline-exceeded',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/job/job_controller.go@v1.20.2 (pastActiveDeadline: time since status.startTime ≥ spec.activeDeadlineSeconds → deleteJobPods, Job Failed with DeadlineExceeded)',
    statement:
      "A Job's spec.activeDeadlineSeconds set or lowered to at most the Job's age (now − status.startTime) makes the Job controller fail the Job and delete its active pods.",
  },
  {
    id: 'workload-scaled-down',
    decidedBy: 'controller',
    releases: 'kubernetes',
    firstMinor: 8,
    lastMinor: null,
    source:
      'pkg/controller/replicaset/replica_set.go@v1.20.2 (manageReplicas: diff > 0 → getPodsToDelete; ReplicationController runs the same code); pkg/controller/deployment/sync.go@v1.20.2 (scale: the ReplicaSets scaled down); pkg/controller/statefulset/stateful_set_control.go@v1.20.2 (ordinals ≥ replicas are condemned and deleted, highest first); replicas default to 1 (pkg/apis/apps/v1/defaults.go@v1.20.2)',
    statement:
      'A lower spec.replicas of a Deployment, ReplicaSet, ReplicationController or StatefulSet deletes running pods: the StatefulSet the highest ordinals (named), the others pods the controller ranks first for deletion.',
  },
  {
    id: 'kruise-scaled-down',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'pkg/controller/cloneset/sync/cloneset_scale.go@v1.8.2 (Scale: diff < 0 → choose pods to delete); pkg/controller/statefulset/stateful_set_control.go@v1.8.2 (condemned ordinals beyond replicas)',
    statement:
      'A lower spec.replicas of a CloneSet or Advanced StatefulSet deletes running pods (an Advanced StatefulSet without reserveOrdinals: the highest ordinals, named).',
  },
  {
    id: 'kruise-pods-to-delete',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'pkg/controller/cloneset/sync/cloneset_scale.go@v1.8.2 (Scale: pods named in spec.scaleStrategy.podsToDelete are deleted first); apis/apps/v1alpha1/cloneset_types.go@v1.8.2 (CloneSetScaleStrategy.PodsToDelete)',
    statement:
      'A pod name added to spec.scaleStrategy.podsToDelete of a CloneSet makes OpenKruise delete that pod (a new one replaces it unless replicas are lowered too).',
  },
  {
    id: 'kruise-readiness-hash',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 8,
    lastMinor: 9,
    source: `${KRUISE_DEFAULTS}@v1.8.2 and @v1.9.0 (defaultCheckContainersInPlaceUpdateCompleted, checkAllContainersHashConsistent: kubeletcontainer.HashContainer of the vendored k8s.io/kubernetes — v1.30.10 in v1.8.2's go.mod, v1.32.10 in v1.9.0's — and from v1.9.0 its own JSON hashContainer, against the runtime hash kruise-daemon reads; else the image ID comparison); openkruise/kruise#2297`,
    statement:
      "After an in-place update OpenKruise reads a container as updated when the hash the node's kubelet stored equals a hash it computes itself (v1.8: the 1.30 JSON form only; v1.9: the 1.31+ name-and-image form or the JSON form); otherwise it compares image IDs, and a new tag with the old digest leaves InPlaceUpdateReady false for good.",
  },
  {
    id: 'kruise-recreate',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'apis/apps/v1alpha1/cloneset_types.go@v1.0.0 (ReCreate, the default); pkg/controller/cloneset/sync/cloneset_update.go@v1.0.0',
    statement:
      'With the ReCreate strategy (CloneSet updateStrategy.type, Advanced StatefulSet podUpdatePolicy, Advanced DaemonSet rollingUpdate.type Standard) every template change deletes and recreates the pods.',
  },
  {
    id: 'kruise-in-place-image',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source: `${KRUISE_DEFAULTS}@v1.0.0 (defaultCalculateInPlaceUpdateSpec: replace of /spec/containers/N/image)`,
    statement:
      'InPlaceIfPossible / InPlaceOnly patch the pod in place when every template change is a replace of spec.containers[N].image (an init container image, an added field or any other spec change is not); the kubelet then decides per container.',
  },
  {
    id: 'kruise-in-place-metadata',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source: `${KRUISE_DEFAULTS}@v1.0.0 (defaultCalculateInPlaceUpdateSpec: /metadata/ patches → MetaDataPatch)`,
    statement: 'Changes of the template metadata (labels, annotations) are patched onto the pod in place.',
  },
  {
    id: 'kruise-env-from-metadata',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    gate: { name: 'InPlaceUpdateEnvFromMetadata', on: true },
    source: `${KRUISE_DEFAULTS}@v1.0.0 (ContainerRefMetadata, UpdateEnvFromMetadata); pkg/util/containermeta/env_hash.go@v1.0.0 (IsContainerReferenceToMeta); pkg/features/kruise_features.go (off to v1.3, on from v1.4)`,
    statement:
      "With InPlaceUpdateEnvFromMetadata on, a container whose env reads an added or changed label or annotation through fieldRef is restarted by OpenKruise's daemon to take the new value (the kubelet alone would keep it).",
  },
  {
    id: 'kruise-in-place-resources',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 8,
    lastMinor: null,
    gate: { name: 'InPlaceWorkloadVerticalScaling', on: true },
    source:
      'pkg/util/inplaceupdate/inplace_update_vertical.go@v1.8.0 (UpdateInplaceUpdateMetadata: replace of cpu/memory, IsPodQoSChanged)',
    statement:
      "With InPlaceWorkloadVerticalScaling on (v1.8+), a replace of spec.containers[N].resources.{limits,requests}.{cpu,memory} that keeps the pod's QoS class is applied in place (the kubelet resizes or restarts by its rules); adding or removing a resource is not.",
  },
  {
    id: 'kruise-resources-not-resizable',
    decidedBy: 'apiserver',
    releases: 'openkruise',
    firstMinor: 8,
    lastMinor: null,
    gate: { name: 'InPlaceWorkloadVerticalScaling', on: true },
    source:
      'pkg/util/inplaceupdate/inplace_update.go:361@v1.8.2 (updatePodInPlace: the new resources in a Pod update); pkg/util/inplaceupdate/inplace_update.go:397@v1.9.0 and pkg/client/registry.go:57@v1.9.0 (pods/resize when the apiserver is 1.32+); pkg/apis/core/validation/validation.go:5331@v1.33.13 (ValidatePodUpdate munges images, not resources); judged by kruise-manager v1.8.2 on a real 1.33.13 cluster',
    statement:
      "OpenKruise writes an in-place resource change into the pods the way the cluster must take it: v1.8 with a Pod update, which only 1.27–1.31 with InPlacePodVerticalScaling accept; v1.9 through pods/resize from 1.32. Elsewhere the apiserver refuses Kruise's request (at spec): the pods run on unchanged while Kruise retries (FailedUpdatePodInPlace).",
  },
  {
    id: 'kruise-recreate-fallback',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source: `${KRUISE_DEFAULTS}@v1.0.0 (defaultCalculateInPlaceUpdateSpec returns nil); apis/apps/v1alpha1/cloneset_types.go@v1.0.0 (InPlaceIfPossible)`,
    statement: 'InPlaceIfPossible with any other template change falls back to deleting and recreating the pods.',
  },
  {
    id: 'kruise-in-place-only-refused',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'pkg/controller/cloneset/core/cloneset_core.go@v1.0.0 (ValidateCloneSetUpdate); pkg/webhook/statefulset/validating/statefulset_create_update_handler.go@v1.0.0 (validateTemplateInPlaceOnly)',
    statement:
      "InPlaceOnly: OpenKruise's validating webhook refuses a template spec change other than a replace of a container image.",
  },
  {
    id: 'kruise-on-delete',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'apis/apps/v1beta1/statefulset_types.go@v1.0.0 (OnDelete); apis/apps/v1alpha1/daemonset_types.go@v1.0.0 (OnDelete)',
    statement: 'Advanced StatefulSet / DaemonSet with OnDelete replace nothing until a pod is deleted.',
  },
  {
    id: 'kruise-paused',
    decidedBy: 'controller',
    releases: 'openkruise',
    firstMinor: 0,
    lastMinor: null,
    source:
      'apis/apps/v1alpha1/cloneset_types.go@v1.0.0 (updateStrategy.paused); apis/apps/v1beta1/statefulset_types.go@v1.0.0 (rollingUpdate.paused)',
    statement: 'A paused update strategy updates no pod until it is unpaused.',
  },
] satisfies RolloutRule[]);

/** The row of `id` (every id has one). */
export function rolloutRule(id: RolloutRuleId): RolloutRule {
  const r = ROLLOUT_RULES.find((x) => x.id === id);
  if (!r) throw new Error(`no rollout rule ${id}`);
  return r;
}
