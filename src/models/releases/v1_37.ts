// 1.37 (read from v0.37.0, the module the kubernetes v1.37.x staging tree publishes; v0.37.2 declares
// the same core/v1 types) changes nothing the container hash can see (1.37 hashes only name and
// image), but three fields reach the closure, so decoding and validation change:
// VolumeMount.BindMountOptions (after SubPathExpr, alpha behind VolumeBindMountOptions),
// HTTPGetAction.Protocol (after HTTPHeaders) and GRPCAction.Mode (after Service), the last two
// pointers to the new string types HTTPProtocol and GRPCProbeMode. Embedded structs are tagged
// `json:""` instead of `json:",inline"`, which encoding/json reads the same way (promoted).
// The SidecarContainers gate is removed (sidecars are always on).
import { REMOVED, addField, addType, embed, field, named, replaceField } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_37: ReleaseDelta = {
  version: '1.37',
  source: {
    api: { commit: 'unknown', date: '2026-08-26' },
    apimachinery: { commit: 'unknown', date: '2026-08-26' },
    tag: 'v0.37.0',
    note:
      'the kubernetes-1.37.0 tag was not available; read from the Go module proxy v0.37.0 ' +
      '(k8s.io/api 2026-08-26T19:50:43Z, k8s.io/apimachinery 2026-08-26T19:51:54Z), which records no commit; ' +
      'v0.37.2 declares the same core/v1 types',
  },
  kubelet: { featureGates: { SidecarContainers: REMOVED } },
  changes: [
    replaceField('v1.Probe', embed('v1.ProbeHandler')),
    replaceField('v1.ConfigMapEnvSource', embed('v1.LocalObjectReference')),
    replaceField('v1.SecretEnvSource', embed('v1.LocalObjectReference')),
    replaceField('v1.ConfigMapKeySelector', embed('v1.LocalObjectReference')),
    replaceField('v1.SecretKeySelector', embed('v1.LocalObjectReference')),
    addField('v1.VolumeMount', field('BindMountOptions', '[]string', 'bindMountOptions,omitempty'), {
      after: 'SubPathExpr',
    }),
    addField('v1.HTTPGetAction', field('Protocol', '*v1.HTTPProtocol', 'protocol,omitempty'), {
      after: 'HTTPHeaders',
    }),
    addField('v1.GRPCAction', field('Mode', '*v1.GRPCProbeMode', 'mode,omitempty'), { after: 'Service' }),
    addType(named('v1.HTTPProtocol', 'string')),
    addType(named('v1.GRPCProbeMode', 'string')),
  ],
};
