// 1.32 changes nothing the container hash can see; the kubelet starts restarting running sidecars whose hash changed;
// PodLevelResources arrives as alpha.
import { ALPHA_OFF } from '../dsl.js';
import type { ReleaseDelta } from '../dsl.js';

export const v1_32: ReleaseDelta = {
  version: '1.32',
  source: {
    api: { commit: 'e622342ab4abd51157f8fd650186575bab46777c', date: '2024-12-11' },
    apimachinery: { commit: '59e9003f02d6f0c8fff53719a7a0604ec82ee9a9', date: '2024-12-06' },
  },
  // PodLevelResources (KEP-2837) arrives as alpha (kube_features.go at v1.33.13: 1.32 alpha).
  kubelet: { restartsSidecarsOnHashChange: true, featureGates: { PodLevelResources: ALPHA_OFF } },
  changes: [],
};
