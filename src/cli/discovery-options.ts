/**
 * The CLI side of node discovery (src/discovery): `--runtime-endpoint` instead of a runtime root,
 * `--kubelet-binary` / `--node-object` instead of a typed `--from`. Kept apart from the commands so
 * that plan/verify/apply only call in here.
 */
import {
  checkPlannedRoot,
  discoverRuntime,
  listCriContainers,
  requireRuntimeRoot,
  versionOfKubeletBinary,
  versionOfNodeObject,
  type RuntimeDiscovery,
} from '../discovery/index.js';
import {
  checkRuntimeAgreement,
  withRuntimeState,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../node-upgrade/index.js';
import { StoreError } from '../errors.js';
import { UsageError, str, type CommandContext, type OptionDef, type Values } from './command.js';
import { readObjects } from './inputs.js';

export const ENDPOINT_OPTIONS: Record<string, OptionDef> = {
  'runtime-endpoint': {
    type: 'string',
    value: 'ENDPOINT',
    description:
      "the kubelet's --container-runtime-endpoint (containerRuntimeEndpoint): find the runtime and its root from it (containerd, k3s, rke2, k0s, CRI-O, cri-dockerd) instead of giving the root",
  },
  'runtime-config': {
    type: 'string',
    value: 'FILE',
    goesWith: ['runtime-endpoint'],
    description:
      "with --runtime-endpoint: the runtime's config file, when not where its layout or its --config flag say",
  },
};

export const KUBELET_SOURCE_OPTIONS: Record<string, OptionDef> = {
  'kubelet-binary': {
    type: 'string',
    value: 'PATH',
    description: 'read the running kubelet release from `PATH --version` (instead of --from / --kubelet)',
  },
  'node-object': {
    type: 'string',
    value: 'FILE',
    description: 'read it from a Node object (kubectl get node NAME -o yaml): status.nodeInfo.kubeletVersion',
  },
};

/** The runtime behind --runtime-endpoint, or undefined when it is not given. */
function discoveredRuntime(values: Values, fsRoot?: string): RuntimeDiscovery | undefined {
  const endpoint = str(values, 'runtime-endpoint');
  if (endpoint === undefined) return undefined;
  const config = str(values, 'runtime-config');
  return discoverRuntime({ endpoint, ...(config !== undefined ? { config } : {}), ...(fsRoot ? { fsRoot } : {}) });
}

/** A store spec for a discovered runtime. */
export function storeSpecOfDiscovery(d: RuntimeDiscovery): StoreSpec {
  switch (d.runtime) {
    case 'containerd':
      return { runtime: 'containerd', root: d.rootOnDisk, namespace: d.namespace };
    case 'cri-o':
      return { runtime: 'cri-o', graphRoot: d.rootOnDisk, ...(d.runRoot ? { runRoot: d.runRoot.onDisk } : {}) };
    case 'docker':
      return { runtime: 'docker', root: d.rootOnDisk };
  }
}

/** The store of --runtime-endpoint, refusing it alongside an explicit root. */
export function endpointStoreSpec(ctx: CommandContext): StoreSpec | undefined {
  if (str(ctx.values, 'runtime-endpoint') === undefined) return undefined;
  const roots = ['containerd-root', 'crio-root', 'docker-root'].filter((k) => str(ctx.values, k) !== undefined);
  if (roots.length > 0 || ctx.operands.length > 0)
    throw new UsageError(
      `give --runtime-endpoint or ${roots.length > 0 ? `--${roots[0]!}` : 'record files'}, not both`,
    );
  const d = discoveredRuntime(ctx.values)!;
  requireRuntimeRoot(d);
  ctx.warn(`runtime found from ${str(ctx.values, 'runtime-endpoint')!}: ${d.layout}, root ${d.root} (${d.rootFrom})`);
  return storeSpecOfDiscovery(d);
}

/**
 * verify with --runtime-endpoint: the runtime must serve over CRI exactly the records verify
 * checked (CRI_DISAGREES), and must answer (CRI_UNREACHABLE: a stopped runtime is not silently
 * verified from its files; give the root instead of the endpoint for that).
 */
export async function checkServedContainers(ctx: CommandContext, plan: NodeUpgradePlan): Promise<NodeUpgradePlan> {
  const d = discoveredRuntime(ctx.values);
  if (!d) return plan;
  const listing = await listCriContainers(d.socket, undefined, { sandboxes: true });
  checkRuntimeAgreement(plan.entries, listing, d.socket);
  ctx.warn(`the runtime serves over CRI ${listing.version} the ${listing.containers.length} containers of its store`);
  // What the runtime says runs counts: a container it reports not running is never kept.
  return withRuntimeState(plan, listing);
}

/**
 * plan with --runtime-endpoint: the runtime's container and sandbox states, when it answers (a
 * container it reports not running is never kept); a runtime that does not answer is said in a warning.
 */
export async function withServedState(ctx: CommandContext, plan: NodeUpgradePlan): Promise<NodeUpgradePlan> {
  const d = discoveredRuntime(ctx.values);
  if (!d) return plan;
  try {
    return withRuntimeState(plan, await listCriContainers(d.socket, undefined, { sandboxes: true }));
  } catch (e) {
    if (!(e instanceof StoreError) || e.code !== 'CRI_UNREACHABLE') throw e;
    ctx.warn(`the runtime does not answer over CRI (${e.detail ?? e.message}): container states not checked`);
    return plan;
  }
}

/** The kubelet release: the typed option, else --kubelet-binary, else --node-object. */
export async function kubeletVersionOf(ctx: CommandContext, typed: string): Promise<string> {
  const given = str(ctx.values, typed);
  const binary = str(ctx.values, 'kubelet-binary');
  const nodeFile = str(ctx.values, 'node-object');
  const sources = [given, binary, nodeFile].filter((s) => s !== undefined);
  if (sources.length > 1) throw new UsageError(`give one of --${typed}, --kubelet-binary, --node-object`);
  if (given !== undefined) return given;
  if (binary !== undefined) return versionOfKubeletBinary(binary);
  if (nodeFile !== undefined) {
    const objects = await readObjects(ctx, [nodeFile]);
    if (objects.length !== 1)
      throw new UsageError(`--node-object: ${nodeFile} holds ${objects.length} objects; give one Node`);
    return versionOfNodeObject(objects[0]!.object.value);
  }
  throw new UsageError(`--${typed} is required (or --kubelet-binary / --node-object)`);
}

/** apply with --runtime-endpoint: the plan must name the root that runtime uses (`store.root` or `store.graphRoot`). */
export function checkPlanRoot(values: Values, planned: { root: string; key: string } | undefined): void {
  const d = discoveredRuntime(values);
  if (d && planned) checkPlannedRoot(d, planned.root, ['store', planned.key]);
}
