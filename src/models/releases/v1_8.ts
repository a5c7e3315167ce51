// 1.8, the base release: every Go type a 1.8 kubelet's container hash can reach, fields in declaration order.
import { embed, field, named, struct } from '../dsl.js';
import type { BaseRelease } from '../dsl.js';

export const v1_8: BaseRelease = {
  version: '1.8',
  source: {
    api: { commit: 'fe29995db37613b9c5b2a647544cf627bfa8d299', date: '2017-09-22' },
    apimachinery: { commit: '019ae5ada31de202164b118aee88ee2d14075c31', date: '2017-09-25' },
  },
  kubelet: {
    kubeletHashAlgorithm: 'legacy',
    hasHashWithoutResources: false,
    jsonEscapes: null,
    restartsSidecarsOnHashChange: false,
    featureGates: {},
  },
  types: [
    // k8s.io/api/core/v1, breadth-first from Container
    struct('v1.Container', [
      field('Name', 'string', 'name'),
      field('Image', 'string', 'image,omitempty'),
      field('Command', '[]string', 'command,omitempty'),
      field('Args', '[]string', 'args,omitempty'),
      field('WorkingDir', 'string', 'workingDir,omitempty'),
      field('Ports', '[]v1.ContainerPort', 'ports,omitempty'),
      field('EnvFrom', '[]v1.EnvFromSource', 'envFrom,omitempty'),
      field('Env', '[]v1.EnvVar', 'env,omitempty'),
      field('Resources', 'v1.ResourceRequirements', 'resources,omitempty'),
      field('VolumeMounts', '[]v1.VolumeMount', 'volumeMounts,omitempty'),
      field('LivenessProbe', '*v1.Probe', 'livenessProbe,omitempty'),
      field('ReadinessProbe', '*v1.Probe', 'readinessProbe,omitempty'),
      field('Lifecycle', '*v1.Lifecycle', 'lifecycle,omitempty'),
      field('TerminationMessagePath', 'string', 'terminationMessagePath,omitempty'),
      field('TerminationMessagePolicy', 'v1.TerminationMessagePolicy', 'terminationMessagePolicy,omitempty'),
      field('ImagePullPolicy', 'v1.PullPolicy', 'imagePullPolicy,omitempty'),
      field('SecurityContext', '*v1.SecurityContext', 'securityContext,omitempty'),
      field('Stdin', 'bool', 'stdin,omitempty'),
      field('StdinOnce', 'bool', 'stdinOnce,omitempty'),
      field('TTY', 'bool', 'tty,omitempty'),
    ]),
    struct('v1.ContainerPort', [
      field('Name', 'string', 'name,omitempty'),
      field('HostPort', 'int32', 'hostPort,omitempty'),
      field('ContainerPort', 'int32', 'containerPort'),
      field('Protocol', 'v1.Protocol', 'protocol,omitempty'),
      field('HostIP', 'string', 'hostIP,omitempty'),
    ]),
    struct('v1.EnvFromSource', [
      field('Prefix', 'string', 'prefix,omitempty'),
      field('ConfigMapRef', '*v1.ConfigMapEnvSource', 'configMapRef,omitempty'),
      field('SecretRef', '*v1.SecretEnvSource', 'secretRef,omitempty'),
    ]),
    struct('v1.EnvVar', [
      field('Name', 'string', 'name'),
      field('Value', 'string', 'value,omitempty'),
      field('ValueFrom', '*v1.EnvVarSource', 'valueFrom,omitempty'),
    ]),
    struct('v1.ResourceRequirements', [
      field('Limits', 'v1.ResourceList', 'limits,omitempty'),
      field('Requests', 'v1.ResourceList', 'requests,omitempty'),
    ]),
    struct('v1.VolumeMount', [
      field('Name', 'string', 'name'),
      field('ReadOnly', 'bool', 'readOnly,omitempty'),
      field('MountPath', 'string', 'mountPath'),
      field('SubPath', 'string', 'subPath,omitempty'),
      field('MountPropagation', '*v1.MountPropagationMode', 'mountPropagation,omitempty'),
    ]),
    struct('v1.Probe', [
      embed('v1.Handler', ',inline'),
      field('InitialDelaySeconds', 'int32', 'initialDelaySeconds,omitempty'),
      field('TimeoutSeconds', 'int32', 'timeoutSeconds,omitempty'),
      field('PeriodSeconds', 'int32', 'periodSeconds,omitempty'),
      field('SuccessThreshold', 'int32', 'successThreshold,omitempty'),
      field('FailureThreshold', 'int32', 'failureThreshold,omitempty'),
    ]),
    struct('v1.Lifecycle', [
      field('PostStart', '*v1.Handler', 'postStart,omitempty'),
      field('PreStop', '*v1.Handler', 'preStop,omitempty'),
    ]),
    named('v1.TerminationMessagePolicy', 'string'),
    named('v1.PullPolicy', 'string'),
    struct('v1.SecurityContext', [
      field('Capabilities', '*v1.Capabilities', 'capabilities,omitempty'),
      field('Privileged', '*bool', 'privileged,omitempty'),
      field('SELinuxOptions', '*v1.SELinuxOptions', 'seLinuxOptions,omitempty'),
      field('RunAsUser', '*int64', 'runAsUser,omitempty'),
      field('RunAsNonRoot', '*bool', 'runAsNonRoot,omitempty'),
      field('ReadOnlyRootFilesystem', '*bool', 'readOnlyRootFilesystem,omitempty'),
      field('AllowPrivilegeEscalation', '*bool', 'allowPrivilegeEscalation,omitempty'),
    ]),
    named('v1.Protocol', 'string'),
    struct('v1.ConfigMapEnvSource', [
      embed('v1.LocalObjectReference', ',inline'),
      field('Optional', '*bool', 'optional,omitempty'),
    ]),
    struct('v1.SecretEnvSource', [
      embed('v1.LocalObjectReference', ',inline'),
      field('Optional', '*bool', 'optional,omitempty'),
    ]),
    struct('v1.EnvVarSource', [
      field('FieldRef', '*v1.ObjectFieldSelector', 'fieldRef,omitempty'),
      field('ResourceFieldRef', '*v1.ResourceFieldSelector', 'resourceFieldRef,omitempty'),
      field('ConfigMapKeyRef', '*v1.ConfigMapKeySelector', 'configMapKeyRef,omitempty'),
      field('SecretKeyRef', '*v1.SecretKeySelector', 'secretKeyRef,omitempty'),
    ]),
    named('v1.ResourceList', 'map[v1.ResourceName]resource.Quantity'),
    named('v1.MountPropagationMode', 'string'),
    struct('v1.Handler', [
      field('Exec', '*v1.ExecAction', 'exec,omitempty'),
      field('HTTPGet', '*v1.HTTPGetAction', 'httpGet,omitempty'),
      field('TCPSocket', '*v1.TCPSocketAction', 'tcpSocket,omitempty'),
    ]),
    struct('v1.Capabilities', [
      field('Add', '[]v1.Capability', 'add,omitempty'),
      field('Drop', '[]v1.Capability', 'drop,omitempty'),
    ]),
    struct('v1.SELinuxOptions', [
      field('User', 'string', 'user,omitempty'),
      field('Role', 'string', 'role,omitempty'),
      field('Type', 'string', 'type,omitempty'),
      field('Level', 'string', 'level,omitempty'),
    ]),
    struct('v1.LocalObjectReference', [
      field('Name', 'string', 'name,omitempty'),
    ]),
    struct('v1.ObjectFieldSelector', [
      field('APIVersion', 'string', 'apiVersion,omitempty'),
      field('FieldPath', 'string', 'fieldPath'),
    ]),
    struct('v1.ResourceFieldSelector', [
      field('ContainerName', 'string', 'containerName,omitempty'),
      field('Resource', 'string', 'resource'),
      field('Divisor', 'resource.Quantity', 'divisor,omitempty'),
    ]),
    struct('v1.ConfigMapKeySelector', [
      embed('v1.LocalObjectReference', ',inline'),
      field('Key', 'string', 'key'),
      field('Optional', '*bool', 'optional,omitempty'),
    ]),
    struct('v1.SecretKeySelector', [
      embed('v1.LocalObjectReference', ',inline'),
      field('Key', 'string', 'key'),
      field('Optional', '*bool', 'optional,omitempty'),
    ]),
    named('v1.ResourceName', 'string'),
    struct('v1.ExecAction', [
      field('Command', '[]string', 'command,omitempty'),
    ]),
    struct('v1.HTTPGetAction', [
      field('Path', 'string', 'path,omitempty'),
      field('Port', 'intstr.IntOrString', 'port'),
      field('Host', 'string', 'host,omitempty'),
      field('Scheme', 'v1.URIScheme', 'scheme,omitempty'),
      field('HTTPHeaders', '[]v1.HTTPHeader', 'httpHeaders,omitempty'),
    ]),
    struct('v1.TCPSocketAction', [
      field('Port', 'intstr.IntOrString', 'port'),
      field('Host', 'string', 'host,omitempty'),
    ]),
    named('v1.Capability', 'string'),
    named('v1.URIScheme', 'string'),
    struct('v1.HTTPHeader', [
      field('Name', 'string', 'name'),
      field('Value', 'string', 'value'),
    ]),

    // k8s.io/apimachinery, and the Go internals go-spew walks into (Quantity's amounts, inf.Dec, big.Int)
    struct('resource.Quantity', [
      field('i', 'resource.int64Amount'),
      field('d', 'resource.infDecAmount'),
      field('s', 'string'),
      embed('resource.Format'),
    ], { jsonCustomMarshal: true }),
    struct('resource.int64Amount', [
      field('value', 'int64'),
      field('scale', 'resource.Scale'),
    ]),
    struct('resource.infDecAmount', [
      embed('*inf.Dec'),
    ]),
    named('resource.Format', 'string'),
    struct('intstr.IntOrString', [
      field('Type', 'intstr.Type'),
      field('IntVal', 'int32'),
      field('StrVal', 'string'),
    ], { jsonCustomMarshal: true }),
    named('resource.Scale', 'int32'),
    struct('inf.Dec', [
      field('unscaled', 'big.Int'),
      field('scale', 'inf.Scale'),
    ]),
    named('intstr.Type', 'int'),
    struct('big.Int', [
      field('neg', 'bool'),
      field('abs', 'big.nat'),
    ], { jsonCustomMarshal: true }),
    named('inf.Scale', 'int32'),
    named('big.nat', '[]big.Word'),
    named('big.Word', 'uint'),
  ],
};
