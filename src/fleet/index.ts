/** Fleets through Kubernetes: the agent's objects (Jobs, RBAC, a system-upgrade-controller Plan) and the go/no-go over node plans. */
export { clusterRbacName, fleetJobs, jobName, sucPlan, type FleetOptions } from './manifests.js';
export { foldFleet, nodeReport, type FleetReportOptions } from './report.js';
export { IN_CLUSTER_DIR, inClusterAccess, listNodePods, writeNewFile } from './api-pods.js';
export { apiRequest, type ApiCredentials } from './api-request.js';
export { kubeconfigAccess } from './kubeconfig.js';
export { holdNode, type ApiCall } from './window-guard.js';
export { auditWindow, parseSnapshot, takeSnapshot, type WindowFinding } from './window-audit.js';
