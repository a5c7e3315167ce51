/**
 * `fleet manifests` and `fleet report`. Every generated Kubernetes object, for every target release
 * 1.28–1.37, is validated against that release's published OpenAPI v3 documents (1.28–1.35,
 * fixtures/kube-openapi), kubernetes-models 5.1.0's schema (1.36, and 1.37, which has none of its
 * own), and the system-upgrade-controller Plan against its CRD's openAPIV3Schema, all strict: unknown
 * fields are refused as the apiserver's strict field validation refuses them. TARGET_JUDGES is the
 * table (test/support/k8s-schemas.ts). The report folds node plans recorded by `plan` over CRI-O
 * node trees.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { clusterRbacName, jobName } from '../../src/fleet/index.js';
import { cli } from '../support/cli.js';
import { planArgs } from '../support/node-fixture.js';
import { fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { TARGET_JUDGES, problemsFor, type K8sObject } from '../support/k8s-schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-fleet-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Obj = K8sObject;

/** Fails, listing what the target release's judge refuses, unless `o` validates. */
function validate(target: string, o: Obj): void {
  expect(problemsFor(target, o), `${o.kind} for --to ${target}`).toEqual([]);
}

/** An agent image pinned by digest, as `fleet manifests` requires it. */
const IMAGE = `registry.example/kubelet-hash:0.1.0@sha256:${'5e'.repeat(32)}`;

async function manifests(given: string[]): Promise<Obj[]> {
  const args = given.includes('--image') ? given : [...given, '--image', IMAGE];
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
    for (const o of objs) validate('1.31', o);
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
      // Only containerd's metadata directory (test/fleet/least-privilege.test.ts holds every runtime to this).
      expect(p.volumes.map((v) => v.hostPath?.path).filter(Boolean)).toEqual([
        '/var/lib/rancher/k3s/agent/containerd/io.containerd.metadata.v1.bolt',
      ]);
      expect(p.containers[0]!.volumeMounts.every((m) => m.readOnly === true)).toBe(true);
      expect(p.containers[0]!.command).toContain('--containerd-root');
    }
    const role = objs.find((o) => o.kind === 'ClusterRole')!;
    expect(role['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
  });

  it('two namespaces get cluster-scoped RBAC of their own: applying the second never rebinds the first', async () => {
    const args = ['--from', '1.30', '--to', '1.31', '--node', 'worker-1'];
    const of = async (ns: string, variant: string[] = []) => {
      const objs = await manifests([...args, '--namespace', ns, ...variant]);
      for (const o of objs) validate('1.31', o);
      const role = objs.find((o) => o.kind === 'ClusterRole') as unknown as { metadata: { name: string } };
      const binding = objs.find((o) => o.kind === 'ClusterRoleBinding') as unknown as {
        metadata: { name: string };
        roleRef: { name: string };
        subjects: { namespace: string }[];
      };
      expect(binding.roleRef.name).toBe(role.metadata.name);
      expect(binding.subjects.map((x) => x.namespace)).toEqual([ns]);
      return { role: role.metadata.name, binding: binding.metadata.name };
    };
    const a = await of('upgrade-a');
    const b = await of('upgrade-b');
    expect(a).toEqual({ role: 'kubelet-hash-read-pods-upgrade-a', binding: 'kubelet-hash-read-pods-upgrade-a' });
    expect(b.role).not.toBe(a.role);
    expect(b.binding).not.toBe(a.binding);
    // The Plan variant in the same namespace binds the same ServiceAccount with the same rules: one pair.
    expect(await of('upgrade-a', ['--variant', 'suc', '--swap-command', 'true'])).toEqual(a);
  });

  it('cluster-scoped names stay DNS-1123 labels within 63 characters, distinct per namespace', () => {
    const long = 'n'.repeat(63);
    const names = [long, `${'n'.repeat(62)}m`, 'Upper', 'upper', 'dots.in.it', 'dots-in-it', 'trailing-'].map(
      clusterRbacName,
    );
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(63);
      expect(n).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(new Set(names).size).toBe(names.length);
    expect(clusterRbacName('kubelet-hash')).toBe('kubelet-hash-read-pods-kubelet-hash');
  });

  it('node names become DNS-1123 Job names within 63 characters', () => {
    const long = jobName(`${'n'.repeat(80)}.example`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(jobName('a'.repeat(80))).not.toBe(jobName(`${'a'.repeat(79)}b`));
  });

  it('the system-upgrade-controller variant: a Plan whose upgrade container is the agent’s upgrade-node (no shell); RBAC validates', async () => {
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
      'install -m 0755 /opt/kubelet-1.31 /usr/bin/kubelet',
    ]);
    for (const o of objs) validate('1.31', o);
    const plan = objs.find((o) => o.kind === 'Plan') as unknown as {
      apiVersion: string;
      spec: {
        concurrency: number;
        cordon: boolean;
        drain?: unknown;
        nodeSelector: unknown;
        upgrade: { command: string[]; args: string[] };
      };
    };
    expect(plan.apiVersion).toBe('upgrade.cattle.io/v1');
    expect(plan.spec).toMatchObject({
      concurrency: 2,
      cordon: true,
      nodeSelector: { matchLabels: { 'kubelet-hash/upgrade': 'true' } },
    });
    expect(plan.spec.drain).toBeUndefined();
    // The agent itself, by absolute path: nothing looked up on PATH, no sh.
    expect(plan.spec.upgrade.command).toEqual(['/kubelet-hash', 'upgrade-node']);
    expect(plan.spec.upgrade.args).toEqual([
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--node',
      '$(SYSTEM_UPGRADE_NODE_NAME)',
      '--host-root',
      '/host',
      '--runtime',
      'containerd',
      '--runtime-root',
      '/var/lib/containerd',
      '--kubelet-unit',
      'kubelet',
      '--runtime-unit',
      'containerd',
      '--swap',
      'install -m 0755 /opt/kubelet-1.31 /usr/bin/kubelet',
    ]);
  });

  it('the judges table covers every target release 1.28–1.37; only 1.37 is judged by another release', () => {
    expect(TARGET_JUDGES.map((j) => j.target)).toEqual(Array.from({ length: 10 }, (_, i) => `1.${28 + i}`));
    // The gap list (docs/fleet.md, "Schema validation", says the same).
    expect(TARGET_JUDGES.filter((j) => j.borrowed).map((j) => j.target)).toEqual(['1.37']);
  });

  it('each judge is the release the table says: a pod spec field is accepted only by the releases that have it', () => {
    // One pod spec field that each release added (its KEP's alpha), and 1.35's alpha workloadRef,
    // which 1.36 replaced by schedulingGroup: [path, first release, last release].
    const fields: [string, number, number][] = [
      ['containers/0/lifecycle/preStop/sleep', 29, 37],
      ['securityContext/appArmorProfile', 30, 37],
      ['volumes/0/image', 31, 37],
      ['resources', 32, 37],
      ['containers/0/lifecycle/stopSignal', 33, 37],
      ['hostnameOverride', 34, 37],
      ['workloadRef', 35, 35],
      ['schedulingGroup', 36, 37],
    ];
    const job: Obj = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'x' },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            initContainers: [{ name: 'i', image: 'x', restartPolicy: 'Always' }],
            containers: [
              { name: 'c', image: 'x', lifecycle: { preStop: { sleep: { seconds: 1 } }, stopSignal: 'SIGTERM' } },
            ],
            securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
            volumes: [{ name: 'v', image: { reference: 'x' } }],
            resources: { limits: { cpu: '1' } },
            hostnameOverride: 'h',
            workloadRef: { name: 'w', podGroup: 'g' },
            schedulingGroup: { podGroupName: 'g' },
          },
        },
      },
    };
    for (const { target } of TARGET_JUDGES) {
      const minor = Number(target.slice(2));
      const problems = problemsFor(target, job);
      expect(
        problems.every((p) => p.includes(': unknown field')),
        target,
      ).toBe(true);
      expect(problems.map((p) => p.slice(0, p.indexOf(':'))).sort(), target).toEqual(
        fields
          .filter(([, first, last]) => minor < first || minor > last)
          .map(([path]) => `/spec/template/spec/${path}`)
          .sort(),
      );
    }
  });

  describe.each(TARGET_JUDGES)('--to $target (judged by $judge)', ({ target }) => {
    const jobsArgs = ['--from', '1.27', '--to', target, '--node', 'worker-1', '--node', 'worker-2'];
    const sucArgs = ['--from', '1.27', '--to', target, '--variant', 'suc', '--swap-command', 'true'];

    it('every object, the Plan with its CRD, validates', async () => {
      const objs = [...(await manifests(jobsArgs)), ...(await manifests(sucArgs))];
      expect(objs.map((o) => o.kind)).toEqual([
        'Namespace',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Job',
        'Job',
        'Namespace',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'ClusterRole',
        'ClusterRoleBinding',
        'Plan',
      ]);
      for (const o of objs) validate(target, o);
      const plan = objs.find((o) => o.kind === 'Plan')!;
      expect((plan['spec'] as { version: string }).version).toBe(`v${target}`);
    });

    it('refused, naming the field: a misspelled field, a wrong type, a container without name, a bad enum', async () => {
      const job = (await manifests(jobsArgs)).find((o) => o.kind === 'Job')!;
      type PodSpec = Record<string, unknown> & { containers: Record<string, unknown>[] };
      const broken = (edit: (spec: Record<string, unknown>, pod: PodSpec) => void): Obj => {
        const copy = structuredClone(job) as Obj & { spec: Record<string, unknown> & { template: { spec: PodSpec } } };
        edit(copy.spec, copy.spec.template.spec);
        return copy;
      };
      const pod = '/spec/template/spec';
      expect(problemsFor(target, job)).toEqual([]);
      expect(
        problemsFor(
          target,
          broken((spec) => {
            spec['ttlSecondsAfterFinish'] = spec['ttlSecondsAfterFinished'];
            delete spec['ttlSecondsAfterFinished'];
          }),
        ),
      ).toEqual([expect.stringMatching(/^\/spec\/ttlSecondsAfterFinish: unknown field/)]);
      expect(
        problemsFor(
          target,
          broken((spec) => {
            spec['backoffLimit'] = '0';
          }),
        ),
      ).toEqual(['/spec/backoffLimit: must be integer']);
      expect(
        problemsFor(
          target,
          broken((_, p) => {
            delete p.containers[0]!['name'];
          }),
        ),
      ).toEqual([`${pod}/containers/0/name: required field missing`]);
      expect(
        problemsFor(
          target,
          broken((_, p) => {
            p['restartPolicy'] = 'Sometimes';
          }),
        ),
      ).toEqual([`${pod}/restartPolicy: must be one of Always, Never, OnFailure (enum)`]);
    });

    it('refused, naming the field: a Plan with an unknown spec field, a wrong type, no upgrade image', async () => {
      const plan = (await manifests(sucArgs)).find((o) => o.kind === 'Plan')!;
      type PlanSpec = Record<string, unknown> & { upgrade: Record<string, unknown> };
      const broken = (edit: (spec: PlanSpec) => void): Obj => {
        const copy = structuredClone(plan) as Obj & { spec: PlanSpec };
        edit(copy.spec);
        return copy;
      };
      expect(
        problemsFor(
          target,
          broken((s) => {
            s['drainTimeout'] = '5m';
          }),
        ),
      ).toEqual(['/spec/drainTimeout: unknown field (strict field validation)']);
      expect(
        problemsFor(
          target,
          broken((s) => {
            s['concurrency'] = '2';
          }),
        ),
      ).toEqual(['/spec/concurrency: must be integer']);
      expect(
        problemsFor(
          target,
          broken((s) => {
            delete s.upgrade['image'];
          }),
        ),
      ).toEqual(['/spec/upgrade/image: required field missing']);
      // Its metadata is judged as the target release's ObjectMeta.
      expect(problemsFor(target, { ...plan, metadata: { ...(plan['metadata'] as object), label: {} } })).toEqual([
        expect.stringMatching(/^\/metadata\/label: unknown field/),
      ]);
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
    const args = planArgs({ podsFile, store: ['--crio-root', graph, '--crio-runroot', join(dir, name, 'run')] });
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
