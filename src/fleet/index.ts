/** Fleets through Kubernetes: the agent's objects (Jobs, RBAC, a system-upgrade-controller Plan) and the go/no-go over node plans. */
export { clusterRbacName, defaultUnits, fleetJobs, jobName, sucPlan, type FleetOptions } from './manifests.js';
export { foldFleet, nodeReport, type FleetReportOptions } from './report.js';
export { IN_CLUSTER_DIR, inClusterAccess, listNodePods, writeNewFile } from './api-pods.js';
export { ApiServer, type DryRunAnswer } from './dry-run.js';
export { readKubeconfig } from './kubeconfig.js';
export { fileJournal } from './upgrade-node/journal.js';
export { OUTCOMES, upgradeNode } from './upgrade-node/machine.js';
export { HOST_EXECS, type HostExec } from './upgrade-node/host-command.js';
export { hostSteps, systemdUnits, type UnitCommands } from './upgrade-node/host-steps.js';
export { apiRequest, type ApiAccess } from './api-client.js';
export { holdNode, type ApiCall } from './window-guard.js';
export { auditWindow, parseSnapshot, takeSnapshot, type WindowFinding } from './window-audit.js';
