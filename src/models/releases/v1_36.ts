// 1.36 changes nothing the container hash can see; RestartAllContainersOnContainerExits and
// InPlacePodLevelResourcesVerticalScaling go beta (on) (kube_features.go at v1.36.3).
import { BETA_ON } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_36: ReleaseDelta = {
  version: '1.36',
  source: {
    api: { commit: '545bb975fe6653239af42324065cf72272186404', date: '2026-04-22' },
    apimachinery: { commit: 'debe1eba03a0c4134fd07a8f7586c44bb94ec7b0', date: '2026-04-22' },
  },
  kubelet: {
    featureGates: { RestartAllContainersOnContainerExits: BETA_ON, InPlacePodLevelResourcesVerticalScaling: BETA_ON },
  },
  changes: [],
};
