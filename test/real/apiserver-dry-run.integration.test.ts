/**
 * `predict --kubeconfig` judged by real apiservers: 1.20.2 (the cluster's), 1.31.14 with in-place
 * resize on (the Pod update carries resources), 1.33.13 and 1.37.2 (the resize subresource), each started
 * alone with its etcd (support/apiserver-dry-run-suite.ts).
 */
import { apiserverDryRunSuite } from '../support/apiserver-dry-run-suite.js';

apiserverDryRunSuite(
  [
    ['cluster', '1.20.2'],
    ['kubectl', '1.20.2'],
  ],
  (systems) => {
    const r = systems.get('cluster')!.record;
    return {
      cluster: systems.get('cluster')!,
      release: {
        release: '1.20.2',
        apiserver: r.APISERVER!,
        controllerManager: r.CONTROLLER_MANAGER!,
        kubelet: r.KUBELET!,
      },
    };
  },
);

for (const [version, flags] of [
  ['1.31.14', 'InPlacePodVerticalScaling=true'],
  // The resize subresource on by default (InPlacePodVerticalScaling beta); sidecars resized; memory
  // limits not lowered unless RestartContainer (1.33 only).
  ['1.33.13', undefined],
  ['1.37.2', undefined],
] as const) {
  apiserverDryRunSuite(
    [
      ['kubernetes', version],
      ['kubectl', '1.20.2'],
    ],
    (systems) => {
      const k = systems.get('kubernetes')!;
      const record = { ...k.record, KUBECTL: systems.get('kubectl')!.bin };
      return {
        cluster: { ...k, record },
        release: {
          release: version,
          apiserver: k.record.APISERVER!,
          controllerManager: k.record.CONTROLLER_MANAGER!,
          kubelet: k.record.KUBELET!,
          ...(flags ? { apiserverFlags: [`--feature-gates=${flags}`] } : {}),
        },
      };
    },
    flags,
  );
}
