/**
 * The scenario table of who applies a change (ROLLOUT_RULES): one or more scenarios per rule, each
 * with the upstream test or source it restates and the releases it is run at (the ends of the
 * rule's range, and the release before it where the rule does not hold yet). Every rule must have
 * a scenario, run at its first release.
 */
import { describe, expect, it } from 'vitest';
import { predictRollout, ROLLOUT_RULES, supportedReleases, type RolloutPrediction } from '../../src/index.js';
import type { PredictRolloutOptions, RolloutRuleId } from '../../src/index.js';

type Obj = Record<string, unknown>;
const c = (image: string, extra: Obj = {}) => ({ name: 'web', image, ...extra });
const log = { name: 'log', image: 'busybox:1.36' };
const pod = (containers: Obj[], spec: Obj = {}, metadata: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'shop', ...metadata },
  spec: { containers, ...spec },
});
const workload = (apiVersion: string, kind: string, containers: Obj[], spec: Obj = {}, template: Obj = {}) => ({
  apiVersion,
  kind,
  metadata: { name: 'web', namespace: 'shop' },
  spec: { ...spec, template: { ...template, spec: { containers } } },
});
const env = (value: string) => ({ env: [{ name: 'LEVEL', value }] });
const res = (requests: Obj, limits: Obj = { cpu: '2', memory: '1Gi' }) => ({ resources: { requests, limits } });
const cloneSet = (containers: Obj[], strategy: Obj = { type: 'InPlaceIfPossible' }, template: Obj = {}) =>
  workload('apps.kruise.io/v1alpha1', 'CloneSet', containers, { updateStrategy: strategy }, template);
const fromLabel = { env: [{ name: 'VER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['ver']" } } }] };

interface Scenario {
  name: string;
  rule: RolloutRuleId;
  /** The upstream test (or source) the scenario restates. */
  source: string;
  /** Kubernetes minors (and, for OpenKruise rules, OpenKruise minors) it is run at. */
  at: string[];
  kruise?: string[];
  options?: Partial<PredictRolloutOptions>;
  old: unknown;
  new: unknown;
  expect: Partial<RolloutPrediction> & { kubeletActions?: string[] };
  /** OpenKruise's readiness answer per restarted container (kruiseReadiness). */
  readiness?: { name: string; hashMatches: boolean; imageChanged: boolean }[];
}

const K8S_VALIDATION_TEST = 'pkg/apis/core/validation/validation_test.go (TestValidatePodUpdate)';
const KRUISE_TEST = 'pkg/util/inplaceupdate/inplace_update_defaults_test.go (TestDefaultCalculateInPlaceUpdateSpec)';
const NEWEST = supportedReleases().at(-1)!;
const START = '2026-01-01T00:00:00Z';
const HOUR_AFTER = '2026-01-01T01:00:00Z';
const KRUISE_READY =
  'openkruise pkg/util/inplaceupdate/inplace_update_defaults.go (defaultCheckContainersInPlaceUpdateCompleted, checkAllContainersHashConsistent)';
const K8S_RESIZE_TEST = 'pkg/apis/core/validation/validation_test.go (TestValidatePodResize)';
const K8S_EC_TEST = 'pkg/apis/core/validation/validation_test.go (TestValidatePodEphemeralContainersUpdate)';
const TERM_A = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };

const SCENARIOS: Scenario[] = [
  {
    name: 'a label change is admitted; the kubelet keeps every container',
    rule: 'pod-metadata-mutable',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1'), log], {}, { labels: { a: '1' } }),
    new: pod([c('nginx:1'), log], {}, { labels: { a: '2' } }),
    expect: { verdict: 'in-place', decidedBy: 'kubelet', restarts: 0, exitCode: 0, kubeletActions: ['keep', 'keep'] },
  },
  {
    name: 'a renamed Pod is refused at metadata.name',
    rule: 'pod-metadata-immutable',
    source: 'staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaUpdate)',
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], {}, { name: 'web-1' }),
    expect: { verdict: 'refused', decidedBy: 'apiserver', field: 'metadata.name', exitCode: 2 },
  },
  {
    name: 'adding the mirror pod annotation is refused',
    rule: 'pod-mirror-annotation',
    source:
      'pkg/apis/core/validation/validation.go:267 (v1.37.2), :235 (v1.33.13) (ValidatePodSpecificAnnotationUpdates: "may not add mirror pod annotation" at the annotation\'s key, unquoted); printed so by the real 1.20.2, 1.31.14, 1.33.13 and 1.37.2 apiservers (test/real/apiserver-dry-run.integration.test.ts)',
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], {}, { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
    expect: {
      verdict: 'refused',
      decidedBy: 'apiserver',
      reportedField: 'metadata.annotations[kubernetes.io/config.mirror]',
      exitCode: 2,
    },
  },
  {
    name: 'an added init container is refused (the kubelet would not start it in an initialised pod either)',
    rule: 'pod-containers-added-or-removed',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', '1.28', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], { initContainers: [{ name: 'init', image: 'busybox' }] }),
    expect: { verdict: 'refused', decidedBy: 'apiserver', field: 'spec.initContainers', exitCode: 2 },
  },
  {
    name: 'an added container is refused',
    rule: 'pod-containers-added-or-removed',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1'), log]),
    expect: { verdict: 'refused', decidedBy: 'apiserver', field: 'spec.containers', exitCode: 2 },
  },
  {
    name: 'an image change is admitted; the kubelet restarts that container',
    rule: 'pod-image',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', '1.30', '1.31', NEWEST],
    old: pod([c('nginx:1'), log]),
    new: pod([c('nginx:2'), log]),
    expect: {
      verdict: 'in-place',
      decidedBy: 'kubelet',
      restarts: 1,
      exitCode: 1,
      kubeletActions: ['restart', 'keep'],
    },
  },
  {
    name: 'an init container image change is admitted; the kubelet does not compare init containers',
    rule: 'pod-image',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')], { initContainers: [{ name: 'init', image: 'busybox:1' }] }),
    new: pod([c('nginx:1')], { initContainers: [{ name: 'init', image: 'busybox:2' }] }),
    expect: { verdict: 'in-place', decidedBy: 'kubelet', restarts: 0, exitCode: 0 },
  },
  {
    name: 'an empty image is refused at that image',
    rule: 'pod-image',
    source:
      'pkg/apis/core/validation/validation.go at v1.20.2 (ValidateContainerUpdates); the real 1.20.2 apiserver (cluster judge)',
    at: ['1.8', '1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('')]),
    expect: {
      verdict: 'refused',
      field: 'spec.containers[0].image',
      reportedField: 'spec.containers[0].image',
      exitCode: 2,
    },
  },
  {
    name: 'an image with surrounding whitespace is refused at that image',
    rule: 'pod-image',
    source:
      'pkg/apis/core/validation/validation.go at v1.20.2 (ValidateContainerUpdates); the real 1.20.2 apiserver (cluster judge)',
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:2 ')]),
    expect: {
      verdict: 'refused',
      field: 'spec.containers[0].image',
      reportedField: 'spec.containers[0].image',
      exitCode: 2,
    },
  },
  {
    name: 'lowering activeDeadlineSeconds is admitted (the pod, 10s old, is within the new deadline)',
    rule: 'pod-active-deadline',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    options: { now: '2026-01-01T00:00:10Z' },
    old: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 60 }), status: { startTime: START } },
    new: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 30 }), status: { startTime: START } },
    expect: { verdict: 'in-place', ruleId: 'pod-active-deadline', exitCode: 0 },
  },
  {
    name: 'raising activeDeadlineSeconds is refused',
    rule: 'pod-active-deadline',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')], { activeDeadlineSeconds: 30 }),
    new: pod([c('nginx:1')], { activeDeadlineSeconds: 60 }),
    expect: { verdict: 'refused', field: 'spec.activeDeadlineSeconds', exitCode: 2 },
  },
  {
    name: 'an added toleration is admitted; a changed one is refused',
    rule: 'pod-tolerations-added',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Exists' }] }),
    new: pod([c('nginx:1')], {
      tolerations: [
        { key: 'a', operator: 'Exists' },
        { key: 'b', operator: 'Exists' },
      ],
    }),
    expect: { verdict: 'in-place', ruleId: 'pod-tolerations-added', exitCode: 0 },
  },
  {
    name: 'a changed toleration is refused',
    rule: 'pod-tolerations-added',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', NEWEST],
    old: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Exists' }] }),
    new: pod([c('nginx:1')], { tolerations: [{ key: 'b', operator: 'Exists' }] }),
    expect: { verdict: 'refused', field: 'spec.tolerations', exitCode: 2 },
  },
  {
    name: 'terminationGracePeriodSeconds from negative to 1 is admitted from 1.22',
    rule: 'pod-termination-grace-negative',
    source: K8S_VALIDATION_TEST,
    at: ['1.22', NEWEST],
    old: pod([c('nginx:1')], { terminationGracePeriodSeconds: -1 }),
    new: pod([c('nginx:1')], { terminationGracePeriodSeconds: 1 }),
    expect: { verdict: 'in-place', ruleId: 'pod-termination-grace-negative', exitCode: 0 },
  },
  {
    name: 'before 1.22 the same edit is refused at spec',
    rule: 'pod-spec-immutable',
    source: `${K8S_VALIDATION_TEST}; validation.go at v1.20.2 has no such rule`,
    at: ['1.20', '1.21'],
    old: pod([c('nginx:1')], { terminationGracePeriodSeconds: -1 }),
    new: pod([c('nginx:1')], { terminationGracePeriodSeconds: 1 }),
    expect: { verdict: 'refused', field: 'spec.terminationGracePeriodSeconds', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'removing a scheduling gate is admitted; adding one is refused',
    rule: 'pod-scheduling-gates-removed',
    source:
      'pkg/apis/core/validation/validation.go:4454 (v1.37.2), :4002 (v1.33.13) (validateOnlyDeletedSchedulingGates: refused at spec.schedulingGates[i].name); printed so by the real 1.31.14, 1.33.13 and 1.37.2 apiservers',
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }, { name: 'b' }] }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }, { name: 'c' }] }),
    expect: {
      verdict: 'refused',
      field: 'spec.schedulingGates[1].name',
      reportedField: 'spec.schedulingGates[1].name',
      exitCode: 2,
    },
  },
  {
    name: 'removing a scheduling gate is admitted',
    rule: 'pod-scheduling-gates-removed',
    source:
      'pkg/apis/core/validation/validation.go:4438 (v1.37.2), :3986 (v1.33.13) (validateOnlyDeletedSchedulingGates: deletions only); admitted by the real 1.31.14, 1.33.13 and 1.37.2 apiservers',
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }, { name: 'b' }] }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }] }),
    expect: { verdict: 'in-place', ruleId: 'pod-scheduling-gates-removed', exitCode: 0 },
  },
  {
    name: 'a cpu request change is admitted in the update on 1.27–1.31 with InPlacePodVerticalScaling; the kubelet resizes',
    rule: 'pod-resources-update',
    source: `${K8S_VALIDATION_TEST} at v1.27.0`,
    at: ['1.27', '1.31'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: {
      verdict: 'in-place',
      ruleId: 'pod-resources-update',
      requests: ['update'],
      exitCode: 0,
      kubeletActions: ['keep'],
    },
  },
  {
    name: 'without the gate the same change is refused at spec',
    rule: 'pod-spec-immutable',
    source: K8S_VALIDATION_TEST,
    at: ['1.26', '1.27', '1.32'],
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: {
      verdict: 'refused',
      field: 'spec.containers[0].resources.requests.cpu',
      reportedField: 'spec',
      exitCode: 2,
    },
  },
  {
    name: 'on 1.32 with InPlacePodVerticalScaling (alpha) resources already go through the resize subresource',
    rule: 'pod-resize-subresource',
    source:
      'pkg/apis/core/validation/validation.go:5572 (v1.32.0) (ValidatePodResize), pkg/registry/core/pod/strategy.go:293 (v1.32.0) (dropNonResizeUpdates); kubernetes/kubernetes#128266',
    at: ['1.32'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'in-place', ruleId: 'pod-resize-subresource', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'from 1.33 resources go through the resize subresource',
    rule: 'pod-resize-subresource',
    source:
      'pkg/apis/core/validation/validation.go:5635 (v1.33.13), :6491 (v1.37.2) (ValidatePodResize), pkg/registry/core/pod/strategy.go:358 (v1.33.13) (dropNonResizeUpdates); admitted through pods/resize by the real 1.33.13 and 1.37.2 apiservers',
    at: ['1.33', NEWEST],
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'in-place', ruleId: 'pod-resize-subresource', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'a resize together with an image change is refused from 1.33 (two requests)',
    rule: 'pod-resize-subresource',
    source:
      'pkg/apis/core/validation/validation.go:5412 (v1.33.13), :5998 (v1.37.2) (ValidatePodUpdate: "pod updates may not change fields other than …" at spec); refused so by the real 1.33.13 and 1.37.2 apiservers',
    at: ['1.33', NEWEST],
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: pod([c('nginx:2', res({ cpu: '1', memory: '1Gi' }))]),
    // Sent as one Pod update (what the real 1.37.2 apiserver answers a dry run of it): the catch-all at spec.
    expect: {
      verdict: 'refused',
      field: 'spec.containers[0].resources.requests.cpu',
      reportedField: 'spec',
      exitCode: 2,
    },
  },
  {
    name: 'a resize that makes a Burstable pod Guaranteed is refused',
    rule: 'pod-resize-qos',
    source:
      'pkg/apis/core/validation/validation.go:5666 (v1.33.13), :6509 (v1.37.2) (ValidatePodResize: "Pod QOS Class may not change as a result of resizing"); the 1.27–1.31 update: validation.go at v1.31.14 ("Pod QoS is immutable")',
    at: ['1.27', '1.33'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '1', memory: '512Mi' }, { cpu: '1', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'refused', ruleId: 'pod-resize-qos', exitCode: 2 },
  },
  {
    name: 'a removed memory limit is refused at …resources.limits from 1.32',
    rule: 'pod-resize-removal',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("Pod QoS unchanged, burstable -> burstable, remove memory limit"); ValidatePodResize at v1.32.13`,
    at: ['1.32', '1.33', NEWEST],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }, { cpu: '2' }))]),
    expect: { verdict: 'refused', reportedField: 'spec.containers[0].resources.limits', exitCode: 2 },
  },
  {
    name: 'a removed request likewise, at …resources.requests',
    rule: 'pod-resize-removal',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("… remove cpu request")`,
    at: ['1.32', NEWEST],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    // Requests only: with limits, the apiserver's defaulting would put a removed request back from its limit.
    old: pod([c('nginx:1', { resources: { requests: { cpu: '500m', memory: '1Gi' } } })]),
    new: pod([c('nginx:1', { resources: { requests: { memory: '1Gi' } } })]),
    expect: { verdict: 'refused', reportedField: 'spec.containers[0].resources.requests', exitCode: 2 },
  },
  {
    name: 'a request removed beside its limit is defaulted to the limit (SetDefaults_Pod): a resize, admitted',
    rule: 'pod-resize-subresource',
    source:
      'pkg/apis/core/v1/defaults.go at v1.37.2 (SetDefaults_Pod); a dry run on the real 1.37.2 apiserver admits it through pods/resize',
    at: ['1.33', NEWEST],
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '2Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '500m' }, { cpu: '1', memory: '2Gi' }))]),
    expect: { verdict: 'in-place', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'on 1.27–1.31 the update munges cpu and memory away: the same removal is admitted when the QoS class holds',
    rule: 'pod-resources-update',
    source: 'pkg/apis/core/validation/validation.go at v1.30.14 and v1.31.14 (ValidatePodUpdate: mungeCpuMemResources)',
    at: ['1.27', '1.31'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }, { cpu: '2' }))]),
    expect: { verdict: 'in-place', requests: ['update'], exitCode: 0 },
  },
  {
    name: 'a limits map added to a requests-only container is admitted when the QoS class holds',
    rule: 'pod-resize-subresource',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("Pod QoS unchanged, burstable -> burstable, add limits"); dropCPUMemoryUpdates (a nil old list admits any new one)`,
    at: ['1.33', NEWEST],
    old: pod([c('nginx:1', { resources: { requests: { cpu: '500m' } } })]),
    new: pod([c('nginx:1', { resources: { requests: { cpu: '500m' }, limits: { cpu: '1' } } })]),
    expect: { verdict: 'in-place', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'the QoS class may not change: reported at metadata on 1.27–1.31 (update), at spec from 1.32 (resize)',
    rule: 'pod-resize-qos',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("Pod QoS change, burstable -> guaranteed"); validation.go at v1.30.14 (field.Invalid(fldPath = metadata, "Pod QoS is immutable"))`,
    at: ['1.32', '1.33', NEWEST],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '1', memory: '512Mi' }, { cpu: '1', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'refused', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'the same QoS change in a 1.27–1.31 update is reported at metadata',
    rule: 'pod-resize-qos',
    source:
      'pkg/apis/core/validation/validation.go at v1.29.6, v1.30.14, v1.31.14 (ValidatePodUpdate: "Pod QoS is immutable" at metadata)',
    at: ['1.27', '1.31'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '1', memory: '512Mi' }, { cpu: '1', memory: '1Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'refused', reportedField: 'metadata', exitCode: 2 },
  },
  {
    name: 'a lowered memory limit (default resizePolicy) is refused on 1.33 only',
    rule: 'pod-resize-memory-limit-decrease',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("no restart policy: memory limit decrease")`,
    at: ['1.33'],
    old: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '1536Mi' }))]),
    expect: { verdict: 'refused', reportedField: 'spec.containers[0].resources.limits[memory]', exitCode: 2 },
  },
  {
    name: 'a memory limit added to a requests-only container is refused on 1.33 (from no limit is a decrease)',
    rule: 'pod-resize-memory-limit-decrease',
    source:
      'pkg/apis/core/validation/validation.go:5850 (v1.33.13) (validateContainerResize: "memory limits cannot be added unless resizePolicy is RestartContainer"); refused so by the real 1.33.13 apiserver, admitted by 1.37.2',
    at: ['1.33'],
    old: pod([c('nginx:1', { resources: { requests: { cpu: '10m', memory: '16Mi' } } })]),
    new: pod([c('nginx:1', { resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } })]),
    expect: { verdict: 'refused', reportedField: 'spec.containers[0].resources.limits[memory]', exitCode: 2 },
  },
  {
    name: "a sidecar's lowered memory limit is refused on 1.33 at its own path",
    rule: 'pod-resize-memory-limit-decrease',
    source:
      'pkg/apis/core/validation/validation.go:5847 (v1.33.13) (validateContainerResize, called for restartable init containers); refused so by the real 1.33.13 apiserver',
    at: ['1.33'],
    old: pod([c('nginx:1')], {
      initContainers: [
        {
          name: 'side',
          image: 'b:1',
          restartPolicy: 'Always',
          ...res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }),
        },
      ],
    }),
    new: pod([c('nginx:1')], {
      initContainers: [
        {
          name: 'side',
          image: 'b:1',
          restartPolicy: 'Always',
          ...res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '1536Mi' }),
        },
      ],
    }),
    expect: { verdict: 'refused', reportedField: 'spec.initContainers[0].resources.limits[memory]', exitCode: 2 },
  },
  {
    name: 'the same with resizePolicy RestartContainer, or on 1.34+, is admitted',
    rule: 'pod-resize-subresource',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("RestartContainer: memory limit decrease") and v1.37.2 ("no restart policy: memory limit decrease" admitted)`,
    at: ['1.34', NEWEST],
    old: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }))]),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '1536Mi' }))]),
    expect: { verdict: 'in-place', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'a pod with pod-level resources cannot be resized on 1.32–1.35',
    rule: 'pod-resize-pod-level-resources',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("pod-level resources with container cpu limit change")`,
    at: ['1.32', '1.35'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))], { resources: { limits: { cpu: '4' } } }),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))], { resources: { limits: { cpu: '4' } } }),
    expect: { verdict: 'refused', reportedField: '[]', exitCode: 2 },
  },
  {
    name: 'a Windows pod cannot be resized',
    rule: 'pod-resize-static-or-windows',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("windows pod, resource change")`,
    at: ['1.32', NEWEST],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))], { os: { name: 'windows' } }),
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))], { os: { name: 'windows' } }),
    expect: { verdict: 'refused', reportedField: '[]', exitCode: 2 },
  },
  {
    name: "a pod whose running container's status has no resources sits on a node that does not resize",
    rule: 'pod-resize-node-support',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("Pod with nil Resource field in Status")`,
    at: ['1.32', NEWEST],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: {
      ...pod([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
      status: { containerStatuses: [{ name: 'web', state: { running: {} } }] },
    },
    new: pod([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'refused', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'a sidecar resize is admitted from 1.33; on 1.32 only containers are munged',
    rule: 'pod-resize-sidecar',
    source: `${K8S_RESIZE_TEST} at v1.33.13 ("cpu limit change for sidecar containers"); ValidatePodResize at v1.32.13`,
    at: ['1.33', NEWEST],
    old: pod([c('nginx:1')], {
      initContainers: [
        { name: 'proxy', image: 'envoy', restartPolicy: 'Always', ...res({ cpu: '500m', memory: '1Gi' }) },
      ],
    }),
    new: pod([c('nginx:1')], {
      initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', ...res({ cpu: '1', memory: '1Gi' }) }],
    }),
    expect: { verdict: 'in-place', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'the sidecar resize on 1.32 is refused at spec',
    rule: 'pod-spec-immutable',
    source: 'pkg/apis/core/validation/validation.go at v1.32.13 (ValidatePodResize: init containers not munged)',
    at: ['1.32'],
    options: { featureGates: { InPlacePodVerticalScaling: true } },
    old: pod([c('nginx:1')], {
      initContainers: [
        { name: 'proxy', image: 'envoy', restartPolicy: 'Always', ...res({ cpu: '500m', memory: '1Gi' }) },
      ],
    }),
    new: pod([c('nginx:1')], {
      initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', ...res({ cpu: '1', memory: '1Gi' }) }],
    }),
    expect: { verdict: 'refused', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'a regular init container resize is refused before 1.36 and admitted from 1.36',
    rule: 'pod-resize-init',
    source:
      'pkg/apis/core/validation/validation.go at v1.35.4 ("resources for non-sidecar init containers are immutable") and v1.36.3 (InPlacePodVerticalScalingInitContainers)',
    at: ['1.36', NEWEST],
    old: pod([c('nginx:1')], {
      initContainers: [{ name: 'init', image: 'busybox', ...res({ cpu: '500m', memory: '1Gi' }) }],
    }),
    new: pod([c('nginx:1')], {
      initContainers: [{ name: 'init', image: 'busybox', ...res({ cpu: '1', memory: '1Gi' }) }],
    }),
    expect: { verdict: 'in-place', requests: ['resize'], exitCode: 0 },
  },
  {
    name: 'the regular init container resize on 1.35 is refused at spec',
    rule: 'pod-spec-immutable',
    source: 'pkg/apis/core/validation/validation.go at v1.35.4 (ValidatePodResize)',
    at: ['1.33', '1.35'],
    old: pod([c('nginx:1')], {
      initContainers: [{ name: 'init', image: 'busybox', ...res({ cpu: '500m', memory: '1Gi' }) }],
    }),
    new: pod([c('nginx:1')], {
      initContainers: [{ name: 'init', image: 'busybox', ...res({ cpu: '1', memory: '1Gi' }) }],
    }),
    expect: { verdict: 'refused', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'an added ephemeral container goes through the ephemeralcontainers subresource; the kubelet starts it',
    rule: 'pod-ephemeral-subresource',
    source:
      'pkg/apis/core/validation/validation.go:5599 (v1.33.13), :6455 (v1.37.2) (ValidatePodEphemeralContainersUpdate); admitted through pods/ephemeralcontainers by the real 1.31.14, 1.33.13 and 1.37.2 apiservers',
    at: ['1.23', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }),
    expect: { verdict: 'in-place', requests: ['ephemeralcontainers'], exitCode: 0, kubeletActions: ['keep', 'start'] },
  },
  {
    name: 'a changed ephemeral container is refused',
    rule: 'pod-ephemeral-immutable',
    source:
      'pkg/apis/core/validation/validation.go:5625 (v1.33.13), :6481 (v1.37.2) (ValidatePodEphemeralContainersUpdate: "existing ephemeral containers … may not be changed" at spec.ephemeralContainers)',
    at: ['1.23', NEWEST],
    old: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox:1' }] }),
    new: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox:2' }] }),
    expect: { verdict: 'refused', field: 'spec.ephemeralContainers[0]', exitCode: 2 },
  },
  {
    name: 'before 1.23 (EphemeralContainers alpha, off by default) a Pod update adding one is admitted and the container dropped',
    rule: 'pod-ephemeral-dropped',
    source:
      'pkg/api/pod/util.go at v1.20.2 (dropDisabledFields); a dry run on the real 1.20.2 apiserver admits it (test/real/apiserver-dry-run.integration.test.ts)',
    at: ['1.16', '1.20', '1.22'],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }),
    expect: { verdict: 'in-place', exitCode: 0, kubeletActions: ['keep'] },
  },
  {
    name: 'from 1.23 ephemeral containers added with any other change are one Pod update, refused at spec',
    rule: 'pod-ephemeral-alone',
    source:
      'pkg/apis/core/validation/validation.go at v1.31.14 (ValidatePodUpdate catch-all); a dry run on the real 1.31.14 and 1.37.2 apiservers refuses it at spec',
    at: ['1.23', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:2')], { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }),
    expect: { verdict: 'refused', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'removing the default not-ready/unreachable tolerations is admitted: the admission plugin puts them back',
    rule: 'pod-default-tolerations',
    source:
      'plugin/pkg/admission/defaulttolerationseconds/admission.go at v1.20.2 and v1.37.2 (Admit); dry runs on the real 1.20.2, 1.31.14 and 1.37.2 apiservers admit it',
    at: ['1.8', '1.20', NEWEST],
    old: pod([c('nginx:1')], {
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    }),
    new: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }] }),
    expect: { verdict: 'in-place', exitCode: 0 },
  },
  {
    name: 'a changed ephemeral container is refused at spec.ephemeralContainers, the path the apiserver prints',
    rule: 'pod-ephemeral-immutable',
    source: `${K8S_EC_TEST} at v1.37.2 ("Ephemeral Container Change" errors at spec.ephemeralContainers)`,
    at: ['1.23', NEWEST],
    old: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox:1' }] }),
    new: pod([c('nginx:1')], { ephemeralContainers: [{ name: 'debug', image: 'busybox:2' }] }),
    expect: {
      verdict: 'refused',
      field: 'spec.ephemeralContainers[0]',
      reportedField: 'spec.ephemeralContainers',
      exitCode: 2,
    },
  },
  {
    name: 'a static (mirror) pod takes no ephemeral container',
    rule: 'pod-static-no-ephemeral',
    source: `${K8S_EC_TEST} at v1.37.2 ("Add ephemeral container to static pod"); validation.go at v1.28.15 and v1.29.6; printed \`[]\` by the real 1.31.14 and 1.37.2 apiservers`,
    at: ['1.28', '1.29', NEWEST],
    old: pod([c('nginx:1')], { nodeName: 'n1' }, { annotations: { 'kubernetes.io/config.mirror': 'h' } }),
    new: pod(
      [c('nginx:1')],
      { nodeName: 'n1', ephemeralContainers: [{ name: 'debug', image: 'busybox' }] },
      { annotations: { 'kubernetes.io/config.mirror': 'h' } },
    ),
    expect: { verdict: 'refused', reportedField: '[]', exitCode: 2 },
  },
  {
    name: 'activeDeadlineSeconds set to 0 is refused by the object validation, though the update rule allows 0',
    rule: 'pod-active-deadline-value',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("activeDeadlineSeconds change to zero from nil", "… from positive"); ValidatePodSpec at v1.20.2`,
    at: ['1.8', '1.20', NEWEST],
    old: pod([c('nginx:1')], { activeDeadlineSeconds: 30 }),
    new: pod([c('nginx:1')], { activeDeadlineSeconds: 0 }),
    expect: { verdict: 'refused', reportedField: 'spec.activeDeadlineSeconds', exitCode: 2 },
  },
  {
    name: 'a negative activeDeadlineSeconds where none was set is refused',
    rule: 'pod-active-deadline-value',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("activeDeadlineSeconds change to negative from nil")`,
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], { activeDeadlineSeconds: -1 }),
    expect: { verdict: 'refused', reportedField: 'spec.activeDeadlineSeconds', exitCode: 2 },
  },
  {
    name: 'an added toleration with an invalid effect is refused at its effect',
    rule: 'pod-toleration-values',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("added invalid new toleration to existing tolerations in pod spec updates"); validateTaintEffect at v1.20.2`,
    at: ['1.8', '1.20', NEWEST],
    old: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Exists' }] }),
    new: pod([c('nginx:1')], {
      tolerations: [
        { key: 'a', operator: 'Exists' },
        { key: 'b', operator: 'Equal', value: 'v', effect: 'NoWhere' },
      ],
    }),
    expect: { verdict: 'refused', reportedField: 'spec.tolerations[1].effect', exitCode: 2 },
  },
  {
    name: 'tolerationSeconds without NoExecute, and a value with Exists, are refused where the apiserver reports them',
    rule: 'pod-toleration-values',
    source: 'pkg/apis/core/validation/validation_test.go at v1.20.2 (TestValidateTolerations error cases)',
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], {
      tolerations: [{ key: 'a', operator: 'Exists', value: 'x', effect: 'NoSchedule' }],
    }),
    expect: { verdict: 'refused', reportedField: 'spec.tolerations[0].operator', exitCode: 2 },
  },
  {
    name: 'an Lt toleration is an unsupported operator unless the old pod already uses one (1.35+)',
    rule: 'pod-toleration-values',
    source:
      'pkg/apis/core/validation/validation.go at v1.37.2 (ValidateTolerations: Lt/Gt need AllowTaintTolerationComparisonOperators)',
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Lt', value: '5' }] }),
    expect: { verdict: 'refused', reportedField: 'spec.tolerations[0].operator', exitCode: 2 },
  },
  {
    name: 'an Lt toleration added beside one the old pod has is admitted from 1.35',
    rule: 'pod-toleration-comparison',
    source: 'pkg/api/pod/util.go at v1.37.2 (allowTaintTolerationComparisonOperators from the old pod spec)',
    at: ['1.35', NEWEST],
    old: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Lt', value: '5' }] }),
    new: pod([c('nginx:1')], {
      tolerations: [
        { key: 'a', operator: 'Lt', value: '5' },
        { key: 'b', operator: 'Gt', value: '7' },
      ],
    }),
    expect: { verdict: 'in-place', exitCode: 0 },
  },
  {
    name: 'the same on 1.34 is refused: no comparison operators yet',
    rule: 'pod-toleration-values',
    source: 'pkg/features/kube_features.go at v1.37.2 (TaintTolerationComparisonOperators: alpha from 1.35)',
    at: ['1.34'],
    old: pod([c('nginx:1')], { tolerations: [{ key: 'a', operator: 'Lt', value: '5' }] }),
    new: pod([c('nginx:1')], {
      tolerations: [
        { key: 'a', operator: 'Lt', value: '5' },
        { key: 'b', operator: 'Gt', value: '7' },
      ],
    }),
    expect: { verdict: 'refused', reportedField: 'spec.tolerations[0].operator', exitCode: 2 },
  },
  {
    name: 'a duplicate scheduling gate is refused by the object validation',
    rule: 'pod-scheduling-gate-values',
    source: 'pkg/apis/core/validation/validation.go at v1.29.6 (validateSchedulingGates: Duplicate)',
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }, { name: 'b' }] }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'a' }, { name: 'a' }] }),
    expect: { verdict: 'refused', reportedField: 'spec.schedulingGates[1]', exitCode: 2 },
  },
  {
    name: 'setting metadata.deletionTimestamp is refused',
    rule: 'pod-metadata-server-set',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("deletion timestamp added"); objectmeta.go at v1.20.2`,
    at: ['1.8', '1.20', NEWEST],
    old: pod([c('nginx:1')]),
    new: pod([c('nginx:1')], {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    expect: { verdict: 'refused', reportedField: 'metadata.deletionTimestamp', exitCode: 2 },
  },
  {
    name: 'changing deletionGracePeriodSeconds is refused',
    rule: 'pod-metadata-server-set',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("deletion grace period seconds changed")`,
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')], {}, { deletionTimestamp: START, deletionGracePeriodSeconds: 30 }),
    new: pod([c('nginx:1')], {}, { deletionTimestamp: START, deletionGracePeriodSeconds: 0 }),
    expect: { verdict: 'refused', reportedField: 'metadata.deletionGracePeriodSeconds', exitCode: 2 },
  },
  {
    name: 'a finalizer added to a pod being deleted is refused',
    rule: 'pod-metadata-server-set',
    source: 'staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go at v1.20.2 (ValidateNoNewFinalizers)',
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')], {}, { deletionTimestamp: START }),
    new: pod([c('nginx:1')], {}, { deletionTimestamp: START, finalizers: ['x/y'] }),
    expect: { verdict: 'refused', reportedField: 'metadata.finalizers', exitCode: 2 },
  },
  {
    name: 'a set deletionTimestamp changed along with a label: BeforeUpdate puts the old time back, the label is admitted',
    rule: 'pod-metadata-mutable',
    source:
      'staging/src/k8s.io/apiserver/pkg/registry/rest/update.go at v1.20.2 (BeforeUpdate runs before validation; the unit table of ValidatePodUpdate, "deletion timestamp removed", skips it)',
    at: ['1.20', NEWEST],
    old: pod([c('nginx:1')], {}, { deletionTimestamp: START, labels: { a: '1' } }),
    new: pod([c('nginx:1')], {}, { deletionTimestamp: HOUR_AFTER, labels: { a: '2' } }),
    expect: { verdict: 'in-place', exitCode: 0 },
  },
  {
    name: 'a gated pod may gain a nodeSelector entry',
    rule: 'pod-gated-scheduling-directives',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("adding node selector is allowed for gated pods")`,
    at: ['1.27', '1.30', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }], nodeSelector: { a: '1' } }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }], nodeSelector: { a: '1', b: '2' } }),
    expect: { verdict: 'in-place', requests: ['update'], exitCode: 0 },
  },
  {
    name: "a gated pod's nodeSelector entry may not change",
    rule: 'pod-gated-scheduling-directives',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("modifying value of existing node selector is not allowed")`,
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }], nodeSelector: { a: '1' } }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }], nodeSelector: { a: '2' } }),
    expect: { verdict: 'refused', reportedField: 'spec.nodeSelector', exitCode: 2 },
  },
  {
    name: "a gated pod's nodeSelector may not lose an entry",
    rule: 'pod-gated-scheduling-directives',
    source:
      'pkg/apis/core/validation/validation.go:9740 (v1.37.2), :8583 (v1.33.13) (validateNodeSelectorMutation: no deletions); refused so at spec.nodeSelector by the real 1.31.14, 1.33.13 and 1.37.2 apiservers',
    at: ['1.27', '1.33', NEWEST],
    old: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }], nodeSelector: { a: '1' } }),
    new: pod([c('nginx:1')], { schedulingGates: [{ name: 'g' }] }),
    expect: { verdict: 'refused', reportedField: 'spec.nodeSelector', exitCode: 2 },
  },
  {
    name: "a gated pod's required node affinity term may gain a match expression, not lose a term",
    rule: 'pod-gated-scheduling-directives',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("nodeSelectorTerms addition on gated pod should fail", node affinity additions)`,
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], {
      schedulingGates: [{ name: 'g' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [TERM_A] } } },
    }),
    new: pod([c('nginx:1')], {
      schedulingGates: [{ name: 'g' }],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [TERM_A, TERM_A] } },
      },
    }),
    expect: {
      verdict: 'refused',
      reportedField: 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms',
      exitCode: 2,
    },
  },
  {
    name: 'a narrowed term is admitted',
    rule: 'pod-gated-scheduling-directives',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 (node affinity: additions to matchExpressions allowed for gated pods)`,
    at: ['1.27', NEWEST],
    old: pod([c('nginx:1')], {
      schedulingGates: [{ name: 'g' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [TERM_A] } } },
    }),
    new: pod([c('nginx:1')], {
      schedulingGates: [{ name: 'g' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [...TERM_A.matchExpressions, { key: 'z', operator: 'Exists' }] }],
          },
        },
      },
    }),
    expect: { verdict: 'in-place', exitCode: 0 },
  },
  {
    name: 'the same nodeSelector addition on a pod without gates is refused at spec',
    rule: 'pod-spec-immutable',
    source: `${K8S_VALIDATION_TEST} at v1.37.2 ("adding node selector is not allowed for non-gated pods")`,
    at: ['1.26', '1.27', NEWEST],
    old: pod([c('nginx:1')], { nodeSelector: { a: '1' } }),
    new: pod([c('nginx:1')], { nodeSelector: { a: '1', b: '2' } }),
    expect: { verdict: 'refused', field: 'spec.nodeSelector.b', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'a Pod env change is refused at spec.containers[0].env, at every release',
    rule: 'pod-spec-immutable',
    source: K8S_VALIDATION_TEST,
    at: ['1.8', '1.30', '1.31', NEWEST],
    old: pod([c('nginx:1'), log]),
    new: pod([c('nginx:1', env('debug')), log]),
    expect: {
      verdict: 'refused',
      decidedBy: 'apiserver',
      field: 'spec.containers[0].env',
      reportedField: 'spec',
      exitCode: 2,
    },
  },
  {
    name: "a Deployment's selector is immutable in apps/v1",
    rule: 'apps-selector-immutable',
    source: 'pkg/apis/apps/validation/validation_test.go (TestValidateDeploymentUpdate)',
    at: ['1.9', NEWEST],
    old: workload('apps/v1', 'Deployment', [c('nginx:1')], { selector: { matchLabels: { app: 'a' } } }),
    new: workload('apps/v1', 'Deployment', [c('nginx:1')], { selector: { matchLabels: { app: 'b' } } }),
    expect: { verdict: 'refused', decidedBy: 'apiserver', field: 'spec.selector', exitCode: 2 },
  },
  {
    name: 'a Deployment env change replaces every pod, whatever the kubelet would do',
    rule: 'deployment-rollout',
    source: 'pkg/controller/deployment/util/deployment_util_test.go (TestEqualIgnoreHash)',
    at: ['1.8', '1.30', '1.31', NEWEST],
    old: workload('apps/v1', 'Deployment', [c('nginx:1'), log]),
    new: workload('apps/v1', 'Deployment', [c('nginx:1', env('debug')), log]),
    expect: { verdict: 'replaced', decidedBy: 'controller', pods: 'every pod', restarts: 0, exitCode: 1 },
  },
  {
    name: 'a paused Deployment holds the rollout',
    rule: 'deployment-paused',
    source: 'pkg/controller/deployment/deployment_controller.go (syncDeployment: paused)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'Deployment', [c('nginx:1')], { paused: true }),
    new: workload('apps/v1', 'Deployment', [c('nginx:2')], { paused: true }),
    expect: { verdict: 'held', decidedBy: 'controller', exitCode: 0 },
  },
  {
    name: 'replicas, and a quantity spelt another way, roll nothing',
    rule: 'template-unchanged',
    source: 'pkg/controller/deployment/util/deployment_util_test.go (TestEqualIgnoreHash)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'Deployment', [c('nginx:1', res({ cpu: '1000m' }))], { replicas: 2 }),
    new: workload('apps/v1', 'Deployment', [c('nginx:1', { ...res({ cpu: '1' }), env: [] })], { replicas: 5 }),
    expect: { verdict: 'unchanged', decidedBy: 'controller', changes: [], exitCode: 0 },
  },
  {
    name: 'a ReplicaSet template change leaves running pods alone',
    rule: 'replicaset-future-pods',
    source: 'pkg/controller/replicaset/replica_set.go (manageReplicas)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'ReplicaSet', [c('nginx:1')]),
    new: workload('apps/v1', 'ReplicaSet', [c('nginx:2')]),
    expect: { verdict: 'future-pods', decidedBy: 'controller', exitCode: 0 },
  },
  {
    name: 'a ReplicationController likewise',
    rule: 'replicaset-future-pods',
    source: 'pkg/controller/replication/replication_controller.go (the ReplicaSet controller through an adapter)',
    at: ['1.8', NEWEST],
    old: workload('v1', 'ReplicationController', [c('nginx:1')]),
    new: workload('v1', 'ReplicationController', [c('nginx:2')]),
    expect: { verdict: 'future-pods', exitCode: 0 },
  },
  {
    name: 'a StatefulSet with partition 2 of 5 replaces ordinals 2–4',
    rule: 'statefulset-rolling-update',
    source:
      'pkg/controller/statefulset/stateful_set_control_test.go (TestStatefulSetControlRollingUpdateWithPartition)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], {
      replicas: 5,
      updateStrategy: { rollingUpdate: { partition: 2 } },
    }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:2')], {
      replicas: 5,
      updateStrategy: { rollingUpdate: { partition: 2 } },
    }),
    expect: { verdict: 'replaced', pods: 'ordinals 2–4 (partition 2)', exitCode: 1 },
  },
  {
    name: 'a partition at replicas holds every pod',
    rule: 'statefulset-rolling-update',
    source:
      'pkg/controller/statefulset/stateful_set_control_test.go (TestStatefulSetControlRollingUpdateWithPartition)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], {
      replicas: 3,
      updateStrategy: { rollingUpdate: { partition: 3 } },
    }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:2')], {
      replicas: 3,
      updateStrategy: { rollingUpdate: { partition: 3 } },
    }),
    expect: { verdict: 'held', exitCode: 0 },
  },
  {
    name: 'a StatefulSet with OnDelete replaces nothing now',
    rule: 'statefulset-on-delete',
    source: 'pkg/controller/statefulset/stateful_set_control_test.go (TestStatefulSetControlOnDeleteUpdate)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { updateStrategy: { type: 'OnDelete' } }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:2')], { updateStrategy: { type: 'OnDelete' } }),
    expect: { verdict: 'on-delete', exitCode: 0 },
  },
  {
    name: 'from 1.37 a StatefulSet field change is refused at that field',
    rule: 'statefulset-field-immutable',
    source:
      'pkg/apis/apps/validation/validation.go at v1.37.2 (ValidateStatefulSetUpdate); a dry run on the real 1.37.2 apiserver refuses a serviceName change at spec.serviceName',
    at: ['1.37'],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { serviceName: 'a' }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { serviceName: 'b' }),
    expect: { verdict: 'refused', field: 'spec.serviceName', reportedField: 'spec.serviceName', exitCode: 2 },
  },
  {
    name: "a StatefulSet's volumeClaimTemplates are immutable",
    rule: 'statefulset-spec-immutable',
    source: 'pkg/apis/apps/validation/validation_test.go (TestValidateStatefulSetUpdate)',
    at: ['1.8', '1.36'],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { volumeClaimTemplates: [{ metadata: { name: 'a' } }] }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { volumeClaimTemplates: [{ metadata: { name: 'b' } }] }),
    expect: {
      verdict: 'refused',
      decidedBy: 'apiserver',
      field: 'spec.volumeClaimTemplates',
      reportedField: 'spec',
      exitCode: 2,
    },
  },
  {
    name: 'a DaemonSet RollingUpdate replaces the pod on every node',
    rule: 'daemonset-rolling-update',
    source: 'pkg/controller/daemon/update_test.go (TestDaemonSetUpdatesPods)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'DaemonSet', [c('nginx:1')]),
    new: workload('apps/v1', 'DaemonSet', [c('nginx:2')]),
    expect: { verdict: 'replaced', pods: 'every pod', exitCode: 1 },
  },
  {
    name: 'a DaemonSet with OnDelete replaces nothing now',
    rule: 'daemonset-on-delete',
    source: 'pkg/controller/daemon/update.go (rollingUpdate only for RollingUpdate)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'DaemonSet', [c('nginx:1')], { updateStrategy: { type: 'OnDelete' } }),
    new: workload('apps/v1', 'DaemonSet', [c('nginx:2')], { updateStrategy: { type: 'OnDelete' } }),
    expect: { verdict: 'on-delete', exitCode: 0 },
  },
  {
    name: "a Job's template change is refused",
    rule: 'job-template-immutable',
    source: 'pkg/apis/batch/validation/validation_test.go (TestValidateJobUpdate)',
    at: ['1.8', NEWEST],
    old: workload('batch/v1', 'Job', [c('nginx:1')]),
    new: workload('batch/v1', 'Job', [c('nginx:2')]),
    expect: {
      verdict: 'refused',
      decidedBy: 'apiserver',
      field: 'spec.template.spec.containers[0].image',
      reportedField: 'spec.template',
      exitCode: 2,
    },
  },
  {
    name: 'a CronJob change reaches only future Jobs',
    rule: 'cronjob-future-jobs',
    source: 'pkg/controller/cronjob/utils_test.go (TestGetJobFromTemplate)',
    at: ['1.8', NEWEST],
    old: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [c('nginx:1')] } } } } },
    },
    new: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [c('nginx:2')] } } } } },
    },
    expect: { verdict: 'future-pods', exitCode: 0 },
  },
  {
    name: "activeDeadlineSeconds set below the pod's age: admitted, then the kubelet kills the pod (exit 1, named)",
    rule: 'pod-active-deadline-exceeded',
    source:
      'pkg/kubelet/active_deadline.go at v1.20.2 (pastActiveDeadline); pkg/kubelet/active_deadline_test.go (TestActiveDeadlineHandler: a pod started an hour ago with a 30s deadline is past it)',
    at: ['1.8', '1.20', NEWEST],
    options: { now: HOUR_AFTER },
    old: { ...pod([c('nginx:1')]), status: { startTime: START } },
    new: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 600 }), status: { startTime: START } },
    expect: {
      verdict: 'delete',
      decidedBy: 'kubelet',
      podNames: ['web-0'],
      pods: 'web-0',
      admittedBy: ['pod-active-deadline'],
      exitCode: 1,
    },
  },
  {
    name: 'a deadline equal to the age already kills (the kubelet compares with ≥)',
    rule: 'pod-active-deadline-exceeded',
    source: 'pkg/kubelet/active_deadline.go at v1.20.2 (pastActiveDeadline: duration >= allowedDuration)',
    at: [NEWEST],
    options: { now: HOUR_AFTER },
    old: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 7200 }), status: { startTime: START } },
    new: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 3600 }), status: { startTime: START } },
    expect: { verdict: 'delete', podNames: ['web-0'], exitCode: 1 },
  },
  {
    name: 'without a startTime the lowered deadline is taken as killing, and says so',
    rule: 'pod-active-deadline-exceeded',
    source: 'pkg/kubelet/active_deadline.go at v1.20.2 (pastActiveDeadline reads status.startTime)',
    at: [NEWEST],
    old: pod([c('nginx:1')], { activeDeadlineSeconds: 7200 }),
    new: pod([c('nginx:1')], { activeDeadlineSeconds: 600 }),
    expect: { verdict: 'delete', exitCode: 1 },
  },
  {
    name: 'a deadline above the age is admitted and kills nothing now',
    rule: 'pod-active-deadline',
    source: 'pkg/kubelet/active_deadline_test.go (TestActiveDeadlineHandler: a pod within its deadline is kept)',
    at: ['1.8', NEWEST],
    options: { now: HOUR_AFTER },
    old: { ...pod([c('nginx:1')]), status: { startTime: START } },
    new: { ...pod([c('nginx:1')], { activeDeadlineSeconds: 3601 }), status: { startTime: START } },
    expect: { verdict: 'in-place', ruleId: 'pod-active-deadline', exitCode: 0 },
  },
  {
    name: 'a Job suspended: the Job controller deletes its active pods',
    rule: 'job-suspended',
    source:
      'pkg/controller/job/job_controller_test.go at v1.37.2 (TestControllerSyncJob: "suspending a job with satisfied expectations")',
    at: ['1.22', NEWEST],
    old: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 2 }), status: { active: 2 } },
    new: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 2, suspend: true }), status: { active: 2 } },
    expect: { verdict: 'delete', decidedBy: 'controller', pods: '2 active pods', exitCode: 1 },
  },
  {
    name: 'on 1.21 (SuspendJob alpha, off) the field is dropped: nothing rolls',
    rule: 'template-unchanged',
    source: 'pkg/features/kube_features.go (SuspendJob: alpha 1.21, beta 1.22)',
    at: ['1.21'],
    old: workload('batch/v1', 'Job', [c('nginx:1')]),
    new: workload('batch/v1', 'Job', [c('nginx:1')], { suspend: true }),
    expect: { verdict: 'unchanged', exitCode: 0 },
  },
  {
    name: 'a Job at parallelism 0: every active pod is deleted',
    rule: 'job-parallelism-lowered',
    source: 'pkg/controller/job/job_controller_test.go at v1.20.2 (TestControllerSyncJob: "too many active pods")',
    at: ['1.8', '1.20', NEWEST],
    old: workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 3 }),
    new: workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 0 }),
    expect: { verdict: 'delete', pods: 'every active pod', exitCode: 1 },
  },
  {
    name: 'a lower parallelism with more pods active deletes the difference',
    rule: 'job-parallelism-lowered',
    source: 'pkg/controller/job/job_controller_test.go at v1.20.2 (TestControllerSyncJob: "too many active pods")',
    at: ['1.20', NEWEST],
    old: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 3 }), status: { active: 3 } },
    new: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 1 }), status: { active: 3 } },
    expect: { verdict: 'delete', pods: '2 of 3 active pods', exitCode: 1 },
  },
  {
    name: 'a lower parallelism that still covers the active pods deletes nothing',
    rule: 'template-unchanged',
    source: 'pkg/controller/job/job_controller.go at v1.20.2 (manageJob: only active > parallelism deletes)',
    at: ['1.20', NEWEST],
    old: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 3 }), status: { active: 1 } },
    new: { ...workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 2 }), status: { active: 1 } },
    expect: { verdict: 'unchanged', exitCode: 0 },
  },
  {
    name: "a Job's activeDeadlineSeconds lowered below its age: the Job fails and its pods are deleted",
    rule: 'job-active-deadline-exceeded',
    source:
      'pkg/controller/job/job_controller_test.go at v1.20.2 (TestSyncJobPastDeadline: "activeDeadlineSeconds less than single pod execution")',
    at: ['1.8', '1.20', NEWEST],
    options: { now: HOUR_AFTER },
    old: {
      ...workload('batch/v1', 'Job', [c('nginx:1')], { activeDeadlineSeconds: 7200 }),
      status: { startTime: START, active: 1 },
    },
    new: {
      ...workload('batch/v1', 'Job', [c('nginx:1')], { activeDeadlineSeconds: 60 }),
      status: { startTime: START, active: 1 },
    },
    expect: { verdict: 'delete', decidedBy: 'controller', pods: '1 active pod', exitCode: 1 },
  },
  {
    name: 'a refused Job edit deletes nothing: the template change is refused before parallelism counts',
    rule: 'job-template-immutable',
    source: 'pkg/apis/batch/validation/validation.go at v1.20.2 (ValidateJobSpecUpdate)',
    at: ['1.20', NEWEST],
    old: workload('batch/v1', 'Job', [c('nginx:1')], { parallelism: 3 }),
    new: workload('batch/v1', 'Job', [c('nginx:2')], { parallelism: 0 }),
    expect: { verdict: 'refused', exitCode: 2 },
  },
  {
    name: 'a Deployment scaled down deletes pods of the controller’s choosing',
    rule: 'workload-scaled-down',
    source:
      'pkg/controller/replicaset/replica_set.go at v1.20.2 (manageReplicas: diff > 0); pkg/controller/deployment/sync.go at v1.20.2 (scale)',
    at: ['1.8', NEWEST],
    old: workload('apps/v1', 'Deployment', [c('nginx:1')], { replicas: 3 }),
    new: workload('apps/v1', 'Deployment', [c('nginx:1')], { replicas: 1 }),
    expect: { verdict: 'delete', pods: "2 pods (the controller's choice)", podNames: [], exitCode: 1 },
  },
  {
    name: 'a ReplicaSet at replicas 0 (from the default 1) deletes its pod',
    rule: 'workload-scaled-down',
    source: 'pkg/controller/replicaset/replica_set_test.go at v1.20.2 (validateSyncReplicaSet expectedDeletes)',
    at: ['1.20', NEWEST],
    old: workload('apps/v1', 'ReplicaSet', [c('nginx:1')]),
    new: workload('apps/v1', 'ReplicaSet', [c('nginx:1')], { replicas: 0 }),
    expect: { verdict: 'delete', pods: "1 pod (the controller's choice)", exitCode: 1 },
  },
  {
    name: 'a StatefulSet scaled down deletes its highest ordinals, by name; a template change besides is in the reason',
    rule: 'workload-scaled-down',
    source:
      'pkg/controller/statefulset/stateful_set_control.go at v1.20.2 (condemned ordinals ≥ replicas); stateful_set_control_test.go (scaleDownStatefulSetControl)',
    at: ['1.20', NEWEST],
    old: workload('apps/v1', 'StatefulSet', [c('nginx:1')], { replicas: 5 }),
    new: workload('apps/v1', 'StatefulSet', [c('nginx:2')], { replicas: 3 }),
    expect: { verdict: 'delete', podNames: ['web-4', 'web-3'], pods: 'web-4, web-3', exitCode: 1 },
  },
  {
    name: 'a CloneSet told to delete pods by name deletes them',
    rule: 'kruise-pods-to-delete',
    source: 'openkruise pkg/controller/cloneset/sync/cloneset_scale.go at v1.8.2 (Scale: podsToDelete); TestScale',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: workload('apps.kruise.io/v1alpha1', 'CloneSet', [c('nginx:1')], { replicas: 3 }),
    new: workload('apps.kruise.io/v1alpha1', 'CloneSet', [c('nginx:1')], {
      replicas: 3,
      scaleStrategy: { podsToDelete: ['web-x7k2p'] },
    }),
    expect: { verdict: 'delete', podNames: ['web-x7k2p'], exitCode: 1 },
  },
  {
    name: 'a CloneSet or an Advanced StatefulSet scaled down deletes pods (the StatefulSet its top ordinals by name)',
    rule: 'kruise-scaled-down',
    source: 'openkruise pkg/controller/cloneset/sync/cloneset_scale.go at v1.8.2 (Scale: scale down); TestScale',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: workload('apps.kruise.io/v1beta1', 'StatefulSet', [c('nginx:1')], { replicas: 3 }),
    new: workload('apps.kruise.io/v1beta1', 'StatefulSet', [c('nginx:1')], { replicas: 2 }),
    expect: { verdict: 'delete', podNames: ['web-2'], exitCode: 1 },
  },
  {
    name: 'OpenKruise v1.8 (HashContainer of 1.30) on a 1.30 node reads the image bump as done by hash',
    rule: 'kruise-readiness-hash',
    source: `${KRUISE_READY} at v1.8.2`,
    at: ['1.29', '1.30'],
    kruise: ['v1.8'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:2'), log]),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
    readiness: [{ name: 'web', hashMatches: true, imageChanged: true }],
  },
  {
    name: 'the same on a 1.31+ node (name and image hash): no form matches, Kruise falls back to image IDs (kruise#2297)',
    rule: 'kruise-readiness-hash',
    source: `${KRUISE_READY} at v1.8.2; openkruise/kruise#2297`,
    at: ['1.31', NEWEST],
    kruise: ['v1.8'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:2'), log]),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
    readiness: [{ name: 'web', hashMatches: false, imageChanged: true }],
  },
  {
    name: 'a resize that restarts (RestartContainer) on a 1.31 node: no hash matches, but no image changed, so the image-ID fallback reads it as done',
    rule: 'kruise-readiness-hash',
    source:
      'openkruise pkg/util/inplaceupdate/inplace_update_defaults.go:144 (v1.8.2) (LastContainerStatuses only for containers whose image changed), :443–:470 (v1.8.2) (defaultCheckContainersInPlaceUpdateCompleted); judged by kruise-manager v1.8.2 on the real 1.31.14 kubelet (InPlaceUpdateReady true)',
    at: ['1.31'],
    kruise: ['v1.8'],
    options: {
      featureGates: { InPlacePodVerticalScaling: true },
      openKruise: { version: '', featureGates: { InPlaceWorkloadVerticalScaling: true } },
    },
    old: cloneSet([
      c('nginx:1', {
        ...res({ cpu: '1', memory: '1Gi' }),
        resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
      }),
    ]),
    new: cloneSet([
      c('nginx:1', {
        ...res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '2Gi' }),
        resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
      }),
    ]),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
    readiness: [{ name: 'web', hashMatches: false, imageChanged: false }],
  },
  {
    name: 'OpenKruise v1.9 hashes both forms: 1.31+ nodes and 1.16–1.30 nodes both read as done',
    rule: 'kruise-readiness-hash',
    source: `${KRUISE_READY} at v1.9.0 (isConsistentInNewVersion, isConsistentInOldVersion)`,
    at: ['1.16', '1.30', '1.31', NEWEST],
    kruise: ['v1.9'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:2'), log]),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
    readiness: [{ name: 'web', hashMatches: true, imageChanged: true }],
  },
  {
    name: 'v1.9 on a pre-1.16 node (go-spew hash): no match, image IDs decide',
    rule: 'kruise-readiness-hash',
    source: `${KRUISE_READY} at v1.9.0`,
    at: ['1.15'],
    kruise: ['v1.9'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:2'), log]),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
    readiness: [{ name: 'web', hashMatches: false, imageChanged: true }],
  },
  {
    name: 'a CloneSet with ReCreate (the default) recreates for an image change',
    rule: 'kruise-recreate',
    source: 'pkg/controller/cloneset/sync/cloneset_update_test.go',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: cloneSet([c('nginx:1')], {}),
    new: cloneSet([c('nginx:2')], {}),
    expect: { verdict: 'replaced', decidedBy: 'controller', exitCode: 1 },
  },
  {
    name: 'a CloneSet with InPlaceIfPossible patches an image bump in place: one container restarted',
    rule: 'kruise-in-place-image',
    source: KRUISE_TEST,
    at: ['1.29', '1.31'],
    kruise: ['v1.0', 'v1.8', 'v1.9'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:2'), log]),
    expect: {
      verdict: 'in-place',
      decidedBy: 'kubelet',
      restarts: 1,
      exitCode: 1,
      kubeletActions: ['restart', 'keep'],
    },
  },
  {
    name: 'an Advanced StatefulSet with podUpdatePolicy InPlaceIfPossible likewise, from the partition on',
    rule: 'kruise-in-place-image',
    source:
      'openkruise pkg/controller/statefulset/stateful_set_control.go (updateStatefulSet: podUpdatePolicy, partition)',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: workload('apps.kruise.io/v1beta1', 'StatefulSet', [c('nginx:1')], {
      updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 1 } },
    }),
    new: workload('apps.kruise.io/v1beta1', 'StatefulSet', [c('nginx:2')], {
      updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 1 } },
    }),
    expect: { verdict: 'in-place', pods: 'ordinals ≥ 1 (partition)', restarts: 1, exitCode: 1 },
  },
  {
    name: 'a template label change is patched in place; the kubelet keeps every container',
    rule: 'kruise-in-place-metadata',
    source: KRUISE_TEST,
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: cloneSet([c('nginx:1')], undefined, { metadata: { labels: { a: '1' } } }),
    new: cloneSet([c('nginx:1')], undefined, { metadata: { labels: { a: '2' } } }),
    expect: { verdict: 'in-place', restarts: 0, exitCode: 0, kubeletActions: ['keep'] },
  },
  {
    name: 'a label read by env through fieldRef: OpenKruise restarts the reader (gate on by default from v1.4)',
    rule: 'kruise-env-from-metadata',
    source: KRUISE_TEST,
    at: ['1.31'],
    kruise: ['v1.4', 'v1.9'],
    old: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '1' } } }),
    new: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '2' } } }),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1, kubeletActions: ['keep', 'keep'] },
  },
  {
    name: 'with the gate set on, v1.0 restarts the reader too',
    rule: 'kruise-env-from-metadata',
    source: KRUISE_TEST,
    at: ['1.31'],
    kruise: ['v1.0', 'v1.3'],
    options: { openKruise: { version: '', featureGates: { InPlaceUpdateEnvFromMetadata: 'true' } } },
    old: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '1' } } }),
    new: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '2' } } }),
    expect: { verdict: 'in-place', restarts: 1, exitCode: 1 },
  },
  {
    name: 'the same change before v1.4 (gate off by default) restarts nothing',
    rule: 'kruise-in-place-metadata',
    source: KRUISE_TEST,
    at: ['1.31'],
    kruise: ['v1.0', 'v1.3'],
    old: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '1' } } }),
    new: cloneSet([c('nginx:1', fromLabel), log], undefined, { metadata: { labels: { ver: '2' } } }),
    expect: { verdict: 'in-place', restarts: 0, exitCode: 0 },
  },
  {
    name: 'a cpu change with InPlaceWorkloadVerticalScaling (v1.8+) on 1.27–1.31 with InPlacePodVerticalScaling is applied in place; the kubelet resizes',
    rule: 'kruise-in-place-resources',
    source:
      'openkruise pkg/util/inplaceupdate/inplace_update_vertical.go:65 (v1.8.2) (UpdateInplaceUpdateMetadata; TestValidateResourcePatch); judged by kruise-manager v1.8.2 on a real 1.30.14 cluster (test/real/openkruise.integration.test.ts)',
    at: ['1.27', '1.30', '1.31'],
    kruise: ['v1.8', 'v1.9'],
    options: {
      featureGates: { InPlacePodVerticalScaling: true },
      openKruise: { version: '', featureGates: { InPlaceWorkloadVerticalScaling: true } },
    },
    old: cloneSet([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: cloneSet([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'in-place', ruleId: 'kruise-in-place-resources', restarts: 0, exitCode: 0 },
  },
  {
    name: 'v1.9 resizes through pods/resize from 1.32: in place on 1.33 too',
    rule: 'kruise-in-place-resources',
    source:
      'openkruise pkg/util/inplaceupdate/inplace_update.go:397 (v1.9.0) (PatchPodResource on the resize subresource), pkg/client/registry.go:57 (v1.9.0) (ShouldUpdateResourceByResize: apiserver 1.32+)',
    at: ['1.33', NEWEST],
    kruise: ['v1.9'],
    options: { openKruise: { version: '', featureGates: { InPlaceWorkloadVerticalScaling: true } } },
    old: cloneSet([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: cloneSet([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'in-place', ruleId: 'kruise-in-place-resources', restarts: 0, exitCode: 0 },
  },
  {
    name: "v1.8's Pod update carrying the new resources is refused at spec from 1.32: the pods run on unchanged",
    rule: 'kruise-resources-not-resizable',
    source:
      'openkruise pkg/util/inplaceupdate/inplace_update.go:361 (v1.8.2) (updatePodInPlace: UpdatePod); pkg/apis/core/validation/validation.go:5331 (v1.33.13) (ValidatePodUpdate munges images only); judged by kruise-manager v1.8.2 on a real 1.33.13 cluster (FailedUpdatePodInPlace: "spec: Forbidden: pod updates may not change fields other than …")',
    at: ['1.32', '1.33', NEWEST],
    kruise: ['v1.8'],
    options: {
      featureGates: { InPlacePodVerticalScaling: true },
      openKruise: { version: '', featureGates: { InPlaceWorkloadVerticalScaling: true } },
    },
    old: cloneSet([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: cloneSet([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: {
      verdict: 'refused',
      decidedBy: 'apiserver',
      field: 'spec.template.spec.containers[0].resources.requests.cpu',
      reportedField: 'spec',
      exitCode: 2,
    },
  },
  {
    name: 'without InPlacePodVerticalScaling on 1.27–1.31 the Pod update is refused for v1.8 and v1.9 alike',
    rule: 'kruise-resources-not-resizable',
    source:
      'pkg/apis/core/validation/validation.go at v1.31.14 (ValidatePodUpdate munges resources only with InPlacePodVerticalScaling); openkruise pkg/client/registry.go:57 (v1.9.0) (a Pod update below 1.32)',
    at: ['1.27', '1.31'],
    kruise: ['v1.8', 'v1.9'],
    options: { openKruise: { version: '', featureGates: { InPlaceWorkloadVerticalScaling: true } } },
    old: cloneSet([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: cloneSet([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'refused', decidedBy: 'apiserver', reportedField: 'spec', exitCode: 2 },
  },
  {
    name: 'a CloneSet env change with InPlaceIfPossible recreates the pods',
    rule: 'kruise-recreate-fallback',
    source: KRUISE_TEST,
    at: ['1.31'],
    kruise: ['v1.0', 'v1.8', 'v1.9'],
    old: cloneSet([c('nginx:1'), log]),
    new: cloneSet([c('nginx:1', env('debug')), log]),
    expect: { verdict: 'replaced', decidedBy: 'controller', pods: 'every pod', restarts: 0, exitCode: 1 },
  },
  {
    name: 'the same cpu change without the gate recreates',
    rule: 'kruise-recreate-fallback',
    source: KRUISE_TEST,
    at: ['1.33'],
    kruise: ['v1.7', 'v1.8'],
    old: cloneSet([c('nginx:1', res({ cpu: '500m', memory: '1Gi' }))]),
    new: cloneSet([c('nginx:1', res({ cpu: '1', memory: '1Gi' }))]),
    expect: { verdict: 'replaced', exitCode: 1 },
  },
  {
    name: 'an env change with InPlaceOnly is refused by the OpenKruise webhook',
    rule: 'kruise-in-place-only-refused',
    source:
      'pkg/controller/cloneset/core/cloneset_core_test.go; pkg/webhook/statefulset/validating/statefulset_validation_test.go (TestValidateStatefulSetUpdate)',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: cloneSet([c('nginx:1')], { type: 'InPlaceOnly' }),
    new: cloneSet([c('nginx:1', env('debug'))], { type: 'InPlaceOnly' }),
    expect: { verdict: 'refused', decidedBy: 'controller', field: 'spec.template.spec.containers[0].env', exitCode: 2 },
  },
  {
    name: 'an Advanced DaemonSet with OnDelete replaces nothing now',
    rule: 'kruise-on-delete',
    source: 'pkg/controller/daemonset/daemonset_update.go',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: workload('apps.kruise.io/v1alpha1', 'DaemonSet', [c('nginx:1')], { updateStrategy: { type: 'OnDelete' } }),
    new: workload('apps.kruise.io/v1alpha1', 'DaemonSet', [c('nginx:2')], { updateStrategy: { type: 'OnDelete' } }),
    expect: { verdict: 'on-delete', exitCode: 0 },
  },
  {
    name: 'a paused CloneSet updates nothing',
    rule: 'kruise-paused',
    source: 'pkg/controller/cloneset/sync/cloneset_update.go (Paused)',
    at: ['1.31'],
    kruise: ['v1.0', 'v1.9'],
    old: cloneSet([c('nginx:1')], { type: 'InPlaceIfPossible', paused: true }),
    new: cloneSet([c('nginx:2')], { type: 'InPlaceIfPossible', paused: true }),
    expect: { verdict: 'held', exitCode: 0 },
  },
];

function run(s: Scenario, release: string, kruise: string | undefined): RolloutPrediction {
  const kruiseOption = s.options?.openKruise;
  const options: PredictRolloutOptions = {
    ...s.options,
    kubeletVersion: release,
    ...(kruise ? { openKruise: { ...kruiseOption, version: kruise } } : {}),
  };
  return predictRollout(s.old, s.new, options);
}

describe('rollout scenarios (ROLLOUT_RULES)', () => {
  for (const s of SCENARIOS) {
    for (const release of s.at) {
      for (const kruise of s.kruise ?? [undefined]) {
        it(`${s.rule} @ ${release}${kruise ? ` + OpenKruise ${kruise}` : ''}: ${s.name}`, () => {
          const p = run(s, release, kruise);
          const { kubeletActions, ...fields } = s.expect;
          expect(p).toMatchObject(fields);
          // The decisive rule is the scenario's, or (in place) one of the rules that admitted the change.
          expect([p.ruleId, ...p.admittedBy]).toContain(s.rule);
          if (kubeletActions) expect(p.kubelet?.containers.map((x) => x.action)).toEqual(kubeletActions);
          if (s.readiness) {
            expect(
              p.kruiseReadiness?.map((r) => ({
                name: r.name,
                hashMatches: r.hashMatches,
                imageChanged: r.imageChanged,
              })),
            ).toEqual(s.readiness);
            // A match is a real equality of the kubelet's stored hash with one Kruise computes.
            for (const r of p.kruiseReadiness ?? []) {
              expect(r.kruiseHashes.some((h) => h.hash === r.kubeletHash)).toBe(r.hashMatches);
              expect(r.kubeletHash).toBe(p.kubelet?.containers.find((x) => x.name === r.name)?.expectedHash);
            }
          }
          if (p.verdict !== 'in-place') expect(p.kubelet).toBeUndefined();
        });
      }
    }
  }

  it('every rule has a scenario run at its first release, each citing an upstream test or source', () => {
    for (const r of ROLLOUT_RULES) {
      const mine = SCENARIOS.filter((s) => s.rule === r.id);
      expect(mine.length, r.id).toBeGreaterThan(0);
      expect(mine.every((s) => s.source.length > 0)).toBe(true);
      const firsts = mine.flatMap((s) => (r.releases === 'openkruise' ? (s.kruise ?? []) : s.at));
      const first = r.releases === 'openkruise' ? `v1.${r.firstMinor}` : `1.${Math.max(r.firstMinor, 8)}`;
      expect(firsts, r.id).toContain(first);
    }
  });

  it('a count that is no integer is refused with its path, the caller objects left as they were', () => {
    const old = workload('apps/v1', 'StatefulSet', [c('nginx:1')], { replicas: 3 });
    const bad = workload('apps/v1', 'StatefulSet', [c('nginx:1')], { replicas: '2' });
    const frozen = structuredClone(bad);
    expect(() => predictRollout(old, bad, { kubeletVersion: NEWEST })).toThrow(
      expect.objectContaining({ code: 'INVALID_TYPE', path: ['spec', 'replicas'] }),
    );
    expect(bad).toEqual(frozen);
    const job = (parallelism: unknown) => workload('batch/v1', 'Job', [c('nginx:1')], { parallelism });
    expect(() => predictRollout(job(3), job(1.5), { kubeletVersion: NEWEST })).toThrow(
      expect.objectContaining({ code: 'NOT_AN_INTEGER', path: ['spec', 'parallelism'] }),
    );
    expect(() => predictRollout(job(3), job(3), { kubeletVersion: NEWEST, now: 'soon' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', path: ['now'] }),
    );
  });

  it('every rule cites a source with a tag, and holds for a range of releases', () => {
    for (const r of ROLLOUT_RULES) {
      expect(r.source, r.id).toMatch(/@(v\d+\.\d+\.\d+|master)/);
      expect(r.lastMinor === null || r.lastMinor >= r.firstMinor, r.id).toBe(true);
    }
  });
});
