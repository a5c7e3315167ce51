// 1.33 adds Lifecycle.StopSignal (after PreStop) and the type v1.Signal; InPlacePodVerticalScaling turns beta, SidecarContainers GA;
// LegacySidecarContainers arrives deprecated (off).
import { BETA_ON, DEPRECATED_OFF, GA_LOCKED, addField, addType, field, named } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_33: ReleaseDelta = {
  version: '1.33',
  source: {
    api: { commit: '82c0029eaa2f5bdbfbbbce9305349a893e6c86dc', date: '2025-04-23' },
    apimachinery: { commit: '955939ffb8198b47fe11e4e53121d529ee6f946b', date: '2025-04-11' },
  },
  kubelet: {
    featureGates: {
      InPlacePodVerticalScaling: BETA_ON,
      SidecarContainers: GA_LOCKED,
      // Deprecated and off (kube_features.go at v1.33.13): on, a pod without a sidecar takes the old
      // init-container path (handleRestartableInitContainers, kuberuntime_manager.go:914@v1.33.13).
      LegacySidecarContainers: DEPRECATED_OFF,
    },
  },
  changes: [
    addField('v1.Lifecycle', field('StopSignal', '*v1.Signal', 'stopSignal,omitempty'), { after: 'PreStop' }),
    addType(named('v1.Signal', 'string')),
  ],
};
