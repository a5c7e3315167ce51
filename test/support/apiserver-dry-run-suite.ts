/**
 * The apiserver itself judges `predict --kubeconfig`: etcd and a real kube-apiserver of one release
 * (support/cluster.ts, no controller and no kubelet), a pod per edit of the
 * validation classes of issue 39 (values, server-set metadata, the mirror annotation, ephemeral
 * containers, scheduling gates, resize, QoS), and one run of the built CLI inside the cluster's
 * network namespace with every edit: each is sent as a server-side dry run and predicted by the
 * model; the test asserts they agree on every edit (verdict, and the field the apiserver names
 * first), that the apiserver both refused and admitted several, and prints the table.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inNetns } from './child-process.js';
import { Cluster, type ClusterComponents } from './cluster.js';
import { describeReal, type FoundSystem, type SystemNeeds } from './real-systems.js';

type Json = Record<string, unknown>;
const BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const IMAGE = 'kubelet-hash.local/busybox:1';
const ROOM = { cpu: '8', memory: '16Gi', pods: '110' };
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** A pod to create, and the edit to judge on it. */
interface DryRunCase {
  /** The validation class of issue 39 it stands for. */
  class: string;
  /** The first and last minor it applies to (a field the release does not have is not judged). */
  from?: number;
  to?: number;
  /** The pod's spec as created (the name, namespace and node are added); metadata extras in `meta`. */
  spec: Json;
  meta?: Json;
  /** A status written after the pod is created (what a kubelet would report). */
  status?: Json;
  edit: (pod: Json) => void;
}

const c0 = (p: Json): Json => ((p.spec as Json).containers as Json[])[0]!;
const spec = (p: Json): Json => p.spec as Json;
const annotations = (p: Json): Json => ((p.metadata as Json).annotations ??= {}) as Json;
const main = (extra: Json = {}): Json => ({ name: 'main', image: IMAGE, command: ['/bin/sleep', '3600'], ...extra });
const plain = (extra: Json = {}): Json => ({ terminationGracePeriodSeconds: 1, containers: [main()], ...extra });
const burstable = (extra: Json = {}): Json =>
  plain({
    containers: [
      main({ resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '20m', memory: '32Mi' } } }),
    ],
    ...extra,
  });
const BURSTABLE = { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '20m', memory: '32Mi' } };
/** cpu NotRequired; memory as given. */
const resizePolicy = (memory: string): Json[] => [
  { resourceName: 'cpu', restartPolicy: 'NotRequired' },
  { resourceName: 'memory', restartPolicy: memory },
];
const sidecar = (extra: Json = {}): Json => ({
  name: 'side',
  image: IMAGE,
  command: ['/bin/sleep', '3600'],
  restartPolicy: 'Always',
  resources: BURSTABLE,
  ...extra,
});
const IN_A = { key: 'kh.io/a', operator: 'In', values: ['1'] };
const IN_B = { key: 'kh.io/b', operator: 'In', values: ['2'] };
/** A required node affinity of these terms (each a list of match expressions). */
const requiredAffinity = (terms: Json[][]): Json => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })),
    },
  },
});
const gated = (extra: Json = {}): Json => ({ ...plain(extra), schedulingGates: [{ name: 'kh.io/gate' }] });
const MIRROR = { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' };
const ephemeral = { name: 'debug', image: IMAGE, command: ['/bin/sh'], targetContainerName: 'main' };

/** The table: one edit per class (and a few admitted ones beside, so both answers are judged). */
const DRY_RUN_CASES: Record<string, DryRunCase> = {
  'adl-zero': {
    class: 'values: activeDeadlineSeconds ≤ 0',
    spec: plain({ activeDeadlineSeconds: 3600 }),
    edit: (p) => (spec(p).activeDeadlineSeconds = 0),
  },
  'adl-negative': {
    class: 'values: activeDeadlineSeconds ≤ 0',
    spec: plain({ activeDeadlineSeconds: 3600 }),
    edit: (p) => (spec(p).activeDeadlineSeconds = -5),
  },
  'adl-set-zero': {
    class: 'values: activeDeadlineSeconds ≤ 0',
    spec: plain(),
    edit: (p) => (spec(p).activeDeadlineSeconds = 0),
  },
  'adl-lowered': {
    class: 'values: activeDeadlineSeconds (admitted)',
    spec: plain({ activeDeadlineSeconds: 3600 }),
    edit: (p) => (spec(p).activeDeadlineSeconds = 60),
  },
  'toleration-effect': {
    class: 'values: toleration effect',
    spec: plain(),
    edit: (p) => (spec(p).tolerations = [{ key: 'kh.io/a', operator: 'Exists', effect: 'Sometimes' }]),
  },
  'toleration-seconds-no-execute': {
    class: 'values: toleration effect',
    spec: plain(),
    edit: (p) =>
      (spec(p).tolerations = [{ key: 'kh.io/a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }]),
  },
  'toleration-added': {
    class: 'values: toleration (admitted)',
    spec: plain(),
    edit: (p) => (spec(p).tolerations = [{ key: 'kh.io/a', operator: 'Exists', effect: 'NoSchedule' }]),
  },
  'deletion-timestamp': {
    class: 'server-set metadata',
    spec: plain(),
    edit: (p) => ((p.metadata as Json).deletionTimestamp = '2026-01-01T00:00:00Z'),
  },
  'deletion-grace': {
    class: 'server-set metadata',
    spec: plain(),
    edit: (p) => ((p.metadata as Json).deletionGracePeriodSeconds = 30),
  },
  'mirror-added': {
    class: 'field path: mirror annotation',
    spec: plain(),
    edit: (p) => (annotations(p)['kubernetes.io/config.mirror'] = 'x'),
  },
  'mirror-removed': {
    class: 'field path: mirror annotation',
    spec: plain(),
    meta: { annotations: MIRROR },
    edit: (p) => delete annotations(p)['kubernetes.io/config.mirror'],
  },
  'ephemeral-added': {
    class: 'field path: ephemeral containers',
    spec: plain(),
    edit: (p) => (spec(p).ephemeralContainers = [ephemeral]),
  },
  'ephemeral-with-image': {
    class: 'field path: ephemeral containers',
    spec: plain(),
    edit: (p) => {
      spec(p).ephemeralContainers = [ephemeral];
      c0(p).image = 'kubelet-hash.local/busybox:2';
    },
  },
  'ephemeral-static': {
    class: 'static pods: ephemeral containers',
    spec: plain(),
    meta: { annotations: MIRROR },
    edit: (p) => (spec(p).ephemeralContainers = [ephemeral]),
  },
  'gate-added': {
    class: 'field path: scheduling gate added',
    from: 27,
    spec: gated(),
    edit: (p) => (spec(p).schedulingGates as Json[]).push({ name: 'kh.io/more' }),
  },
  'gate-removed': {
    class: 'scheduling gates (admitted)',
    from: 27,
    spec: gated(),
    edit: (p) => (spec(p).schedulingGates = []),
  },
  'gate-selector-added': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({ nodeSelector: { 'kh.io/a': '1' } }),
    edit: (p) => ((spec(p).nodeSelector as Json)['kh.io/b'] = '2'),
  },
  'gate-selector-changed': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({ nodeSelector: { 'kh.io/a': '1' } }),
    edit: (p) => ((spec(p).nodeSelector as Json)['kh.io/a'] = '2'),
  },
  'gate-affinity-set': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated(),
    edit: (p) =>
      (spec(p).affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kh.io/a', operator: 'In', values: ['1'] }] }],
          },
        },
      }),
  },
  'gate-affinity-removed': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kh.io/a', operator: 'In', values: ['1'] }] }],
          },
        },
      },
    }),
    edit: (p) => delete spec(p).affinity,
  },
  'gate-pod-affinity': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated(),
    edit: (p) =>
      (spec(p).affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'kh.io/zone', labelSelector: { matchLabels: { a: 'b' } } },
          ],
        },
      }),
  },
  'gate-selector-removed': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({ nodeSelector: { 'kh.io/a': '1' } }),
    edit: (p) => delete spec(p).nodeSelector,
  },
  'gate-affinity-expression-added': {
    class: 'scheduling gates: narrowing (admitted)',
    from: 27,
    spec: gated({ affinity: requiredAffinity([[IN_A]]) }),
    edit: (p) => (spec(p).affinity = requiredAffinity([[IN_A, IN_B]])),
  },
  'gate-affinity-expression-changed': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({ affinity: requiredAffinity([[IN_A]]) }),
    edit: (p) => (spec(p).affinity = requiredAffinity([[IN_B]])),
  },
  'gate-affinity-term-added': {
    class: 'scheduling gates: narrowing',
    from: 27,
    spec: gated({ affinity: requiredAffinity([[IN_A]]) }),
    edit: (p) => (spec(p).affinity = requiredAffinity([[IN_A], [IN_B]])),
  },
  'gate-affinity-preferred-added': {
    class: 'scheduling gates: narrowing (admitted)',
    from: 27,
    spec: gated({ affinity: requiredAffinity([[IN_A]]) }),
    edit: (p) =>
      (((spec(p).affinity as Json).nodeAffinity as Json).preferredDuringSchedulingIgnoredDuringExecution = [
        { weight: 10, preference: { matchExpressions: [IN_B] } },
      ]),
  },
  'resize-cpu': {
    class: 'resize (admitted where resize is on)',
    spec: burstable(),
    edit: (p) => (((c0(p).resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-memory-limit-down': {
    class: 'resize: memory limit decrease',
    spec: burstable(),
    edit: (p) => (((c0(p).resources as Json).limits as Json).memory = '24Mi'),
  },
  'resize-request-removed': {
    class: 'resize: a removed request (its limit stays: defaulted to it)',
    spec: burstable(),
    edit: (p) => delete ((c0(p).resources as Json).requests as Json).memory,
  },
  'resize-request-only-removed': {
    class: 'resize: a removed request',
    spec: plain({ containers: [main({ resources: { requests: { cpu: '10m', memory: '16Mi' } } })] }),
    edit: (p) => delete ((c0(p).resources as Json).requests as Json).memory,
  },
  'resize-limit-removed': {
    class: 'field path: a removed limit',
    spec: burstable(),
    edit: (p) => delete ((c0(p).resources as Json).limits as Json).cpu,
  },
  'resize-limits-added': {
    class: 'resize: limits added to a requests-only container',
    spec: plain({ containers: [main({ resources: { requests: { cpu: '10m', memory: '16Mi' } } })] }),
    edit: (p) => ((c0(p).resources as Json).limits = { cpu: '20m' }),
  },
  'resize-qos': {
    class: 'field path: QoS change',
    spec: burstable(),
    edit: (p) =>
      (c0(p).resources = { requests: { cpu: '20m', memory: '32Mi' }, limits: { cpu: '20m', memory: '32Mi' } }),
  },
  'resize-with-image': {
    class: 'resize: with another change',
    spec: burstable(),
    edit: (p) => {
      ((c0(p).resources as Json).requests as Json).cpu = '15m';
      c0(p).image = 'kubelet-hash.local/busybox:2';
    },
  },
  'resize-sidecar': {
    class: 'resize: sidecar',
    from: 29,
    spec: burstable({
      initContainers: [
        {
          name: 'side',
          image: IMAGE,
          command: ['/bin/sleep', '3600'],
          restartPolicy: 'Always',
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '20m', memory: '32Mi' } },
        },
      ],
    }),
    edit: (p) => ((((spec(p).initContainers as Json[])[0]!.resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-memory-limit-down-restart': {
    class: 'resize: memory limit decrease (admitted with RestartContainer)',
    from: 27,
    spec: burstable({ containers: [main({ resources: BURSTABLE, resizePolicy: resizePolicy('RestartContainer') })] }),
    edit: (p) => (((c0(p).resources as Json).limits as Json).memory = '24Mi'),
  },
  'resize-memory-limit-added': {
    class: 'resize: limits added to a requests-only container',
    spec: plain({ containers: [main({ resources: { requests: { cpu: '10m', memory: '16Mi' } } })] }),
    edit: (p) => ((c0(p).resources as Json).limits = { memory: '32Mi' }),
  },
  'resize-sidecar-memory-down': {
    class: 'resize: sidecar memory limit decrease',
    from: 29,
    spec: burstable({ initContainers: [sidecar()] }),
    edit: (p) => ((((spec(p).initContainers as Json[])[0]!.resources as Json).limits as Json).memory = '24Mi'),
  },
  'resize-sidecar-request-removed': {
    class: 'resize: sidecar, a removed request',
    from: 29,
    spec: burstable({ initContainers: [sidecar({ resources: { requests: { cpu: '10m', memory: '16Mi' } } })] }),
    edit: (p) => delete (((spec(p).initContainers as Json[])[0]!.resources as Json).requests as Json).memory,
  },
  'resize-init-container': {
    class: 'resize: a non-sidecar init container',
    spec: burstable({ initContainers: [{ ...sidecar(), restartPolicy: undefined }] }),
    edit: (p) => ((((spec(p).initContainers as Json[])[0]!.resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-policy-changed': {
    class: 'resize: with a resizePolicy change',
    from: 27,
    spec: burstable({ containers: [main({ resources: BURSTABLE, resizePolicy: resizePolicy('NotRequired') })] }),
    edit: (p) => {
      ((c0(p).resources as Json).requests as Json).cpu = '15m';
      c0(p).resizePolicy = resizePolicy('RestartContainer');
    },
  },
  'resize-windows': {
    class: 'resize: Windows pods',
    from: 25,
    spec: burstable({
      os: { name: 'windows' },
      containers: [
        main({
          command: ['cmd'],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '20m', memory: '32Mi' } },
        }),
      ],
    }),
    edit: (p) => (((c0(p).resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-pod-level': {
    class: 'resize: pod-level resources',
    from: 34,
    spec: burstable({
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '100m', memory: '128Mi' } },
    }),
    edit: (p) => (((c0(p).resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-node-unsupported': {
    class: 'resize: a node that does not support resize',
    from: 32,
    spec: burstable(),
    // The kubelet's status: a running container whose status carries no resources.
    status: {
      containerStatuses: [
        {
          name: 'main',
          ready: true,
          restartCount: 0,
          image: IMAGE,
          imageID: '',
          state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        },
      ],
    },
    edit: (p) => (((c0(p).resources as Json).requests as Json).cpu = '15m'),
  },
  'resize-static': {
    class: 'resize: static pods',
    spec: burstable(),
    meta: { annotations: MIRROR },
    edit: (p) => (((c0(p).resources as Json).requests as Json).cpu = '15m'),
  },
  'env-changed': {
    class: 'immutable spec (refused)',
    spec: plain(),
    edit: (p) => (c0(p).env = [{ name: 'A', value: '1' }]),
  },
  'image-changed': {
    class: 'image (admitted)',
    spec: plain(),
    edit: (p) => (c0(p).image = 'kubelet-hash.local/busybox:2'),
  },
};

/** A workload to create (its controller does not run: only the apiserver judges), and the edit. */
interface WorkloadCase {
  class: string;
  object: Json;
  edit: (o: Json) => void;
}

const template = (labels: Json) => ({
  metadata: { labels },
  spec: { terminationGracePeriodSeconds: 1, containers: [main()] },
});
const tspec = (o: Json): Json => ((o.spec as Json).template as Json).spec as Json;

/** Workload edits the apiserver judges (the controllers' verdicts are judged in cluster-rollout-judge.ts). */
const WORKLOAD_CASES: Record<string, WorkloadCase> = {
  'job-image': {
    class: 'workloads: a Job template is immutable',
    object: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      spec: { template: { spec: { ...tspec({ spec: { template: template({}) } }), restartPolicy: 'Never' } } },
    },
    edit: (o) => ((tspec(o).containers as Json[])[0]!.image = 'kubelet-hash.local/busybox:2'),
  },
  'deploy-image': {
    class: 'workloads: a Deployment template (admitted)',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { selector: { matchLabels: { app: 'd' } }, template: template({ app: 'd' }) },
    },
    edit: (o) => ((tspec(o).containers as Json[])[0]!.image = 'kubelet-hash.local/busybox:2'),
  },
  'deploy-selector': {
    class: 'workloads: an apps/v1 selector is immutable',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { selector: { matchLabels: { app: 'e' } }, template: template({ app: 'e', tier: 'x' }) },
    },
    edit: (o) => (((o.spec as Json).selector as Json).matchLabels = { app: 'e', tier: 'x' }),
  },
  'sts-service': {
    class: 'workloads: StatefulSet fields other than the template',
    object: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      spec: { serviceName: 'a', selector: { matchLabels: { app: 's' } }, template: template({ app: 's' }) },
    },
    edit: (o) => ((o.spec as Json).serviceName = 'b'),
  },
};

/** One row of the CLI's --json output (the fields this judge reads). */
interface Row {
  object: string;
  verdict: string;
  source: string;
  field: string | null;
  reportedField: string | null;
  reason: string;
  disagreement: string | null;
  apiserver: {
    request: string;
    status: number;
    admitted: boolean;
    message: string;
    causes: { field: string }[];
  } | null;
}

/**
 * The suite on one apiserver: `needs` (whose records give the apiserver and etcd: `cluster` 1.20.2,
 * or `kubernetes` X with `kubectl`), the release's components, and the CLI's feature gates
 * matching `apiserverFlags`.
 */
export function apiserverDryRunSuite(
  needs: SystemNeeds,
  components: (systems: ReadonlyMap<string, FoundSystem>) => { cluster: FoundSystem; release: ClusterComponents },
  cliGates?: string,
): void {
  describeReal(
    needs,
    (systems) => {
      let cluster: Cluster | undefined;
      let release = '';
      beforeAll(async () => {
        const c = components(systems);
        release = c.release.release;
        cluster = new Cluster({ cluster: c.cluster }, c.release);
        await cluster.startApiserverOnly();
      }, 600_000);
      afterAll(async () => {
        await cluster?.teardown();
      }, 120_000);

      it('predict --kubeconfig: the model and the apiserver agree on every edit of the table (verdict and the field the apiserver names)', () => {
        const c = cluster!;
        const minor = Number(release.split('.')[1]);
        const ns = c.createBareNamespace('kh-dry-run');
        // The node the pods name: Linux, with room (1.37's PodResizeValidator admission reads it).
        const node = `${ns}-node`;
        c.kubectlOk(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: node, labels: { 'kubernetes.io/os': 'linux' } },
            status: {
              capacity: ROOM,
              allocatable: ROOM,
              // What a 1.36+ kubelet declares for the judged resizes: the NodeDeclaredFeatures admission
              // refuses a non-sidecar init container's resize on a node that does not
              // (plugin/pkg/admission/nodedeclaredfeatures/admission.go:197 (v1.37.2); the kubelet's
              // Discover, nodedeclaredfeatures/features/inplacepodresize/nonsidecar_initcontainers_resize.go:42
              // (component-helpers v0.37.2)). The model takes the node as its kubelet's release.
              ...(minor >= 36 ? { declaredFeatures: ['InPlacePodVerticalScalingInitContainers'] } : {}),
            },
          }),
        );
        const cases = Object.entries(DRY_RUN_CASES).filter(([, x]) => minor >= (x.from ?? 0) && minor <= (x.to ?? 99));
        const pods = cases.map(([name, x]) => ({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: ns, ...clone(x.meta ?? {}) },
          // A gated pod may not name its node before its gates are gone.
          spec: { ...(Array.isArray(x.spec.schedulingGates) ? {} : { nodeName: node }), ...clone(x.spec) },
        }));
        c.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
        for (const [name, x] of cases) if (x.status) putStatus(c, ns, name, x.status);
        const served = (c.getJson(['-n', ns, 'pods']) as { items: Json[] }).items.map((p): Json => ({
          apiVersion: 'v1',
          kind: 'Pod',
          ...p,
        }));
        const byName = new Map(served.map((p) => [(p.metadata as Json).name as string, p]));
        const olds: Json[] = [];
        const news: Json[] = [];
        for (const [name, x] of cases) {
          const old = byName.get(name);
          expect(old, `${name} was created`).toBeDefined();
          const next = clone(old!);
          x.edit(next);
          olds.push(old!);
          news.push(next);
        }
        for (const [name, w] of Object.entries(WORKLOAD_CASES)) {
          const object: Json = { ...clone(w.object), metadata: { name, namespace: ns } };
          c.kubectlOk(['create', '-f', '-'], JSON.stringify(object));
          const old = {
            apiVersion: object.apiVersion,
            kind: object.kind,
            ...(c.getJson(['-n', ns, String(object.kind), name]) as Json),
          };
          const next = clone(old);
          w.edit(next);
          olds.push(old);
          news.push(next);
        }
        const oldFile = join(c.dir, 'dry-run-old.json');
        const newFile = join(c.dir, 'dry-run-new.json');
        writeFileSync(oldFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: olds }));
        writeFileSync(newFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: news }));
        const kubelet = release.split('.').slice(0, 2).join('.');
        const [cmd, args] = inNetns(c.netns, process.execPath, [
          BIN,
          'predict',
          '--kubelet',
          kubelet,
          ...(cliGates ? ['--feature-gates', cliGates] : []),
          '--kubeconfig',
          c.kubeconfigPath,
          '--json',
          oldFile,
          newFile,
        ]);
        const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        expect(r.stderr, 'the CLI wrote no error').not.toMatch(/"code"/);
        expect(r.stdout, `the CLI printed rows (status ${String(r.status)} ${String(r.signal)}): ${r.stderr}`).not.toBe(
          '',
        );
        const rows = (JSON.parse(r.stdout) as { rows: Row[] }).rows;
        const byObject = new Map<string, Row>();
        for (const row of rows) byObject.set(row.object.split('/').at(-1)!, row);
        const table: string[] = [];
        const disagreements: unknown[] = [];
        let refused = 0;
        let admitted = 0;
        for (const [name, x] of [...cases, ...Object.entries(WORKLOAD_CASES)]) {
          const row = byObject.get(name)!;
          const a = row.apiserver!;
          if (a.admitted) admitted++;
          else refused++;
          table.push(
            `${release} ${x.class} [${name}] via ${a.request}: apiserver ${a.admitted ? 'admits' : `refuses at ${JSON.stringify(a.causes[0]?.field ?? '')}`}; model ${row.disagreement === null ? 'agrees' : `DISAGREES (${row.disagreement})`}`,
          );
          if (row.disagreement !== null)
            disagreements.push({
              name,
              class: x.class,
              disagreement: row.disagreement,
              apiserver: a.message,
              causes: a.causes,
            });
        }
        console.log(`apiserver dry-run judge ${release}:\n${table.join('\n')}`);
        expect(disagreements).toEqual([]);
        expect(r.status, r.stderr).toBe(2); // refusals are exit 2
        expect(refused).toBeGreaterThanOrEqual(10);
        expect(admitted).toBeGreaterThanOrEqual(4);
      }, 300_000);
    },
    'apiserver dry-run judge',
  );
}

/** Writes `status` into pod `name` through its status subresource (kubectl 1.20 cannot), as the admin. */
function putStatus(c: Cluster, ns: string, name: string, status: Json): void {
  const pod = c.getJson(['-n', ns, 'pod', name]) as Json;
  const config = JSON.parse(readFileSync(c.kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority': string } }[];
    users: { user: { token: string } }[];
  };
  const headers = join(c.dir, 'dry-run-headers');
  writeFileSync(headers, `Authorization: Bearer ${config.users[0]!.user.token}\nContent-Type: application/json\n`, {
    mode: 0o600,
  });
  const url = `${config.clusters[0]!.cluster.server}/api/v1/namespaces/${ns}/pods/${name}/status`;
  const [cmd, args] = inNetns(c.netns, 'curl', [
    '-sS',
    '-f',
    '--cacert',
    config.clusters[0]!.cluster['certificate-authority'],
    '-H',
    `@${headers}`,
    '-X',
    'PUT',
    '--data-binary',
    '@-',
    url,
  ]);
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod, status: { ...(pod.status as Json), ...status } }),
  });
  if (r.status !== 0) throw new Error(`PUT ${url} failed: ${r.stderr}${r.stdout}`);
}
