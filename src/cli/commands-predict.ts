/**
 * `predict`: the controllers' question "which containers does this patch restart?" from an old and
 * a new manifest (Pods, workloads with a pod template, Lists of them), with the kubelet's restart
 * rules per container, through the library's `predictRestarts`.
 */
import { z } from 'zod';
import { predictRestarts } from '../kubelet/index.js';
import { UsageError, flag, str, type CommandContext, type CommandDef } from './command.js';
import { GATES, checkGatesFor, featureGates } from './feature-gates.js';
import { KUBELET_VERSION } from './commands.js';
import { readObjects, within } from './inputs.js';
import type { ManifestObject } from '../pod/read-documents.js';
import { table } from './table.js';

/** `Kind/namespace/name` of an object, or its position when it has no name. */
function identity(o: ManifestObject, index: number): string {
  const meta = o.value['metadata'];
  const m = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
  const kind = typeof o.value['kind'] === 'string' ? o.value['kind'] : '';
  const name = typeof m['name'] === 'string' ? m['name'] : `#${index}`;
  const ns = typeof m['namespace'] === 'string' ? `${m['namespace']}/` : '';
  return `${kind}${kind ? '/' : ''}${ns}${name}`;
}

/** Old and new objects paired by kind, namespace and name (or by position when one side has no names). */
function pairs(
  before: { file: string; object: ManifestObject }[],
  after: { file: string; object: ManifestObject }[],
): { id: string; old: (typeof before)[number]; new: (typeof after)[number] }[] {
  // Nothing to compare is no verdict: an empty NEW would otherwise report 0 of 0 containers, exit 0.
  if (after.length === 0) throw new UsageError('the new manifests hold no objects: nothing to compare');
  const oldById = new Map(before.map((o, i) => [identity(o.object, i), o]));
  const out: { id: string; old: (typeof before)[number]; new: (typeof after)[number] }[] = [];
  after.forEach((n, i) => {
    const id = identity(n.object, i);
    const old = oldById.get(id) ?? (before.length === 1 && after.length === 1 ? before[0] : undefined);
    if (!old) {
      throw new UsageError(
        `${n.file}: ${id} has no counterpart in the old manifests (they hold ${[...oldById.keys()].slice(0, 5).join(', ') || 'nothing'})`,
      );
    }
    out.push({ id, old, new: n });
  });
  return out;
}

const predict: CommandDef = {
  name: 'predict',
  summary: 'which containers a kubelet restarts when a pod is patched from OLD to NEW (exit 1 if any)',
  description:
    "Compares the containers of OLD and NEW (Pods, pod specs, workloads with a pod template, or Lists of them; objects are paired by kind, namespace and name) as the kubelet of --kubelet does for an in-place update (the pod object patched, not recreated; OpenKruise style): per container restart, keep, start, remove, deferred or stays-stopped, with the restart rule that decided and why. The running containers are taken to have been created by this kubelet from OLD; with --status the states come from OLD's status (not running, startup probe, resources), otherwise they are assumed running and listed as assumptions.",
  options: {
    kubelet: { ...KUBELET_VERSION, required: true, description: `${KUBELET_VERSION.description} (required)` },
    'feature-gates': GATES,
    'static-pod': {
      type: 'boolean',
      description: 'the pod is a static pod (manifest edits without metadata.uid recreate the whole pod)',
    },
    status: {
      type: 'boolean',
      description: "read the running containers' states from OLD's status (kubectl get pod -o yaml)",
    },
  },
  operands: [
    { name: 'OLD', description: 'the manifest(s) as running now; - for standard input', count: 'one' },
    { name: 'NEW', description: 'the manifest(s) after the patch; - for standard input', count: 'one' },
  ],
  examples: [
    {
      comment: 'does this image bump restart anything on 1.31 nodes?',
      command: 'kubectl get pod web-0 -o yaml | kubelet-hash predict --kubelet 1.31 - web-0-patched.yaml',
    },
  ],
  finding: 'the kubelet would restart (or the pod is recreated with) at least one running container',
  output: {
    row: z.looseObject({
      object: z.string().describe('Kind/namespace/name of the new object'),
      container: z.string(),
      list: z.string(),
      role: z.string(),
      action: z.enum(['restart', 'keep', 'start', 'remove', 'deferred', 'stays-stopped']),
      reason: z.string(),
      ruleId: z
        .string()
        .nullable()
        .describe('the restart-rule row that decided (null for a container in one spec only)'),
      ruleSource: z.string().nullable(),
      assumptions: z.array(z.string()),
      storedHash: z.string().nullable(),
      expectedHash: z.string().nullable(),
      changes: z.array(z.string()),
      hashedChanges: z.array(z.string()),
      podRecreated: z.boolean(),
    }),
    summary: z.object({
      release: z.string(),
      objects: z.number().int(),
      restarts: z.number().int().describe('running containers the kubelet kills and recreates'),
    }),
  },
  async run(ctx: CommandContext) {
    const kubelet = str(ctx.values, 'kubelet', true);
    const gates = featureGates(ctx);
    checkGatesFor(kubelet, gates);
    const [oldFile, newFile] = ctx.operands as [string, string];
    const matched = pairs(await readObjects(ctx, [oldFile]), await readObjects(ctx, [newFile]));
    const rows: Record<string, unknown>[] = [];
    let restarts = 0;
    let release = '';
    for (const p of matched) {
      const status = flag(ctx.values, 'status') ? p.old.object.value['status'] : undefined;
      const r = within(p.new.file, p.new.object, [], () =>
        predictRestarts(p.old.object.value, p.new.object.value, {
          kubeletVersion: kubelet,
          ...(gates ? { featureGates: gates } : {}),
          ...(flag(ctx.values, 'static-pod') ? { staticPod: true } : {}),
          ...(status !== undefined ? { podStatus: status } : {}),
        }),
      );
      release = r.release;
      restarts += r.restarts;
      for (const c of r.containers) {
        rows.push({
          object: p.id,
          container: c.name,
          list: c.list,
          role: c.role,
          action: r.podRecreated && c.action === 'keep' ? 'restart' : c.action,
          reason: r.podRecreated && c.action === 'keep' ? (r.podReason ?? c.reason) : c.reason,
          ruleId: c.ruleId ?? null,
          ruleSource: c.ruleSource ?? null,
          assumptions: c.assumptions,
          storedHash: c.storedHash ?? null,
          expectedHash: c.expectedHash ?? null,
          changes: c.changes,
          hashedChanges: c.hashedChanges,
          podRecreated: r.podRecreated,
        });
      }
    }
    const text =
      table(
        ['action', 'object', 'container', 'rule', 'reason'],
        rows.map((r) => [
          r['action'] as string,
          r['object'] as string,
          r['container'] as string,
          r['ruleId'] as string | null,
          r['reason'] as string,
        ]),
      ) + `# kubelet ${release}: ${restarts} of ${rows.length} containers restart\n`;
    return { exitCode: restarts > 0 ? 1 : 0, rows, summary: { release, objects: matched.length, restarts }, text };
  },
};

export const PREDICT_COMMANDS: CommandDef[] = [predict];
