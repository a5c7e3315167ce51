// 1.27 adds Container.ResizePolicy (after Resources) with v1.ContainerResizePolicy and
// v1.ResourceResizeRestartPolicy; the kubelet gains HashContainerWithoutResources behind the alpha gate
// InPlacePodVerticalScaling; the last 1.27.x patches were built with Go 1.22.
import { ALPHA_OFF, addField, addType, field, named, struct } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_27: ReleaseDelta = {
  version: '1.27',
  source: {
    api: { commit: '7ef25fde5aa5f4f3a1a76b8ec4df3b05ca4a87e4', date: '2023-04-11' },
    apimachinery: { commit: '8d1258da8f386b809d312cdda316366d5612f54e', date: '2023-03-15' },
  },
  kubelet: {
    hasHashWithoutResources: true,
    featureGates: { InPlacePodVerticalScaling: ALPHA_OFF },
    laterPatchToolchain: {
      fromPatch: 16,
      go: 'go1.22.5',
      escapes: 'go1.22',
      source:
        'kubernetes#125898, Go 1.22.5 for release-1.27, merged 2024-07-04; the next patch was 1.27.16, 2024-07-16, the last 1.27 patch',
    },
  },
  changes: [
    addField('v1.Container', field('ResizePolicy', '[]v1.ContainerResizePolicy', 'resizePolicy,omitempty'), {
      after: 'Resources',
    }),
    addType(
      struct('v1.ContainerResizePolicy', [
        field('ResourceName', 'v1.ResourceName', 'resourceName'),
        field('RestartPolicy', 'v1.ResourceResizeRestartPolicy', 'restartPolicy'),
      ]),
    ),
    addType(named('v1.ResourceResizeRestartPolicy', 'string')),
  ],
};
