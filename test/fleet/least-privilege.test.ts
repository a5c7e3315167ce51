/**
 * Least privilege, over the objects `fleet manifests` prints for every runtime and both variants:
 * the plan Job mounts only the runtime's record directories (read-only, recursively where the
 * release has it), never the kubelet's root; every container drops every capability, runs under
 * RuntimeDefault seccomp and gets no ServiceAccount token except the one that lists pods (a
 * projected, short-lived one); the Namespace carries the Pod Security level hostPath needs; RBAC is
 * pods get/list and, for the Plan's cordon, nodes get/patch, in cluster-scoped names of the
 * namespace, labelled for removal. The CRI-O Job's plan command runs against a CRI-O node tree.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAN_EXIT_WRAPPER } from '../../src/fleet/manifests.js';
import { cli } from '../support/cli.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { problemsFor, type K8sObject } from '../support/k8s-schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-fleet-lp-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const IMAGE = `registry.example/kubelet-hash@sha256:${'ab'.repeat(32)}`;
const RUNTIMES = ['containerd', 'cri-o', 'docker'] as const;
type Runtime = (typeof RUNTIMES)[number];
const ROOTS: Record<Runtime, string> = {
  containerd: '/var/lib/containerd',
  'cri-o': '/var/lib/containers/storage',
  docker: '/var/lib/docker',
};
/** What each store reads on the node, and nothing else. */
const READS: Record<Runtime, string[]> = {
  containerd: ['/var/lib/containerd/io.containerd.metadata.v1.bolt'],
  'cri-o': ['/var/lib/containers/storage/overlay-containers', '/run/containers/storage/overlay-containers'],
  docker: ['/var/lib/docker/containers'],
};

interface Container {
  name: string;
  command: string[];
  securityContext: Record<string, unknown> & { capabilities?: { drop?: string[]; add?: string[] } };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean; recursiveReadOnly?: string }[];
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  securityContext: Record<string, unknown>;
  initContainers: Container[];
  containers: Container[];
  volumes: (Record<string, unknown> & { name: string; hostPath?: { path: string } })[];
}

async function objects(args: string[]): Promise<K8sObject[]> {
  const r = await cli(['fleet', 'manifests', ...args, '--image', IMAGE, '--json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.out) as { rows: K8sObject[] }).rows;
}

const jobArgs = (runtime: Runtime, to = '1.31') => [
  '--from',
  '1.30',
  '--to',
  to,
  '--node',
  'node-a',
  '--runtime',
  runtime,
  '--runtime-root',
  ROOTS[runtime],
];
const sucArgs = (runtime: Runtime) => [
  ...jobArgs(runtime).slice(0, 4),
  '--variant',
  'suc',
  '--swap-command',
  'true',
  '--runtime',
  runtime,
];

const podOf = (job: K8sObject): PodSpec => (job['spec'] as { template: { spec: PodSpec } }).template.spec;

/** The RBAC the objects grant, as `verb resource` per ClusterRole name. */
function grants(objs: K8sObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const o of objs.filter((x) => x.kind === 'ClusterRole')) {
    const rules = o['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    out[(o['metadata'] as { name: string }).name] = rules.flatMap((r) =>
      r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${r.apiGroups.join(',')}/${res}`)),
    );
  }
  return out;
}

describe.each(RUNTIMES)('the plan Job for %s', (runtime) => {
  it('mounts only what the store reads, read-only and recursively so; never the kubelet root', async () => {
    for (const to of ['1.29', '1.31']) {
      const objs = await objects(jobArgs(runtime, to));
      for (const o of objs) expect(problemsFor(to, o), `${o.kind} --to ${to}`).toEqual([]);
      const pod = podOf(objs.find((o) => o.kind === 'Job')!);
      const hostPaths = pod.volumes.filter((v) => v.hostPath).map((v) => v.hostPath!.path);
      expect(hostPaths).toEqual(READS[runtime]);
      expect(hostPaths.some((p) => p.startsWith('/var/lib/kubelet'))).toBe(false);
      const [plan] = pod.containers;
      const hostMounts = plan!.volumeMounts.filter((m) => pod.volumes.find((v) => v.name === m.name)?.hostPath);
      expect(hostMounts.map((m) => m.mountPath)).toEqual(READS[runtime]);
      for (const m of hostMounts) {
        expect(m.readOnly).toBe(true);
        // recursiveReadOnly is a 1.30+ field: older apiservers would refuse it.
        expect(m.recursiveReadOnly).toBe(to === '1.31' ? 'IfPossible' : undefined);
      }
      // The init container (which talks to the API) sees no host path at all.
      expect(pod.initContainers[0]!.volumeMounts.map((m) => m.mountPath)).toEqual([
        '/work',
        '/var/run/secrets/kubernetes.io/serviceaccount',
      ]);
    }
  });

  it('drops every capability, RuntimeDefault seccomp, a token only where pods are listed', async () => {
    const objs = await objects(jobArgs(runtime));
    const sa = objs.find((o) => o.kind === 'ServiceAccount')!;
    expect(sa['automountServiceAccountToken']).toBe(false);
    const pod = podOf(objs.find((o) => o.kind === 'Job')!);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext['seccompProfile']).toEqual({ type: 'RuntimeDefault' });
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.securityContext.capabilities, c.name).toEqual({ drop: ['ALL'] });
      expect(c.securityContext['allowPrivilegeEscalation'], c.name).toBe(false);
      expect(c.securityContext['readOnlyRootFilesystem'], c.name).toBe(true);
      expect(c.securityContext['privileged'], c.name).toBeUndefined();
    }
    // Only the lister is not root.
    expect(pod.initContainers[0]!.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65534 });
    // The token: projected, bound, 10 minutes, mounted in the lister only.
    const access = pod.volumes.find((v) => v.name === 'api-access')!;
    expect(access['projected']).toEqual({
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 600 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      ],
    });
    expect(pod.containers[0]!.volumeMounts.map((m) => m.name)).not.toContain('api-access');
    // No kubectl, no shell around the lister: the agent lists its node's pods itself.
    expect(pod.initContainers[0]!.command).toEqual([
      '/kubelet-hash',
      'fleet',
      'pods',
      '--node',
      'node-a',
      '--out',
      '/work/pods.json',
    ]);
  });
});

describe.each(RUNTIMES)('both variants for %s: Namespace and RBAC', (runtime) => {
  it('privileged Pod Security (hostPath needs it) on the namespace; pods get/list, cordon nodes get/patch', async () => {
    const jobs = await objects(jobArgs(runtime));
    const suc = await objects(sucArgs(runtime));
    for (const [objs, ns, cordon] of [
      [jobs, 'kubelet-hash', false],
      [suc, 'system-upgrade', true],
    ] as const) {
      const namespace = objs.find((o) => o.kind === 'Namespace')!;
      expect(namespace['metadata']).toMatchObject({
        name: ns,
        labels: {
          'pod-security.kubernetes.io/enforce': 'privileged',
          'pod-security.kubernetes.io/audit': 'privileged',
          'pod-security.kubernetes.io/warn': 'privileged',
        },
      });
      // The Plan's pod is the controller's: its cordon and upgrade-node need the account's token.
      expect(objs.find((o) => o.kind === 'ServiceAccount')!['automountServiceAccountToken']).toBe(cordon);
      expect(grants(objs)).toEqual({
        [`kubelet-hash-read-pods-${ns}`]: ['get /pods', 'list /pods'],
        ...(cordon ? { [`kubelet-hash-cordon-${ns}`]: ['get /nodes', 'patch /nodes'] } : {}),
      });
      // Every cluster-scoped object says its namespace: `kubectl delete clusterrole,clusterrolebinding -l kubelet-hash/namespace=NS`.
      const clusterScoped = objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding');
      expect(clusterScoped).toHaveLength(cordon ? 4 : 2);
      for (const o of clusterScoped)
        expect((o['metadata'] as { labels: Record<string, string> }).labels['kubelet-hash/namespace']).toBe(ns);
      for (const b of objs.filter((o) => o.kind === 'ClusterRoleBinding'))
        expect(b['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'kubelet-hash', namespace: ns }]);
      for (const o of objs) expect(problemsFor('1.31', o), o.kind).toEqual([]);
    }
  });

  it("the Plan's upgrade container: not privileged, every capability dropped but SYS_CHROOT, RuntimeDefault", async () => {
    const plan = (await objects(sucArgs(runtime))).find((o) => o.kind === 'Plan')!;
    const upgrade = (plan['spec'] as { upgrade: { image: string; securityContext: unknown } }).upgrade;
    expect(upgrade.image).toBe(IMAGE);
    expect(upgrade.securityContext).toEqual({
      privileged: false,
      allowPrivilegeEscalation: false,
      runAsUser: 0,
      capabilities: { drop: ['ALL'], add: ['SYS_CHROOT'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });
});

describe('the CRI-O Job works', () => {
  it("its plan command, as printed, plans a CRI-O node read through the Job's mounts alone", async () => {
    const graph = join(dir, 'crio', 'graph');
    const run = join(dir, 'crio', 'run');
    const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
    const files = writeCrioNode(graph, run, fixtureContainers(pods, '1.30'));
    const objs = await objects([
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--node',
      'node-a',
      '--runtime',
      'cri-o',
      '--runtime-root',
      graph,
      '--crio-runroot',
      run,
    ]);
    const pod = podOf(objs.find((o) => o.kind === 'Job')!);
    const mounted = pod.volumes.filter((v) => v.hostPath).map((v) => v.hostPath!.path);
    expect(mounted).toEqual([join(graph, 'overlay-containers'), join(run, 'overlay-containers')]);
    // Every record file the store holds (graphroot and runroot copies) is under a mount.
    expect(files.length).toBeGreaterThan(3);
    for (const f of files)
      expect(
        mounted.some((m) => f.startsWith(`${m}/`)),
        f,
      ).toBe(true);
    const command = pod.containers[0]!.command;
    expect(command.slice(0, 5)).toEqual(['sh', '-c', PLAN_EXIT_WRAPPER, 'plan', '/kubelet-hash']);
    expect(command).toEqual(expect.arrayContaining(['--crio-root', graph, '--crio-runroot', run, '--node', 'node-a']));
    // The agent's arguments, with the pods file the init container writes.
    const podsFile = join(dir, 'crio', 'pods.json');
    writeFileSync(
      podsFile,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: pods.map((p) => ({ ...p, spec: { ...(p.spec as object), nodeName: 'node-a' } })),
      }),
    );
    const args = command.slice(5).map((a) => (a === '/work/pods.json' ? podsFile : a));
    const r = await cli(args);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const rows = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.at(-1)).toMatchObject({
      kind: 'kubelet-hash/plan-trailer',
      command: 'plan',
      node: 'node-a',
      rows: rows.length - 1,
    });
    expect(rows.slice(0, -1).every((row) => row['action'] === 'rewrite' || row['action'] === 'keep')).toBe(true);
    // Without the runroot the plan is refused (the Job as it was on main).
    const without = args.filter((a, i) => a !== '--crio-runroot' && args[i - 1] !== '--crio-runroot');
    const bare = await cli(without);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain('MISSING_RUNROOT');
    // And the report reads the log as the plan of node-a.
    const log = join(dir, 'crio', 'node-a.ndjson');
    writeFileSync(log, r.out);
    expect((await cli(['fleet', 'report', log, '--node', 'node-a'])).code).toBe(0);
    expect(readFileSync(log, 'utf8')).toContain('"node":"node-a"');
  });
});

describe('the plan container completes for NO-GO as for GO', () => {
  const shells = ['sh', 'bash', 'dash'].filter((s) => spawnSync(s, ['-c', 'true']).status === 0);
  it.each(shells)(
    '%s: plan exit 0 and 1 (findings: the verdict is in the log) complete, 2 and others fail',
    (shell) => {
      const status = (code: number): number | null =>
        spawnSync(shell, ['-c', PLAN_EXIT_WRAPPER, 'plan', 'sh', '-c', `echo row; exit ${code}`], { encoding: 'utf8' })
          .status;
      expect([0, 1, 2, 3, 127].map(status)).toEqual([0, 0, 2, 3, 127]);
      const out = spawnSync(shell, ['-c', PLAN_EXIT_WRAPPER, 'plan', 'printf', '%s|', 'a b', '$x'], {
        encoding: 'utf8',
      });
      // Arguments pass through as given: no word splitting, no expansion.
      expect(out.stdout).toBe('a b|$x|');
    },
  );
});

describe('--image', () => {
  it('a reference without a digest is refused unless --allow-mutable-image says so', async () => {
    const base = ['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--node', 'node-a'];
    for (const image of [
      'kubelet-hash:0.1.0',
      'registry.example/kubelet-hash:latest',
      `kubelet-hash@sha256:${'a'.repeat(63)}`,
    ]) {
      const r = await cli([...base, '--image', image]);
      expect(r.code, image).toBe(2);
      expect(r.err).toContain('--image: expected NAME@sha256:<64 hex digits>');
      expect(r.err).toContain(JSON.stringify(image));
      expect((await cli([...base, '--image', image, '--allow-mutable-image'])).code).toBe(0);
    }
    const none = await cli(base);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--image: the agent image by digest');
  });
});
