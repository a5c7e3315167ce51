/**
 * The 1.30 → 1.31 crossing in a real one-node cluster with API pods, on containerd 1.7.24 and 2.1.9
 * (the suite: support/cluster-crossing-suite.ts).
 */
import { clusterCrossingSuite } from '../support/cluster-crossing-suite.js';

for (const containerd of ['1.7.24', '2.1.9']) clusterCrossingSuite('1.30.14-1.31.14', containerd);
