// 1.28 adds Container.RestartPolicy (after ResizePolicy) and the type v1.ContainerRestartPolicy;
// SidecarContainers arrives as alpha; late 1.28.x patches were built with Go 1.22.
import { ALPHA_OFF, addField, addType, field, named } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_28: ReleaseDelta = {
  version: '1.28',
  source: {
    api: { commit: 'ae4aec0b9ecea62c309b2da1a3aaea276362c236', date: '2023-08-15' },
    apimachinery: { commit: '4b14f804a0babdcc58e695d72f77ad29f536511e', date: '2023-08-07' },
  },
  kubelet: {
    featureGates: { SidecarContainers: ALPHA_OFF },
    laterPatchToolchain: {
      fromPatch: 12,
      go: 'go1.22.5',
      escapes: 'go1.22',
      source:
        'kubernetes#125897, Go 1.22.5 for release-1.28, merged 2024-07-04; the next patch was 1.28.12, 2024-07-16',
    },
  },
  changes: [
    addField('v1.Container', field('RestartPolicy', '*v1.ContainerRestartPolicy', 'restartPolicy,omitempty'), {
      after: 'ResizePolicy',
    }),
    addType(named('v1.ContainerRestartPolicy', 'string')),
  ],
};
