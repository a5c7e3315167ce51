// 1.34 adds Container.RestartPolicyRules (after RestartPolicy) and EnvVarSource.FileKeyRef (after SecretKeyRef), with five new types;
// ContainerRestartRules arrives as alpha.
import { ALPHA_OFF, BETA_ON, REMOVED, addField, addType, field, named, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_34: ReleaseDelta = {
  version: '1.34',
  source: {
    api: { commit: 'ae6c3b911ef17a4e2b10922c745c6f35bcf9b78e', date: '2025-08-27' },
    apimachinery: { commit: 'b72d93d174332f952a8d431419fece5e6f044bcb', date: '2025-08-16' },
  },
  // KEP-5307: a regular container's own restartPolicy and restartPolicyRules (kube_features.go: alpha in 1.34).
  // PodLevelResources goes beta (on) (kube_features.go at v1.34.4).
  // LegacySidecarContainers is gone (not in kube_features.go at v1.34.4): every pod takes the sidecar path.
  kubelet: {
    featureGates: { ContainerRestartRules: ALPHA_OFF, PodLevelResources: BETA_ON, LegacySidecarContainers: REMOVED },
  },
  changes: [
    addField('v1.Container', field('RestartPolicyRules', '[]v1.ContainerRestartRule', 'restartPolicyRules,omitempty'), {
      after: 'RestartPolicy',
    }),
    addField('v1.EnvVarSource', field('FileKeyRef', '*v1.FileKeySelector', 'fileKeyRef,omitempty'), {
      after: 'SecretKeyRef',
    }),
    addType(
      struct('v1.ContainerRestartRule', [
        field('Action', 'v1.ContainerRestartRuleAction', 'action,omitempty'),
        field('ExitCodes', '*v1.ContainerRestartRuleOnExitCodes', 'exitCodes,omitempty'),
      ]),
    ),
    addType(named('v1.ContainerRestartRuleAction', 'string')),
    addType(
      struct('v1.ContainerRestartRuleOnExitCodes', [
        field('Operator', 'v1.ContainerRestartRuleOnExitCodesOperator', 'operator,omitempty'),
        field('Values', '[]int32', 'values,omitempty'),
      ]),
    ),
    addType(
      struct('v1.FileKeySelector', [
        field('VolumeName', 'string', 'volumeName'),
        field('Path', 'string', 'path'),
        field('Key', 'string', 'key'),
        field('Optional', '*bool', 'optional,omitempty'),
      ]),
    ),
    addType(named('v1.ContainerRestartRuleOnExitCodesOperator', 'string')),
  ],
};
