// 1.33 adds Lifecycle.StopSignal (after PreStop) and the type v1.Signal; InPlacePodVerticalScaling turns beta, SidecarContainers GA.
import { BETA_ON, GA_LOCKED, addField, addType, field, named } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_33: ReleaseDelta = {
  version: '1.33',
  source: {
    api: { commit: '82c0029eaa2f5bdbfbbbce9305349a893e6c86dc', date: '2025-04-23' },
    apimachinery: { commit: '955939ffb8198b47fe11e4e53121d529ee6f946b', date: '2025-04-11' },
  },
  kubelet: { featureGates: { InPlacePodVerticalScaling: BETA_ON, SidecarContainers: GA_LOCKED } },
  changes: [
    addField('v1.Lifecycle', field('StopSignal', '*v1.Signal', 'stopSignal,omitempty'), { after: 'PreStop' }),
    addType(named('v1.Signal', 'string')),
  ],
};
