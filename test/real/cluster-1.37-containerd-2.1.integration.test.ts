/**
 * A real one-node cluster of Kubernetes 1.37.2 built from the Go module proxy (apiserver, controller
 * manager and kubelet) judges defaulting, in-place changes and rollouts on containerd 2.1.9 (the suite:
 * support/cluster-release-suite.ts).
 */
import { clusterReleaseSuite } from '../support/cluster-release-suite.js';

clusterReleaseSuite('1.37.2', '2.1.9');
