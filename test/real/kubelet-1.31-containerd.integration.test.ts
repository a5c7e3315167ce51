/**
 * Kubernetes 1.31.14 built from the Go module proxy: its kubelet on containerd 1.7.24 and 2.1.9 stores the
 * library's hashes (the suite: support/kubelet-release-suite.ts; one file per release so that vitest
 * runs them side by side).
 */
import { kubeletReleaseSuite } from '../support/kubelet-release-suite.js';

for (const containerd of ['1.7.24', '2.1.9']) kubeletReleaseSuite('1.31.14', containerd, '1.30');
