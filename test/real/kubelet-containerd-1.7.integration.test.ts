/**
 * A real kubelet 1.20.2 judges the upgrade on containerd 1.7.24 (the suite: support/kubelet-upgrade-suite.ts;
 * one file per containerd release so that vitest runs them side by side).
 */
import { kubeletUpgradeSuite } from '../support/kubelet-upgrade-suite.js';

kubeletUpgradeSuite('1.7.24');
