// 1.35 changes nothing the container hash can see; InPlacePodVerticalScaling goes GA (locked on),
// ContainerRestartRules beta (on); RestartAllContainersOnContainerExits arrives as alpha.
import { ALPHA_OFF, BETA_ON, GA_LOCKED } from '../dsl.js';
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
    },
  },
  changes: [],
};
