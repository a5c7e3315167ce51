/**
 * A real one-node cluster (apiserver, controller manager, kube-proxy and kubelet 1.20.2) judges
 * defaulting, node upgrades and in-place patches on containerd 1.7.24 (the suite:
 * support/cluster-suite.ts; one file per containerd release so that vitest runs them side by side).
 */
import { clusterSuite } from '../support/cluster-suite.js';

clusterSuite('1.7.24');
