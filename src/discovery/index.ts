/**
 * Node discovery: the container runtime behind the kubelet's endpoint and its root, and the
 * kubelet release the node runs. Read-only; used by the CLI's --runtime-endpoint, --kubelet-binary,
 * --node-object and `doctor`.
 */
export { discoverRuntime, requireRuntimeRoot, type RuntimeDiscovery } from './discover.js';
export { checkPlannedRoot } from './plan-root.js';
export { RUNTIME_LAYOUTS, type RuntimeLayout } from './layouts.js';
export { versionOfKubeletBinary, versionOfKubeletOutput, versionOfNodeObject } from './kubelet-version.js';
export {
  criRuntimeConfig,
  listCriContainers,
  type CriContainer,
  type CriListing,
  type CriRuntimeConfig,
} from './cri-client.js';
export { cgroupVersion, kubeletProcesses } from './kubelet-process.js';
