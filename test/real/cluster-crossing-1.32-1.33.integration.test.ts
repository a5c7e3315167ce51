/**
 * A node's kubelet crossing 1.32 → 1.33 under a 1.33.13 control plane, on containerd 2.1.9 (the suite:
 * support/cluster-crossing-suite.ts): the varied pods and pods with resize policies. The 1.32 node
 * resizes in place (its alpha InPlacePodVerticalScaling gate on, pod cgroups); 1.33 starts without the
 * actuated-resources checkpoint 1.32 never wrote (kubernetes#130599), and what it restarts for it is
 * what the plan's allocation-checkpoint causes name.
 */
import { resizePods } from '../support/cluster-pods.js';
import { clusterCrossingSuite } from '../support/cluster-crossing-suite.js';

const resize = { InPlacePodVerticalScaling: true };
clusterCrossingSuite(
  '1.32.13-1.33.13',
  '2.1.9',
  { pods: resizePods, podCgroups: true, gates: { from: resize, to: resize } },
  'API pods and resize policies across the kubelet minor',
);
