// 1.37 (read from v0.37.0-beta.0) changes nothing the container hash can see: embedded structs are
// tagged `json:""` instead of `json:",inline"`, which encoding/json reads the same way (promoted).
// The SidecarContainers gate is removed (sidecars are always on).
import { REMOVED, embed, replaceField } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_37: ReleaseDelta = {
  version: '1.37',
  source: {
    api: { commit: '1c293eaf810b123325bc7d2c0b9682ff8806aaee', date: '2026-07-21' },
    apimachinery: { commit: '63a9f3d1b8dd467b263aedd41b99e58da6c015a3', date: '2026-07-21' },
    tag: 'v0.37.0-beta.0',
    note: 'the kubernetes-1.37.0 tag was not available; beta.0 is after the 1.37 code freeze',
  },
  kubelet: { featureGates: { SidecarContainers: REMOVED } },
  changes: [
    replaceField('v1.Probe', embed('v1.ProbeHandler')),
    replaceField('v1.ConfigMapEnvSource', embed('v1.LocalObjectReference')),
    replaceField('v1.SecretEnvSource', embed('v1.LocalObjectReference')),
    replaceField('v1.ConfigMapKeySelector', embed('v1.LocalObjectReference')),
    replaceField('v1.SecretKeySelector', embed('v1.LocalObjectReference')),
  ],
};
