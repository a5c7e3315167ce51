/** Fleets through Kubernetes: the agent's objects (Jobs, RBAC, a system-upgrade-controller Plan) and the go/no-go over node plans. */
export { clusterCordonName, clusterRbacName, fleetJobs, jobName, sucPlan, type FleetOptions } from './manifests.js';
export {
  foldFleet,
  nodeReport,
  type FleetReport,
  type FleetReportOptions,
  type NodeReport,
  type PlanProvenance,
} from './report.js';
export { IN_CLUSTER_DIR, inClusterAccess, listNodePods, writeNewFile, type ApiAccess } from './api-pods.js';
