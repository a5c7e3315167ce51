// 1.35 changes nothing the container hash can see; InPlacePodVerticalScaling goes GA (locked on),
// ContainerRestartRules beta (on); RestartAllContainersOnContainerExits and InPlacePodLevelResourcesVerticalScaling arrive
// as alpha; ChangeContainerStatusOnKubeletRestart is deprecated and off.
import { ALPHA_OFF, BETA_ON, DEPRECATED_OFF, GA_LOCKED } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_35: ReleaseDelta = {
  version: '1.35',
  source: {
    api: { commit: '9afe7de0a56c582b06ca094f7309015bc84657a7', date: '2025-12-17' },
    apimachinery: { commit: '72d71eac265e06713c6d83d7034aac609450243f', date: '2025-12-04' },
  },
  kubelet: {
    featureGates: {
      InPlacePodVerticalScaling: GA_LOCKED,
      ContainerRestartRules: BETA_ON,
      RestartAllContainersOnContainerExits: ALPHA_OFF,
      // KEP-5593 in-place resize of pod-level resources, alpha (kube_features.go at v1.35.4; it needs
      // InPlacePodVerticalScaling, PodLevelResources and NodeDeclaredFeatures, which is not modelled).
      InPlacePodLevelResourcesVerticalScaling: ALPHA_OFF,
      // GA since 1.0 and always on before 1.35 (no gate), deprecated and off from 1.35: the kubelet
      // keeps a container's started and ready status over its own restart (kube_features.go at v1.35.4).
      ChangeContainerStatusOnKubeletRestart: DEPRECATED_OFF,
    },
  },
  changes: [],
};
