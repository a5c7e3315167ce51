/**
 * `predict`: what an edit from an old to a new manifest (Pods, workloads, Lists of them) does to the
 * running pods, answered by whoever applies it (the apiserver's Pod rules, the workload's
 * controller, OpenKruise, then the kubelet per container), through the library's `predictRollout`.
 */
import { z } from 'zod';
import { predictRollout, type KruiseReadiness, type RolloutPrediction } from '../workloads/index.js';
import { locateContainers } from '../pod/locate.js';
import { UsageError, flag, str, type CommandContext, type CommandDef } from './command.js';
import { GATES, checkGatesFor, featureGates } from './feature-gates.js';
import { KUBELET_VERSION } from './shared-options.js';
import { readObjects, within } from './inputs.js';
import type { ManifestObject } from '../manifests/index.js';
import { table } from './table.js';
import { ApiServer, readKubeconfig, type DryRunAnswer } from '../fleet/index.js';

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

const ACTIONS = [
  'restart',
  'keep',
  'start',
  'remove',
  'deferred',
  'stays-stopped',
  'kill',
  'replaced',
  'refused',
  'unchanged',
  'on-delete',
  'future-pods',
  'held',
  'delete',
  'unpredictable',
] as const;

/** `--openkruise-gates A=true,B=false`, read like --feature-gates (the library checks names and values). */
function kruiseGates(ctx: CommandContext): Record<string, string> | undefined {
  const text = str(ctx.values, 'openkruise-gates');
  if (text === undefined) return undefined;
  if (str(ctx.values, 'openkruise') === undefined)
    throw new UsageError('--openkruise-gates needs --openkruise VERSION');
  const gates: Record<string, string> = {};
  for (const part of text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]+)=(.*)$/.exec(part);
    if (!m?.[1] || m[2] === undefined) {
      throw new UsageError(
        `--openkruise-gates expects Name=BOOL pairs separated by commas, got ${JSON.stringify(part)}`,
      );
    }
    gates[m[1]] = m[2].trim();
  }
  return gates;
}

/** A `predict` row: one container of an object, and who decides what happens to it. */
const predictRow = z.looseObject({
  object: z.string().describe('Kind/namespace/name of the new object'),
  container: z.string(),
  list: z.string(),
  role: z.string().nullable().describe('the kubelet role (null where the pod is not patched in place)'),
  action: z.enum(ACTIONS).describe('the kubelet action, or the pod-level verdict where no kubelet decides'),
  decidedBy: z.enum(['apiserver', 'controller', 'kubelet']).describe('who decides this row'),
  verdict: z
    .enum([
      'refused',
      'replaced',
      'in-place',
      'unchanged',
      'on-delete',
      'future-pods',
      'held',
      'delete',
      'unpredictable',
    ])
    .describe('what happens to the pod(s) of the object'),
  pods: z.string().describe('which pods, for people: `every pod`, `ordinals 2–4 (partition 2)`, `none`'),
  deletedPods: z
    .array(z.string())
    .describe('a `delete` verdict: the pods removed, by name, where the objects say which (else empty)'),
  field: z.string().nullable().describe('a refusal: the first refused change, e.g. `spec.containers[0].env`'),
  reportedField: z.string().nullable().describe('a refusal: the field the refusing component names (`spec`)'),
  rolloutRuleId: z.string().nullable().describe('the ROLLOUT_RULES row that decided the object'),
  rolloutRuleSource: z.string().nullable(),
  reason: z.string(),
  ruleId: z
    .string()
    .nullable()
    .describe('the restart-rule row (in place), or the rollout rule; null for a container in one spec only'),
  ruleSource: z.string().nullable(),
  assumptions: z.array(z.string()),
  storedHash: z.string().nullable(),
  expectedHash: z.string().nullable(),
  changes: z.array(z.string()),
  hashedChanges: z.array(z.string()),
  podRecreated: z.boolean(),
  source: z
    .enum(['model', 'dry-run'])
    .describe(
      "where the row's verdict comes from: the library's model, or the apiserver's answer to a dry run (--kubeconfig)",
    ),
  apiserver: z
    .object({
      request: z.enum(['update', 'resize', 'ephemeralcontainers']),
      sent: z.string().describe('the dry-run request: `PATCH /api/v1/namespaces/ns/pods/web/resize`'),
      status: z.number().int().describe('its HTTP status'),
      admitted: z.boolean(),
      reason: z.string().describe('a refusal: the Status reason (`Invalid`)'),
      message: z.string().describe("a refusal: the apiserver's message"),
      causes: z
        .array(z.object({ field: z.string(), reason: z.string(), message: z.string() }))
        .describe("a refusal: the apiserver's field causes, in its order"),
    })
    .nullable()
    .describe('--kubeconfig: what the apiserver answered to a server-side dry run of the edit (null offline)'),
  disagreement: z
    .string()
    .nullable()
    .describe('--kubeconfig: how the model and the apiserver disagree (verdict, or the refused field), else null'),
  kruiseReady: z
    .enum(['hash', 'image-id', 'not-waited'])
    .nullable()
    .describe(
      "OpenKruise in place (v1.8, v1.9): how its readiness check will see this restarted container — hash (a hash it computes matches the one the node's kubelet stores: updated once it runs), image-id (no match, the image changed: updated only when the running image ID changes, so a tag moved to the same digest never reads as updated, openkruise/kruise#2297), not-waited (no match, image unchanged, e.g. a resize restart: not waited for); null otherwise",
    ),
});

type PredictRow = z.infer<typeof predictRow>;

/** One row per container: the kubelet's verdict when the pod is patched in place, else the pod-level verdict. */
function rowsOf(id: string, doc: unknown, r: RolloutPrediction): PredictRow[] {
  const common = {
    object: id,
    decidedBy: r.decidedBy,
    verdict: r.verdict,
    pods: r.pods,
    deletedPods: r.podNames ?? [],
    field: r.field ?? null,
    reportedField: r.reportedField ?? null,
    rolloutRuleId: r.ruleId,
    rolloutRuleSource: r.ruleSource,
    source: 'model' as const,
    apiserver: null,
    disagreement: null,
  };
  const k = r.kubelet;
  if (!k) {
    // An in-place verdict always carries the kubelet's: without it, the pod-level verdict is the row's action.
    const { verdict } = r;
    if (verdict === 'in-place') throw new Error('predictRollout answered in-place without the kubelet verdicts');
    return locateContainers(doc).map((c) => ({
      ...common,
      container: c.name,
      list: c.list,
      role: null,
      action: verdict,
      reason: r.reason,
      ruleId: r.ruleId,
      ruleSource: r.ruleSource,
      assumptions: [],
      storedHash: null,
      expectedHash: null,
      changes: r.changes,
      hashedChanges: [],
      podRecreated: r.verdict === 'replaced' || r.verdict === 'delete',
      kruiseReady: null,
    }));
  }
  const byController = new Map(r.controllerRestarts.map((c) => [c.name, c.reason]));
  const ready = new Map((r.kruiseReadiness ?? []).map((x) => [x.name, x]));
  return k.containers.map((c) => {
    const controller = byController.get(c.name);
    const recreated = k.podRecreated && c.action === 'keep';
    return {
      ...common,
      decidedBy: controller !== undefined ? 'controller' : 'kubelet',
      container: c.name,
      list: c.list,
      role: c.role,
      action: controller !== undefined || recreated ? 'restart' : c.action,
      reason: controller ?? (recreated ? (k.podReason ?? c.reason) : c.reason),
      ruleId: c.ruleId ?? null,
      ruleSource: c.ruleSource ?? null,
      assumptions: c.assumptions,
      storedHash: c.storedHash ?? null,
      expectedHash: c.expectedHash ?? null,
      changes: c.changes,
      hashedChanges: c.hashedChanges,
      podRecreated: k.podRecreated,
      kruiseReady: kruiseReadyColumn(ready.get(c.name)),
    };
  });
}

/**
 * The apiserver's dry-run answer laid over the model's rows. A refusal is the apiserver's verdict
 * (source dry-run); an admission keeps the model's rows (the kubelet or controller decides next).
 * They disagree when one refuses and the other admits, or both refuse at different fields.
 */
function judged(
  rows: PredictRow[],
  r: RolloutPrediction,
  a: DryRunAnswer,
): { rows: PredictRow[]; disagreement: string | null } {
  const modelRefuses = r.verdict === 'refused' && r.decidedBy === 'apiserver';
  const field = a.causes[0]?.field ?? '';
  let disagreement: string | null = null;
  if (!a.admitted && !modelRefuses)
    disagreement = `the apiserver refuses it at ${JSON.stringify(field)} (${a.message}); the model predicts ${r.verdict}`;
  else if (a.admitted && modelRefuses)
    disagreement = `the apiserver admits it; the model refuses it at ${JSON.stringify(r.reportedField ?? '')} (${r.reason})`;
  else if (!a.admitted && (r.reportedField ?? '') !== field)
    disagreement = `both refuse it, the apiserver at ${JSON.stringify(field)}, the model at ${JSON.stringify(r.reportedField ?? '')}`;
  const apiserver = { ...a, causes: a.causes.map((c) => ({ ...c })) };
  const decided = (row: PredictRow, verdict: 'refused' | 'unpredictable', reason: string): PredictRow => ({
    ...row,
    verdict,
    action: verdict,
    decidedBy: 'apiserver',
    source: 'dry-run',
    role: null,
    reason,
    ruleId: modelRefuses ? r.ruleId : null,
    ruleSource: modelRefuses ? r.ruleSource : null,
    rolloutRuleId: modelRefuses ? r.ruleId : null,
    rolloutRuleSource: modelRefuses ? r.ruleSource : null,
    assumptions: [],
    storedHash: null,
    expectedHash: null,
    hashedChanges: [],
    podRecreated: false,
    kruiseReady: null,
    deletedPods: [],
    pods: 'none',
  });
  return {
    disagreement,
    rows: rows.map((row) => {
      const withAnswer = { ...row, apiserver, disagreement };
      if (!a.admitted)
        return {
          ...decided(
            withAnswer,
            'refused',
            `the apiserver refuses the edit (dry run, HTTP ${a.status} ${a.reason}): ${a.message}`,
          ),
          field: modelRefuses ? (r.field ?? field) : field,
          reportedField: field,
        };
      if (modelRefuses)
        return decided(
          withAnswer,
          'unpredictable',
          `the apiserver admits the edit (dry run) that the model refuses: what follows is not predicted`,
        );
      return withAnswer;
    }),
  };
}

const predict: CommandDef = {
  name: 'predict',
  summary:
    'what an edit from OLD to NEW does to running pods, and who decides (exit 1 restart/replace/delete, 2 refused)',
  description:
    "Compares OLD and NEW (Pods, workloads with a pod template, or Lists of them; objects are paired by kind, namespace and name) and answers for whoever applies the change. A Pod edit goes through the apiserver's update rules of --kubelet's release first: one it refuses (an env change, an added container) is `refused` with its field, exit 2; one it admits is decided by the kubelet per container (restart, keep, start, remove, deferred, stays-stopped), with the restart rule and why. A Deployment, StatefulSet (partition, OnDelete), DaemonSet, ReplicaSet, ReplicationController, Job or CronJob edit is decided by its controller: pods `replaced` (exit 1), `on-delete`, `future-pods`, `held`, `unchanged`, or `refused` by the apiserver (a Job's template, a selector). An edit that removes running pods outright is `delete` (exit 1), naming the pods where the objects say which: a Pod's activeDeadlineSeconds set or lowered to at most its age (the kubelet kills it; the age is now − OLD's status.startTime, and without a startTime the pod is taken to be that old), a Job suspended, its parallelism lowered or its activeDeadlineSeconds past, replicas lowered (a StatefulSet's highest ordinals by name), a CloneSet's scaleStrategy.podsToDelete. An OpenKruise CloneSet, Advanced StatefulSet or DaemonSet (--openkruise VERSION) is recreated, refused (InPlaceOnly), or patched in place and then decided by the kubelet. An object without a kind is taken as a pod patched in place. NEW is the whole object after the edit, as the apiserver would store it (a field missing from NEW is a removal), and both sides are compared as given, without apiserver defaulting. The running containers are taken to have been created by this kubelet from OLD; with --status the states come from OLD's status, otherwise they are assumed running and listed as assumptions. With --kubeconfig each edit is also sent to that cluster's apiserver as a server-side dry run (nothing is stored): its refusal is the verdict (`decidedBy: apiserver`, `source: dry-run`, with its message and field causes), an admission leaves the model's rows, and where the model and the apiserver disagree (one refuses, or both at different fields) the row says how and the exit is 2.",
  options: {
    kubelet: { ...KUBELET_VERSION, required: true, description: `${KUBELET_VERSION.description} (required)` },
    'feature-gates': GATES,
    openkruise: {
      type: 'string',
      value: 'VERSION',
      description: 'the OpenKruise release (v1.0 – v1.9) running apps.kruise.io workloads (required for them)',
    },
    'openkruise-gates': {
      type: 'string',
      value: 'G=BOOL,…',
      description: "kruise-manager's --feature-gates (InPlaceUpdateEnvFromMetadata, InPlaceWorkloadVerticalScaling)",
    },
    'static-pod': {
      type: 'boolean',
      description: 'the pod is a static pod (manifest edits without metadata.uid recreate the whole pod)',
    },
    now: {
      type: 'string',
      value: 'TIME',
      description:
        'the time the edit is applied (RFC 3339), to weigh an active deadline against status.startTime (default: now)',
    },
    status: {
      type: 'boolean',
      description: "read the running containers' states from OLD's status (kubectl get pod -o yaml)",
    },
    kubeconfig: {
      type: 'string',
      value: 'FILE',
      description:
        "ask the apiserver too: each edit is sent as a server-side dry run (a JSON merge patch from OLD to NEW, ?dryRun=All; a Pod's resources alone through its resize subresource, its ephemeral containers alone through ephemeralcontainers, where served); its refusal is the verdict (source dry-run), and a disagreement with the model exits 2",
    },
    context: {
      type: 'string',
      value: 'NAME',
      description: "the kubeconfig's context to use (default: its current-context)",
    },
  },
  operands: [
    { name: 'OLD', description: 'the manifest(s) as running now; - for standard input', count: 'one' },
    { name: 'NEW', description: 'the manifest(s) after the edit; - for standard input', count: 'one' },
  ],
  examples: [
    {
      comment: 'does this image bump restart anything on 1.31 nodes?',
      command: 'kubectl get pod web-0 -o yaml | kubelet-hash predict --kubelet 1.31 - web-0-patched.yaml',
    },
    {
      comment: 'ask the cluster as well: a dry run of the edit, compared with the model',
      command:
        'kubectl get pod web-0 -o yaml > old.yaml && kubelet-hash predict -k 1.33 --kubeconfig ~/.kube/config old.yaml new.yaml',
    },
    {
      comment: 'an OpenKruise CloneSet with InPlaceIfPossible: in place or recreated?',
      command: 'kubelet-hash predict -k 1.31 --openkruise v1.8 cloneset.yaml cloneset-new.yaml',
    },
  ],
  finding:
    'a running container restarts or a pod is replaced or deleted (exit 1); an edit is refused or its controller unknown (exit 2)',
  output: {
    row: predictRow,
    summary: z.object({
      release: z.string(),
      openKruise: z.string().nullable(),
      objects: z.number().int(),
      restarts: z.number().int().describe('running containers restarted in place (kubelet or OpenKruise)'),
      replaced: z.number().int().describe('objects whose pods are replaced'),
      deleted: z.number().int().describe('objects whose edit deletes running pods outright'),
      refused: z.number().int().describe('objects whose edit is refused or not predictable'),
      apiserver: z.string().nullable().describe('--kubeconfig: the version of the apiserver that judged the dry runs'),
      disagreements: z.number().int().describe('--kubeconfig: objects on which the model and the apiserver disagree'),
    }),
  },
  async run(ctx: CommandContext) {
    const kubelet = str(ctx.values, 'kubelet', true);
    const gates = featureGates(ctx);
    checkGatesFor(kubelet, gates);
    const kruiseVersion = str(ctx.values, 'openkruise');
    const kgates = kruiseGates(ctx);
    const now = str(ctx.values, 'now');
    const [oldFile, newFile] = ctx.operands;
    // The dispatcher has checked there is one of each.
    if (oldFile === undefined || newFile === undefined) throw new UsageError('predict: give OLD and NEW');
    const matched = pairs(await readObjects(ctx, [oldFile]), await readObjects(ctx, [newFile]));
    const kubeconfig = str(ctx.values, 'kubeconfig');
    if (kubeconfig === undefined && str(ctx.values, 'context') !== undefined)
      throw new UsageError('--context needs --kubeconfig FILE');
    if (kubeconfig !== undefined && flag(ctx.values, 'static-pod'))
      throw new UsageError("--kubeconfig and --static-pod: a static pod's manifest does not go through the apiserver");
    const cluster = kubeconfig === undefined ? undefined : readKubeconfig(kubeconfig, str(ctx.values, 'context'));
    const server = cluster === undefined ? undefined : await ApiServer.connect(cluster.access);
    let disagreements = 0;
    const disagreementLines: string[] = [];
    const rows: PredictRow[] = [];
    let restarts = 0;
    let replaced = 0;
    let refused = 0;
    let deleted = 0;
    const deletedPods: string[] = [];
    let release = '';
    let exitCode: 0 | 1 | 2 = 0;
    for (const p of matched) {
      const status = flag(ctx.values, 'status') ? p.old.object.value['status'] : undefined;
      const r = within(p.new.file, p.new.object, [], () =>
        predictRollout(p.old.object.value, p.new.object.value, {
          kubeletVersion: kubelet,
          ...(gates ? { featureGates: gates } : {}),
          ...(flag(ctx.values, 'static-pod') ? { staticPod: true } : {}),
          ...(status !== undefined ? { podStatus: status } : {}),
          ...(now !== undefined ? { now } : {}),
          ...(kruiseVersion !== undefined
            ? { openKruise: { version: kruiseVersion, ...(kgates ? { featureGates: kgates } : {}) } }
            : {}),
        }),
      );
      release = r.release;
      restarts += r.restarts;
      if (r.verdict === 'replaced') replaced++;
      if (r.verdict === 'delete') {
        deleted++;
        deletedPods.push(...(r.podNames ?? []));
      }
      let objectRows = rowsOf(p.id, p.new.object.value, r);
      let objectExit = r.exitCode;
      if (server) {
        const answer = await server.dryRun(p.old.object.value, p.new.object.value, cluster?.namespace);
        const j = judged(objectRows, r, answer);
        objectRows = j.rows;
        if (!answer.admitted) objectExit = 2;
        if (j.disagreement !== null) {
          disagreements++;
          objectExit = 2;
          disagreementLines.push(`# DISAGREEMENT ${p.id}: ${j.disagreement}\n`);
        }
      }
      if (objectExit === 2) refused++;
      if (objectExit > exitCode) exitCode = objectExit;
      rows.push(...objectRows);
    }
    const text =
      // The source column only when the apiserver was asked (offline every row is the model's).
      (server
        ? table(
            ['action', 'by', 'source', 'object', 'container', 'rule', 'reason'],
            rows.map((r) => [r.action, r.decidedBy, r.source, r.object, r.container, r.ruleId, r.reason]),
          )
        : table(
            ['action', 'by', 'object', 'container', 'rule', 'reason'],
            rows.map((r) => [r.action, r.decidedBy, r.object, r.container, r.ruleId, r.reason]),
          )) +
      (server
        ? `# apiserver ${server.version} (dry run): ${disagreements} of ${matched.length} objects judged otherwise than the model\n`
        : '') +
      disagreementLines.join('') +
      `# kubelet ${release}: ${restarts} of ${rows.length} containers restart in place; ${replaced} of ${matched.length} objects replace their pods; ${deleted} delete running pods${deletedPods.length > 0 ? ` (${deletedPods.join(', ')})` : ''}; ${refused} refused or not predictable\n`;
    return {
      exitCode,
      rows,
      summary: {
        release,
        openKruise: kruiseVersion ?? null,
        objects: matched.length,
        restarts,
        replaced,
        deleted,
        refused,
        apiserver: server?.version ?? null,
        disagreements,
      },
      text,
    };
  },
};

export const PREDICT_COMMANDS: CommandDef[] = [predict];

/** The kruiseReady column: which of Kruise's readiness paths this restarted container takes. */
function kruiseReadyColumn(r: KruiseReadiness | undefined): 'hash' | 'image-id' | 'not-waited' | null {
  if (r === undefined) return null;
  if (r.hashMatches) return 'hash';
  return r.imageChanged ? 'image-id' : 'not-waited';
}
