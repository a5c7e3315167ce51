/**
 * `fleet manifests` and `fleet report`. Every generated Kubernetes object, for every target release
 * 1.28–1.37, is validated against the published JSON schemas npm has (kubernetes-models 4.5.1 =
 * v1.33.0, 5.1.0 = v1.36.0) and read back through the target release's own generated models where
 * npm has them (@kubernetes/client-node, one minor per release; test/support/k8s-schemas.ts says
 * which package is which release and how that was established). TARGET_JUDGES is the table. The
 * system-upgrade-controller Plan is a custom resource whose schema no npm package ships: its field
 * names are checked by hand against the Go types (see PLAN_SPEC_FIELDS), and the Kubernetes types it
 * embeds (metadata, the node selector) through the models. The report folds node plans recorded by
 * `plan` over CRI-O node trees.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { jobName } from '../src/fleet/index.js';
import { cli } from './support/cli.js';
import { fixtureContainers, fixturePod, type FixtureContainer } from './support/cri-fixtures.js';
import { writeCrioNode } from './support/crio-fixtures.js';
import {
  FIELD_MODELS,
  JSON_SCHEMAS,
  TARGET_JUDGES,
  objectThroughModels,
  throughModels,
  validateSchema,
  type K8sObject,
} from './support/k8s-schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-fleet-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Obj = K8sObject;

/** Throws the schema's message when the object does not validate against every published JSON schema. */
function validate(o: Obj): void {
  for (const release of Object.keys(JSON_SCHEMAS)) validateSchema(release, o);
}

/**
 * The JSON names of PlanSpec's and ContainerSpec's fields, read by hand from rancher/system-upgrade-controller
 * v0.20.1, pkg/apis/upgrade.cattle.io/v1/types.go (its json tags). Copied, not a schema: the CRD's
 * schema (pkg/crds/yaml/generated/upgrade.cattle.io_plans.yaml there) is in no npm package.
 */
const PLAN_SPEC_FIELDS = [
  'concurrency',
  'jobActiveDeadlineSecs',
  'nodeSelector',
  'serviceAccountName',
  'channel',
  'version',
  'secrets',
  'tolerations',
  'exclusive',
  'window',
  'prepare',
  'upgrade',
  'cordon',
  'drain',
  'imagePullSecrets',
  'postCompleteDelay',
  'priorityClassName',
  'postCompleteLabels',
];
const CONTAINER_SPEC_FIELDS = ['image', 'command', 'args', 'envs', 'envFrom', 'volumes', 'securityContext'];

async function manifests(args: string[]): Promise<Obj[]> {
  const r = await cli(['fleet', 'manifests', ...args]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const docs = parseAllDocuments(r.out).map((d) => d.toJS() as Obj);
  // YAML for kubectl and --json say the same
  const j = await cli(['fleet', 'manifests', ...args, '--json']);
  expect((JSON.parse(j.out) as { rows: Obj[] }).rows).toEqual(docs);
  return docs;
}

describe('fleet manifests', () => {
  const nodesFile = join(dir, 'nodes.json');
  writeFileSync(
    nodesFile,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2', labels: { pool: 'blue' } } },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1', labels: { pool: 'blue' } } },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gpu-1', labels: { pool: 'green' } } },
      ],
    }),
  );

  it('one Job per selected node, pinned, tolerating taints, read-only mounts; every object validates', async () => {
    const objs = await manifests([
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--nodes',
      nodesFile,
      '--selector',
      'pool=blue',
      '--node',
      'Control_Plane.1',
      '--runtime-root',
      '/var/lib/rancher/k3s/agent/containerd',
    ]);
    for (const o of objs) validate(o);
    expect(objs.map((o) => o.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Job',
      'Job',
      'Job',
    ]);
    const jobs = objs.filter((o) => o.kind === 'Job') as unknown as {
      metadata: { name: string };
      spec: {
        template: {
          spec: Record<string, unknown> & {
            containers: { command: string[]; volumeMounts: { readOnly?: boolean }[] }[];
            volumes: { hostPath?: { path: string } }[];
          };
        };
      };
    }[];
    const pods = jobs.map((j) => j.spec.template.spec);
    expect(pods.map((p) => p['nodeName'])).toEqual(['Control_Plane.1', 'worker-1', 'worker-2']);
    expect(jobs[0]!.metadata.name).toBe('kubelet-hash-plan-control-plane-1');
    for (const p of pods) {
      expect(p['tolerations']).toEqual([{ operator: 'Exists' }]);
      expect(p['serviceAccountName']).toBe('kubelet-hash');
      expect(p.volumes.map((v) => v.hostPath?.path).filter(Boolean)).toEqual([
        '/var/lib/rancher/k3s/agent/containerd',
        '/var/lib/kubelet',
      ]);
      expect(p.containers[0]!.volumeMounts.every((m) => m.readOnly === true)).toBe(true);
      expect(p.containers[0]!.command).toContain('--containerd-root');
    }
    const role = objs.find((o) => o.kind === 'ClusterRole')!;
    expect(role['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
  });

  it('the JSON schemas are not vacuous: each rejects a broken Job', () => {
    for (const release of Object.keys(JSON_SCHEMAS))
      expect(() => {
        validateSchema(release, {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'x' },
          spec: { template: { spec: { containers: 'no' } } },
        });
      }, release).toThrow(/containers must be array/);
  });

  it('node names become DNS-1123 Job names within 63 characters', () => {
    const long = jobName(`${'n'.repeat(80)}.example`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(jobName('a'.repeat(80))).not.toBe(jobName(`${'a'.repeat(79)}b`));
  });

  it('the system-upgrade-controller variant: a Plan that gates, applies, swaps and verifies; RBAC validates', async () => {
    const objs = await manifests([
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--variant',
      'suc',
      '--concurrency',
      '2',
      '--swap-command',
      'chroot /host install -m 0755 /opt/kubelet-1.31 /usr/bin/kubelet',
    ]);
    for (const o of objs.filter((x) => x.kind !== 'Plan')) validate(o);
    const plan = objs.find((o) => o.kind === 'Plan') as unknown as {
      apiVersion: string;
      spec: {
        concurrency: number;
        cordon: boolean;
        drain?: unknown;
        nodeSelector: unknown;
        upgrade: { args: string[] };
      };
    };
    expect(plan.apiVersion).toBe('upgrade.cattle.io/v1');
    expect(plan.spec).toMatchObject({
      concurrency: 2,
      cordon: true,
      nodeSelector: { matchLabels: { 'kubelet-hash/upgrade': 'true' } },
    });
    expect(plan.spec.drain).toBeUndefined();
    const script = plan.spec.upgrade.args[0]!.split('\n');
    const at = (s: string) => script.findIndex((l) => l.includes(s));
    const order = [
      'systemctl stop kubelet',
      '/kubelet-hash plan',
      'systemctl stop containerd',
      '/kubelet-hash apply',
      'systemctl start containerd',
      '/kubelet-hash verify --kubelet 1.31',
      'install -m 0755',
    ].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(script.at(-1)).toBe('chroot /host systemctl start kubelet');
    // the gate restarts the old kubelet and stops there
    expect(script[at('/kubelet-hash plan')]).toContain('then chroot /host systemctl start kubelet; exit 1; fi');
  });

  it('the judges table covers every target release 1.28–1.37, each model package once', () => {
    expect(TARGET_JUDGES.map((j) => j.target)).toEqual(Array.from({ length: 10 }, (_, i) => `1.${28 + i}`));
    expect(TARGET_JUDGES.flatMap((j) => (j.schema ? [j.schema] : []))).toEqual(Object.keys(JSON_SCHEMAS));
    expect(TARGET_JUDGES.flatMap((j) => (j.models ? [j.models] : []))).toEqual(Object.keys(FIELD_MODELS));
    // What npm has no schema or models of (docs/fleet.md, "Schema validation", says the same).
    expect(TARGET_JUDGES.filter((j) => !j.schema && !j.models).map((j) => j.target)).toEqual(['1.31', '1.37']);
  });

  it('each model package is the release the table says: fields new in a release survive from that release on', async () => {
    // One pod spec field that each release added (its KEP's alpha), read back through every models release.
    const added: [string, string][] = [
      ['1.28', 'initContainers.0.restartPolicy'],
      ['1.29', 'containers.0.lifecycle.preStop.sleep'],
      ['1.30', 'securityContext.appArmorProfile'],
      ['1.31', 'volumes.0.image'],
      ['1.32', 'resources'],
      ['1.33', 'containers.0.lifecycle.stopSignal'],
      ['1.34', 'hostnameOverride'],
      ['1.35', 'schedulingGroup'],
    ];
    const spec = {
      initContainers: [{ name: 'i', image: 'x', restartPolicy: 'Always' }],
      containers: [{ name: 'c', image: 'x', lifecycle: { preStop: { sleep: { seconds: 1 } }, stopSignal: 'SIGTERM' } }],
      securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
      volumes: [{ name: 'v', image: { reference: 'x' } }],
      resources: { limits: { cpu: '1' } },
      hostnameOverride: 'h',
      schedulingGroup: { podGroupName: 'g' },
    };
    const at = (o: unknown, path: string): unknown =>
      path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
    for (const release of Object.keys(FIELD_MODELS)) {
      const back = await throughModels(release, 'V1PodSpec', spec);
      const kept = added.filter(([, path]) => at(back, path) !== undefined).map(([r]) => r);
      expect(kept, release).toEqual(
        added.map(([r]) => r).filter((r) => Number(r.slice(2)) <= Number(release.slice(2))),
      );
    }
  });

  it('the models are not vacuous: a field no release has is dropped, so the object differs', async () => {
    for (const release of Object.keys(FIELD_MODELS)) {
      const job = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'x' },
        spec: { template: { spec: { containers: [{ name: 'c', image: 'i', mountsReadOnly: true }] } } },
      };
      expect(await objectThroughModels(release, job), release).not.toEqual(job);
    }
  });

  describe.each(TARGET_JUDGES)('--to $target', ({ target, models }) => {
    const jobsArgs = ['--from', '1.27', '--to', target, '--node', 'worker-1', '--node', 'worker-2'];
    const sucArgs = ['--from', '1.27', '--to', target, '--variant', 'suc', '--swap-command', 'true'];

    it(`every object validates against the published JSON schemas (${Object.keys(JSON_SCHEMAS).join(', ')})`, async () => {
      const objs = [...(await manifests(jobsArgs)), ...(await manifests(sucArgs))].filter((o) => o.kind !== 'Plan');
      expect(objs.map((o) => o.kind)).toContain('Job');
      for (const o of objs) validate(o);
    });

    // Registered only where npm has the target release's models (TARGET_JUDGES says where not).
    if (models)
      it(`every object reads back unchanged through the ${models} models (${FIELD_MODELS[models]?.pkg ?? ''})`, async () => {
        const objs = [...(await manifests(jobsArgs)), ...(await manifests(sucArgs))];
        for (const o of objs.filter((x) => x.kind !== 'Plan'))
          expect(await objectThroughModels(models, o), o.kind).toEqual(o);
        // The Plan's embedded Kubernetes types: its metadata and its node selector.
        const plan = objs.find((o) => o.kind === 'Plan') as unknown as {
          metadata: unknown;
          spec: { nodeSelector: unknown };
        };
        expect(await throughModels(models, 'V1ObjectMeta', plan.metadata)).toEqual(plan.metadata);
        expect(await throughModels(models, 'V1LabelSelector', plan.spec.nodeSelector)).toEqual(plan.spec.nodeSelector);
      });

    it('the Plan uses only fields system-upgrade-controller declares (a hand check: no npm package ships its CRD schema)', async () => {
      const plan = (await manifests(sucArgs)).find((o) => o.kind === 'Plan') as unknown as {
        apiVersion: string;
        spec: Record<string, unknown> & { upgrade: Record<string, unknown> };
      };
      expect(plan.apiVersion).toBe('upgrade.cattle.io/v1');
      expect(Object.keys(plan.spec).filter((k) => !PLAN_SPEC_FIELDS.includes(k))).toEqual([]);
      expect(Object.keys(plan.spec.upgrade).filter((k) => !CONTAINER_SPEC_FIELDS.includes(k))).toEqual([]);
      // upgrade and its image are the two fields the Go types require; concurrency is an int64, cordon a bool.
      expect(typeof plan.spec.upgrade['image']).toBe('string');
      expect(Number.isSafeInteger(plan.spec['concurrency'])).toBe(true);
      expect(typeof plan.spec['cordon']).toBe('boolean');
      expect(plan.spec['version']).toBe(`v${target}`);
    });
  });

  it('bad selections are usage errors', async () => {
    expect((await cli(['fleet', 'manifests', '--from', '1.30', '--to', '1.31'])).code).toBe(2);
    expect((await cli(['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--variant', 'suc'])).err).toContain(
      '--swap-command',
    );
    expect((await cli(['fleet', 'nothing'])).code).toBe(2);
  });
});

describe('fleet report', () => {
  const pods = Array.from({ length: 4 }, (_, i) => fixturePod(i));
  const podsFile = join(dir, 'pods.json');
  writeFileSync(podsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));

  /** Records one node's plan with `plan`; `damage` edits its containers' records first. */
  async function recordNode(
    name: string,
    format: 'plan' | 'ndjson',
    damage?: (fixtures: FixtureContainer[]) => void,
  ): Promise<string> {
    const graph = join(dir, name, 'graph');
    // Each node's runtime gives its containers their own ids (what tells two nodes' plans apart).
    const fixtures = fixtureContainers(pods, '1.30', name.charCodeAt(name.length - 1) * 100);
    damage?.(fixtures);
    writeCrioNode(graph, join(dir, name, 'run'), fixtures);
    const args = [
      'plan',
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--pods',
      podsFile,
      '--crio-root',
      graph,
      '--crio-runroot',
      join(dir, name, 'run'),
    ];
    const out = join(dir, `${name}.${format === 'plan' ? 'json' : 'ndjson'}`);
    const r = await cli(format === 'plan' ? [...args, '--out', out] : [...args, '--ndjson']);
    if (format === 'ndjson') writeFileSync(out, r.out);
    return out;
  }

  it('every node ready: GO, exit 0', async () => {
    const a = await recordNode('node-a', 'plan');
    const r = await cli(['fleet', 'report', a]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('# GO: 1 of 1 nodes ready; 0 containers will restart, 0 unknown');
  });

  it('a node with a container that will restart and an unknown: NO-GO, exit 1, each with its reason', async () => {
    const a = join(dir, 'node-a.json');
    const b = await recordNode('node-b', 'ndjson', (fixtures) => {
      // a record that stores no hash (the kubelet reads 0 and restarts it), and one of a pod the API does not have
      delete fixtures[0]!.annotations['io.kubernetes.container.hash'];
      fixtures[2]!.labels['io.kubernetes.pod.uid'] = 'not-in-the-api';
    });
    const r = await cli(['fleet', 'report', a, b]);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/node-a\s+yes/);
    expect(r.out).toMatch(/node-b\s+no/);
    expect(r.out).toContain('# node-b: will-restart');
    expect(r.out).toContain('the record stores no hash');
    expect(r.out).toContain('# node-b: unknown');
    expect(r.out).toContain('# will restart, 1×: the record stores no hash');
    // The record of a pod the API does not have is unknown, and so is that API pod's container, which
    // then has no record.
    expect(r.out).toContain('no runtime record: wrong --namespace or runtime root?');
    expect(r.out).toContain('# NO-GO: 1 of 2 nodes ready; 1 containers will restart, 2 unknown');
    const j = JSON.parse((await cli(['fleet', 'report', a, b, '--json'])).out) as {
      summary: unknown;
      exitCode: number;
    };
    expect(j).toMatchObject({
      exitCode: 1,
      summary: { go: false, ready: 1, notReady: 1, counts: { 'will-restart': 1, unknown: 2 } },
    });
  });

  it('an unreadable plan is exit 2 naming the file and line', async () => {
    const bad = join(dir, 'node-c.ndjson');
    writeFileSync(bad, '{"action":"keep","reason":"x","podUid":"u","containerName":"c"}\n{"action":"maybe"}\n');
    const r = await cli(['fleet', 'report', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('node-c.ndjson');
    expect(r.err).toContain('keep|rewrite|will-restart|unknown');
  });
  it('a cut --ndjson (rows missing, or the trailer) is refused naming what is missing, never a smaller GO', async () => {
    const b = join(dir, 'node-b.ndjson'); // recorded above: 1 will-restart and 2 unknown, sorted last
    const lines = readFileSync(b, 'utf8').trimEnd().split('\n');
    const trailer = JSON.parse(lines.at(-1)!) as { kind: string; rows: number; counts: Record<string, number> };
    expect(trailer).toMatchObject({ kind: 'kubelet-hash/plan-trailer', rows: lines.length - 1 });
    const cut = join(dir, 'cut', 'node-b.ndjson');
    mkdirSync(dirname(cut), { recursive: true });
    // Cut after 4 rows: the unknowns are gone, and so is the trailer.
    writeFileSync(cut, lines.slice(0, 4).join('\n') + '\n');
    let r = await cli(['fleet', 'report', cut, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err)).toMatchObject({ error: { code: 'INCOMPLETE_PLAN' } });
    expect(r.err).toContain('4 rows and no trailer');
    // Rows dropped, trailer kept: the counts do not add up.
    writeFileSync(cut, [...lines.slice(0, 4), lines.at(-1)].join('\n') + '\n');
    r = await cli(['fleet', 'report', cut, '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('INCOMPLETE_PLAN');
    expect(r.err).toContain(`the ${trailer.rows} rows its trailer counts`);
    // Cut inside a row.
    writeFileSync(cut, readFileSync(b, 'utf8').slice(0, 300));
    expect((await cli(['fleet', 'report', cut])).code).toBe(2);
    // Two streams joined.
    writeFileSync(cut, readFileSync(b, 'utf8') + readFileSync(b, 'utf8'));
    r = await cli(['fleet', 'report', cut]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('follows the trailer');
  });

  it('the same node twice is refused (DUPLICATE_NODE): one file twice, or one plan under two names', async () => {
    const a = join(dir, 'node-a.json');
    let r = await cli(['fleet', 'report', a, a, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err)).toMatchObject({ error: { code: 'DUPLICATE_NODE' } });
    const copy = join(dir, 'node-z.json');
    writeFileSync(copy, readFileSync(a));
    r = await cli(['fleet', 'report', a, copy]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('DUPLICATE_NODE');
    expect(r.err).toContain('the same node');
    expect(r.out).toBe('');
  });

  it('a plan file re-serialised on one line (jq -c) is read as the plan file apply reads', async () => {
    const a = join(dir, 'node-a.json');
    const one = join(dir, 'oneline', 'node-a.json');
    mkdirSync(dirname(one), { recursive: true });
    writeFileSync(one, JSON.stringify(JSON.parse(readFileSync(a, 'utf8'))) + '\n');
    const [pretty, compact] = await Promise.all([cli(['fleet', 'report', a]), cli(['fleet', 'report', one])]);
    expect(compact.err).toBe('');
    expect(compact.code).toBe(0);
    expect(compact.out).toBe(pretty.out);
    expect((await cli(['apply', one, '--dry-run'])).code).toBe(0);
  });
});
