// 1.29 adds LifecycleHandler.Sleep (after TCPSocket) and the type v1.SleepAction; SidecarContainers
// turns beta; later 1.29.x patches were built with Go 1.22.
import { BETA_ON, addField, addType, field, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_29: ReleaseDelta = {
  version: '1.29',
  source: {
    api: { commit: '12b5cfde901cc29a42bf09ae64307818f6cfd874', date: '2023-12-13' },
    apimachinery: { commit: '3c8c1f22dc332a8a6b51033f6a7c0566b885d290', date: '2023-11-28' },
  },
  kubelet: {
    featureGates: { SidecarContainers: BETA_ON },
    laterPatchToolchain: {
      fromPatch: 7,
      go: 'go1.22.5',
      escapes: 'go1.22',
      source: 'kubernetes#125896, Go 1.22.5 for release-1.29, merged 2024-07-04; the next patch was 1.29.7, 2024-07-16',
    },
  },
  changes: [
    addField('v1.LifecycleHandler', field('Sleep', '*v1.SleepAction', 'sleep,omitempty'), { after: 'TCPSocket' }),
    addType(struct('v1.SleepAction', [field('Seconds', 'int64', 'seconds')])),
  ],
};
