/**
 * Every CLI command by name and summary, in the order `--help` lists them, with the module that
 * defines it loaded only when the command runs (or its `--help` is asked for): `--version`,
 * `--help` and an unknown command load no command module. A new command adds its row here and its
 * definition to `registry.ts`; `test/cli-contracts.test.ts` holds the two lists to each other.
 */
import type { CommandDef } from './command.js';

export interface CommandEntry {
  name: string;
  /** The definition's `summary`, for the program help without loading the definition. */
  summary: string;
  /** The command's definition (its module's commands, looked up by name). */
  load(): Promise<CommandDef>;
}

const loadCommands = (): Promise<readonly CommandDef[]> => import('./commands.js').then((m) => m.CORE_COMMANDS);
const loadCommandsControllers = (): Promise<readonly CommandDef[]> =>
  import('./commands-controllers.js').then((m) => m.CONTROLLER_COMMANDS);
const loadCommandsPredict = (): Promise<readonly CommandDef[]> =>
  import('./commands-predict.js').then((m) => m.PREDICT_COMMANDS);
const loadCommandsPlan = (): Promise<readonly CommandDef[]> =>
  import('./commands-plan.js').then((m) => m.NODE_COMMANDS);
const loadCommandsUpgrade = (): Promise<readonly CommandDef[]> =>
  import('./commands-upgrade.js').then((m) => m.UPGRADE_COMMANDS);
const loadCommandsUpgradeNode = (): Promise<readonly CommandDef[]> =>
  import('./commands-upgrade-node.js').then((m) => [m.upgradeNodeCommand]);
const loadCommandsDoctor = (): Promise<readonly CommandDef[]> => import('./commands-doctor.js').then((m) => [m.doctor]);
const loadCommandsHold = (): Promise<readonly CommandDef[]> =>
  import('./commands-hold.js').then((m) => [m.hold, m.holdAudit]);
const loadCommandsFleet = (): Promise<readonly CommandDef[]> => import('./commands-fleet.js').then((m) => [m.fleet]);

function entry(name: string, summary: string, loadModule: () => Promise<readonly CommandDef[]>): CommandEntry {
  return {
    name,
    summary,
    async load() {
      const def = (await loadModule()).find((c) => c.name === name);
      if (def === undefined) throw new Error(`command ${name} is not defined by its module`);
      return def;
    },
  };
}

export const COMMAND_INDEX: readonly CommandEntry[] = [
  entry('example', 'hash the bundled example pod (examples/pod.json) for every supported release', loadCommands),
  entry('hash', 'the hash each kubelet release stores for each container (io.kubernetes.container.hash)', loadCommands),
  entry(
    'preimage',
    'the exact text a kubelet hashes (go-spew text or JSON); --hashed prints what FNV-1a consumes',
    loadCommands,
  ),
  entry('releases', 'list the supported releases with their algorithm and storage keys', loadCommands),
  entry('changed', 'would this kubelet restart the running container? (exit 1 if so)', loadCommandsControllers),
  entry(
    'translate',
    'the hash the --to kubelet computes, after checking --observed against the --from hash',
    loadCommandsControllers,
  ),
  entry(
    'identify',
    'which kubelet releases (and settings) would have stored --hash for the container (exit 1 if none)',
    loadCommandsControllers,
  ),
  entry('explain', 'why two releases hash a container differently, at field level', loadCommandsControllers),
  entry(
    'predict',
    'what an edit from OLD to NEW does to running pods, and who decides (exit 1 restart/replace/delete, 2 refused)',
    loadCommandsPredict,
  ),
  entry(
    'plan',
    "plan a kubelet upgrade: join the node's API pods with its runtime records, verify and translate each hash",
    loadCommandsPlan,
  ),
  entry(
    'verify',
    'check that every container on the node has a record whose hash the kubelet computes and keeps',
    loadCommandsPlan,
  ),
  entry(
    'apply',
    "apply a plan: rewrite the stored hashes in the stopped runtime's records (one transaction for containerd), with a rollback point",
    loadCommandsUpgrade,
  ),
  entry(
    'rollback',
    'put back the records apply rewrote for a plan, and nothing else (the runtime must be stopped)',
    loadCommandsUpgrade,
  ),
  entry(
    'upgrade-node',
    "upgrade this node's kubelet in place: plan, gate, stop, apply, swap, start, verify, with recovery and a journal on the host",
    loadCommandsUpgradeNode,
  ),
  entry(
    'doctor',
    'say what this node runs (runtime, its root, kubelet release) and what plan/apply would do; read-only',
    loadCommandsDoctor,
  ),
  entry(
    'hold',
    'keep a node Ready while its kubelet is down: renew its Lease (or Ready heartbeat) as the node until the target kubelet renews, or a deadline (exit 1)',
    loadCommandsHold,
  ),
  entry(
    'hold-audit',
    'snapshot a node and its pods (--out), or compare them with a snapshot from before the window (--after; exit 1 on any difference)',
    loadCommandsHold,
  ),
  entry(
    'fleet',
    'fleet manifests: the Jobs/RBAC (or a system-upgrade-controller Plan) that run the agent per node; fleet report: go/no-go over node plans',
    loadCommandsFleet,
  ),
];
