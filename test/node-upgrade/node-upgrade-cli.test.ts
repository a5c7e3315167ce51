/**
 * The in-place upgrade commands (plan → apply → verify → rollback) through the CLI, on a CRI-O node
 * laid out in CRI-O's on-disk format (no CRI-O package exists here; the real-containerd test runs
 * the same path on a real daemon). Exit codes: 0 done, 1 findings, 2 refused or bad input.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import type { NodeUpgradePlan } from '../../src/node-upgrade/index.js';
import { fingerprintFile } from '../../src/stores/fingerprint.js';
import { cli } from '../support/cli.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { crioSpec, writeCrioNode } from '../support/crio-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-upgrade-cli-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const pods = Array.from({ length: 12 }, (_, i) => fixturePod(i));
const fixtures = fixtureContainers(pods, '1.30');
const graph = join(dir, 'graph');
const run = join(dir, 'run');
const files = writeCrioNode(graph, run, fixtures);
const podsFile = writePodList(join(dir, 'pods.json'), pods);
const planFile = join(dir, 'plan.json');
const store = ['--crio-root', graph, '--crio-runroot', run];
const prints = () => Promise.all(files.map((f) => fingerprintFile(f)));

describe('kubelet-hash plan / apply / verify / rollback (CRI-O files)', () => {
  let original: string[];

  it('plan writes a versioned plan file, identical for the same node but for its audit stamp', async () => {
    original = await prints();
    const args = ['plan', '--from', '1.30', '--to', '1.31', '--pods', podsFile, ...store];
    const r = await cli([...args, '--out', planFile]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`keep 0, rewrite ${fixtures.length}, will-restart 0, unknown 0`);
    const text = readFileSync(planFile, 'utf8');
    // The audit stamp (time, command) is the one part that differs between two runs.
    const withoutAudit = (t: string) => {
      const { audit, digest, ...rest } = JSON.parse(t) as { audit: unknown; digest: Record<string, string> };
      expect(audit).toMatchObject({ host: expect.any(String), tool: expect.stringMatching(/^kubelet-hash /) });
      const { audit: _a, ...digested } = digest;
      return { ...rest, digest: digested };
    };
    expect(withoutAudit((await cli([...args, '--out', '-'])).out)).toEqual(withoutAudit(text));
    const plan = JSON.parse(text) as NodeUpgradePlan;
    expect(plan).toMatchObject({
      kind: 'kubelet-hash/upgrade-plan',
      version: 1,
      from: '1.30',
      to: '1.31',
      store: { runtime: 'cri-o', graphRoot: graph, runRoot: run },
    });
    const e = plan.entries.find((x) => x.containerId === fixtures[0]!.id);
    expect(e).toMatchObject({
      action: 'rewrite',
      runtime: 'cri-o',
      podUid: fixtures[0]!.pod.metadata.uid,
      containerName: fixtures[0]!.container.name,
      observed: { hash: fixtures[0]!.hash },
      computed: { from: fixtures[0]!.hash, to: hashContainer(fixtures[0]!.container, { kubeletVersion: '1.31' }) },
    });
    expect(e?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(Object.keys(plan)).toEqual([...Object.keys(plan)].sort());
    expect(await prints()).toEqual(original);
  });

  it('verify: the 1.30 kubelet keeps every container; the 1.31 one would restart them (exit 1)', async () => {
    expect((await cli(['verify', '--kubelet', '1.30', '--pods', podsFile, ...store])).code).toBe(0);
    const r = await cli(['verify', '--kubelet', '1.31', '--pods', podsFile, ...store]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`0 of ${fixtures.length} containers keep running`);
  });

  it('apply --dry-run checks and writes nothing', async () => {
    const r = await cli(['apply', planFile, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`# dry run: would rewrite ${fixtures.length} records`);
    expect(await prints()).toEqual(original);
  });

  it('apply refuses a plan whose records changed (exit 2), writing nothing', async () => {
    const changed = files[4]!;
    const before = readFileSync(changed, 'utf8');
    writeFileSync(
      changed,
      before.replace('"io.kubernetes.container.restartCount": "0"', '"io.kubernetes.container.restartCount": "1"'),
    );
    const r = await cli(['apply', planFile]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('STORE_CHANGED');
    writeFileSync(changed, before);
    expect(await prints()).toEqual(original);
  });

  it('apply rewrites every record with backups; verify then passes for 1.31; rollback restores the bytes', async () => {
    const r = await cli(['apply', planFile]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`# rewrote ${fixtures.length} records`);
    expect(r.out).toContain(`${planFile}.backup`);
    expect((await cli(['verify', '--kubelet', '1.31', '--pods', podsFile, ...store])).code).toBe(0);
    expect(await prints()).not.toEqual(original);
    const back = await cli(['rollback', planFile]);
    expect(back.code).toBe(0);
    expect(back.out).toContain(`# restored ${fixtures.length} records, each read back as it was before apply`);
    expect(await prints()).toEqual(original);
  });

  it('plan exits 1 when containers will restart or are unknown', async () => {
    const odd = fixtureContainers([fixturePod(99)], '1.30', 99)[0]!;
    const graph2 = join(dir, 'graph2');
    writeCrioNode(graph2, join(dir, 'run2'), [odd]);
    // The API pod now runs a different image than the container was created from.
    const pod = structuredClone(odd.pod);
    pod.spec.containers[0]!.image = 'registry.example.com/other:9';
    const podsOdd = join(dir, 'pods-odd.json');
    writeFileSync(podsOdd, JSON.stringify([pod]));
    const r = await cli(
      planArgs({
        podsFile: podsOdd,
        store: ['--crio-root', graph2, '--crio-runroot', join(dir, 'run2')],
        out: join(dir, 'odd.json'),
      }),
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^unknown/m);
  });

  it('a plan from record files can be written but not applied; a malformed plan is bad input', async () => {
    const record = join(dir, 'record.json');
    writeFileSync(
      record,
      JSON.stringify({
        status: {
          id: fixtures[0]!.id,
          labels: fixtures[0]!.labels,
          annotations: { 'io.kubernetes.container.hash': fixtures[0]!.hash },
        },
      }),
    );
    const out = join(dir, 'records-plan.json');
    // Pod 0's second container has no record given: unknown, so exit 1; the plan is written anyway.
    expect((await cli(['plan', '--from', '1.30', '--to', '1.31', '--pods', podsFile, '--out', out, record])).code).toBe(
      1,
    );
    expect((JSON.parse(readFileSync(out, 'utf8')) as NodeUpgradePlan).store).toEqual({
      runtime: 'records',
      files: [record],
    });
    const r = await cli(['apply', out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('INVALID_OPTION');
    const bad = join(dir, 'bad-plan.json');
    writeFileSync(bad, '{"kind":"kubelet-hash/upgrade-plan","version":7}');
    expect((await cli(['apply', bad])).code).toBe(2);
    expect((await cli(planArgs({ podsFile, store: ['--crio-root', graph, '--docker-root', dir] }))).code).toBe(2);
  });

  it('the sandbox config next to the containers is not a record', async () => {
    const f = fixtures[0]!;
    const d = join(graph, 'overlay-containers', f.sandboxId, 'userdata');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'config.json'), crioSpec({ ...f, id: f.sandboxId }, 'sandbox'));
    const r = await cli(['plan', '--from', '1.30', '--to', '1.31', '--pods', podsFile, ...store, '--out', '-']);
    expect((JSON.parse(r.out) as NodeUpgradePlan).entries).toHaveLength(fixtures.length);
  });
});

describe('restart causes outside the hash count in plan and verify (--accept-cause)', () => {
  // Pod 0 gains a readiness probe: the 1.31 kubelet's restart flaps its readiness (ChangeContainerStatusOnKubeletRestart
  // on through 1.34, pkg/features/kube_features.go), a cause outside the hash.
  const probed = pods.slice(0, 2).map((p, i) =>
    i === 0
      ? {
          ...p,
          spec: {
            ...p.spec,
            containers: p.spec.containers.map((c: Record<string, unknown>) => ({
              ...c,
              readinessProbe: { httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 5 },
            })),
          },
        }
      : p,
  );
  const node = join(dir, 'causes');
  const root = writeContainerdNode(join(node, 'containerd'), fixtureContainers(probed, '1.30'));
  const list = writePodList(join(node, 'pods.json'), probed);
  const at = ['--pods', list, '--containerd-root', root];

  it('plan: every container kept or rewritten, yet exit 1 naming the readiness flap; --accept-cause readiness-flap lists it as accepted, exit 0', async () => {
    const r = await cli(['plan', '--from', '1.30', '--to', '1.31', ...at]);
    expect(r.out).toContain('will-restart 0, unknown 0');
    expect(r.out).toMatch(/# restart cause readiness-flap \(expected, targets ≤ 1\.34.*\) pod default\/[\w-]+:/);
    expect(r.out).toContain('# restart causes: 1 counted');
    expect(r.code).toBe(1);
    const accepted = await cli(['plan', '--from', '1.30', '--to', '1.31', ...at, '--accept-cause', 'readiness-flap']);
    expect(accepted.out).toMatch(/# restart cause readiness-flap \(accepted,/);
    expect(accepted.out).toContain('# restart causes: 0 counted, 1 accepted');
    expect(accepted.code).toBe(0);
    // The --ndjson trailer carries the counted causes (fleet report holds the node); accepted ones stay out.
    const trailerOf = async (...extra: string[]) => {
      const out = (await cli(['plan', '--from', '1.30', '--to', '1.31', ...at, ...extra, '--ndjson'])).out;
      return JSON.parse(out.trimEnd().split('\n').at(-1)!) as { restartCauses: { kind: string }[] };
    };
    expect((await trailerOf()).restartCauses.map((c) => c.kind)).toEqual(['readiness-flap']);
    expect((await trailerOf('--accept-cause', 'readiness-flap')).restartCauses).toEqual([]);
    const json = await cli([
      'plan',
      '--from',
      '1.30',
      '--to',
      '1.31',
      ...at,
      '--accept-cause',
      'readiness-flap',
      '--json',
    ]);
    const summary = (JSON.parse(json.out) as { summary: { restartCauses: { kind: string; accepted: boolean }[] } })
      .summary;
    expect(summary.restartCauses.map((c) => `${c.kind} ${c.accepted}`)).toEqual(['readiness-flap true']);
  });

  it('verify: the same kubelet restarting flaps it too (exit 1 until accepted); a 1.35 kubelet keeps the status (ChangeContainerStatusOnKubeletRestart off)', async () => {
    expect((await cli(['verify', '--kubelet', '1.30', ...at])).code).toBe(1);
    expect((await cli(['verify', '--kubelet', '1.30', ...at, '--accept-cause', 'readiness-flap'])).code).toBe(0);
    const later = await cli(['plan', '--from', '1.30', '--to', '1.35', ...at]);
    expect(later.out).not.toContain('restart cause');
    // The gate, modelled from 1.35 (deprecated, off), turns the flap back on; 1.34 has no such gate.
    const gated = ['--feature-gates', 'ChangeContainerStatusOnKubeletRestart=true'];
    const on = await cli(['plan', '--from', '1.30', '--to', '1.35', ...at, ...gated]);
    expect(on.out).toMatch(/# restart cause readiness-flap \(expected/);
    expect((await cli(['plan', '--from', '1.30', '--to', '1.34', ...at, ...gated])).code).toBe(2);
  });

  it('--accept-cause names a cause class or is a usage error (exit 2)', async () => {
    const r = await cli(['plan', '--from', '1.30', '--to', '1.31', ...at, '--accept-cause', 'readiness']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--accept-cause: one of device-plugin-readmission, .*readiness-flap.*; got "readiness"/);
  });
});
