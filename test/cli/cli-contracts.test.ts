/**
 * The CLI's contracts as a script sees them: with --json/--ndjson stderr is exactly one JSON
 * document (warnings inside), option errors in our words with "did you mean", I/O errors naming
 * their file, uppercase hashes read as the kubelet reads them, and `predict` on old/new manifests.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { COMMANDS, outputSchema } from '../../src/cli/registry.js';
import { modelledGates } from '../../src/releases/index.js';
import { errorSchema, warningsSchema } from '../../src/cli/output-schema.js';
import { cli } from '../support/cli.js';

const F = 'test/fixtures/cli/';
const dir = mkdtempSync(join(tmpdir(), 'kh-contracts-'));
const deployment = (image: string, env?: { name: string; value: string }[]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'web', image, ...(env ? { env } : {}) },
          { name: 'log', image: 'busybox:1.36' },
        ],
      },
    },
  },
});
const file = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : stringify(value));
  return path;
};

describe('--json / --ndjson: stderr is one JSON document', () => {
  it('a warning goes into the --json document, not onto stderr', async () => {
    const r = await cli(['hash', '--json', '-k', '1.29', `${F}simple-pod-manifest.yaml`]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const doc = outputSchema().parse(JSON.parse(r.out)) as { warnings: string[] };
    expect(doc.warnings.length).toBeGreaterThan(0);
  });

  it('on an error, stderr parses as one document that also carries the warnings so far', async () => {
    const r = await cli([
      'changed',
      '--json',
      '-k',
      '1.29',
      '--status',
      `${F}status-nohash.json`,
      `${F}simple-pod-manifest.yaml`,
    ]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.err) as { warnings: string[] };
    errorSchema.parse(doc);
    expect(doc.warnings.length).toBeGreaterThan(0);
  });

  it('--ndjson: rows on stdout, the warnings as one JSON document on stderr', async () => {
    const r = await cli(['hash', '--ndjson', '-k', '1.29', `${F}simple-pod-manifest.yaml`]);
    expect(r.code).toBe(0);
    expect(warningsSchema.parse(JSON.parse(r.err)).warnings.length).toBeGreaterThan(0);
    for (const line of r.out.trim().split('\n')) JSON.parse(line);
  });
});

describe('option errors in our words, with did-you-mean', () => {
  const code = async (args: string[]) => {
    const r = await cli([...args, '--json']);
    expect(r.code).toBe(2);
    return errorSchema.parse(JSON.parse(r.err)).error;
  };

  it('a misspelled command, flag or gate names the closest one', async () => {
    expect((await code(['hsah', 'x'])).message).toContain('did you mean hash?');
    const flag = await code(['hash', '--kubelet-verison', '1.29', `${F}container.yaml`]);
    expect(flag.code).toBe('USAGE');
    expect(flag.message).toContain('has no option --kubelet-verison; did you mean --kubelet-version?');
    const gate = await code([
      'changed',
      '-k',
      '1.29',
      '--hash',
      '1',
      '--feature-gates',
      'InPlacePodVerticalScalng=true',
      `${F}container.yaml`,
    ]);
    expect(gate.code).toBe('UNKNOWN_FEATURE_GATE');
    expect(gate.detail).toContain('did you mean InPlacePodVerticalScaling?');
  });

  it('--feature-gates help lists every gate the release registry models (generated, not written by hand)', async () => {
    const help = await cli(['changed', '--help']);
    // The help wraps: the option's text runs from its flag to the next option.
    const text = help.out.replace(/\s+/g, ' ');
    const line = text.slice(text.indexOf('--feature-gates G=BOOL'), text.indexOf('ParseBool'));
    expect(modelledGates().length).toBeGreaterThanOrEqual(4);
    for (const gate of modelledGates()) expect(line).toContain(gate);
  });

  it("a missing value says what was expected, not node:util's text", async () => {
    const e = await code(['hash', `${F}container.yaml`, '-k']);
    expect(e.message).toBe('--kubelet-version expects a value (VERSION), got none');
    expect(e.message).not.toMatch(/parseArgs|ERR_PARSE_ARGS|To specify/);
  });

  it('library codes, not CLI-only ones: MISSING_HASH, UNKNOWN_FEATURE_GATE', async () => {
    expect(
      (await code(['changed', '-k', '1.29', '--status', `${F}status-nohash.json`, `${F}simple-pod.yaml`])).code,
    ).toBe('MISSING_HASH');
  });
});

describe('I/O errors name their file', () => {
  it('EISDIR from reading a directory', async () => {
    const r = await cli(['hash', '--json', dir]);
    expect(r.code).toBe(2);
    const e = errorSchema.parse(JSON.parse(r.err)).error;
    expect(e.code).toBe('EISDIR');
    expect(e.file).toBe(dir);
    const text = await cli(['hash', dir]);
    expect(text.err).toContain(dir);
  });

  it('a plan --out that cannot be written', async () => {
    const r = await cli([
      'plan',
      '--json',
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--pods',
      `${F}podlist.yaml`,
      '--out',
      dir,
      'fixtures/runtime/crictl-inspect-containerd.json',
    ]);
    expect(r.code).toBe(2);
    expect(errorSchema.parse(JSON.parse(r.err)).error.file).toBe(dir);
  });
});

describe('hashes', () => {
  it('uppercase hex is read as the kubelet reads it (strconv.ParseUint): the same verdict as lowercase', async () => {
    const lower = await cli(['identify', '--hash', 'f39e1ad', `${F}container.yaml`]);
    const upper = await cli(['identify', '--hash', 'F39E1AD', `${F}container.yaml`]);
    expect(upper.code).toBe(lower.code);
    expect(upper.out).toBe(lower.out.replaceAll('f39e1ad', 'F39E1AD'));
  });
});

describe('--apply-defaults without a token volume', () => {
  const dep = file('dep.yaml', deployment('nginx:1.27'));
  it('warns for a release that hashes the token mount, not with --token-volume none, not for 1.31+', async () => {
    const warned = await cli(['hash', '--json', '-k', '1.29', '--apply-defaults', dep]);
    const warnings = (JSON.parse(warned.out) as { warnings: string[] }).warnings;
    expect(warnings.some((w) => w.includes('added no service-account token mount'))).toBe(true);
    // (an empty LimitRange List: otherwise --apply-defaults warns that a LimitRange may set the resources)
    const noRanges = file('no-limit-ranges.json', { apiVersion: 'v1', kind: 'List', items: [] });
    const none = await cli([
      'hash',
      '--json',
      '-k',
      '1.29',
      '--apply-defaults',
      '--token-volume',
      'none',
      '--limit-ranges',
      noRanges,
      dep,
    ]);
    expect((JSON.parse(none.out) as { warnings: string[] }).warnings).toEqual([]);
    const later = await cli(['hash', '--json', '-k', '1.31', '--apply-defaults', dep]);
    expect((JSON.parse(later.out) as { warnings: string[] }).warnings).toEqual([]);
  });
});

describe('predict', () => {
  const before = file('before.yaml', deployment('nginx:1.27'));
  const imageBump = file('after.yaml', deployment('nginx:1.28'));
  const envOnly = file('env.yaml', deployment('nginx:1.27', [{ name: 'LEVEL', value: 'debug' }]));

  it('new manifests with no object are refused (exit 2), not a 0-of-0 all-clear', async () => {
    const empty = file('empty.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
    const r = await cli(['predict', '-k', '1.31', before, empty]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the new manifests hold no objects: nothing to compare');
  });

  const pod = (image: string, env?: { name: string; value: string }[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'shop' },
    spec: deployment(image, env).spec.template.spec,
  });
  const podBefore = file('pod-before.yaml', pod('nginx:1.27'));

  it('a Deployment template change replaces every pod, decided by the controller (exit 1), whatever the kubelet would do', async () => {
    for (const [k, after] of [
      ['1.31', imageBump],
      ['1.31', envOnly],
      ['1.30', envOnly],
    ] as const) {
      const r = await cli(['predict', '--json', '-k', k, before, after]);
      expect(r.code).toBe(1);
      const doc = outputSchema().parse(JSON.parse(r.out)) as {
        rows: { action: string; decidedBy: string; verdict: string; rolloutRuleId: string }[];
        summary: unknown;
      };
      expect(doc.rows.map((x) => [x.action, x.decidedBy, x.rolloutRuleId])).toEqual([
        ['replaced', 'controller', 'deployment-rollout'],
        ['replaced', 'controller', 'deployment-rollout'],
      ]);
      expect(doc.summary).toEqual({
        release: k,
        openKruise: null,
        objects: 1,
        restarts: 0,
        replaced: 1,
        deleted: 0,
        refused: 0,
        apiserver: null,
        disagreements: 0,
      });
    }
    // A change outside the template rolls nothing.
    const scaled = file('scaled.yaml', {
      ...deployment('nginx:1.27'),
      spec: { ...deployment('nginx:1.27').spec, replicas: 5 },
    });
    const r = await cli(['predict', '-k', '1.31', before, scaled]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^unchanged +controller +Deployment\/shop\/web +web +template-unchanged /m);
  });

  it('a Pod image bump is admitted by the apiserver, then restarts that container (exit 1)', async () => {
    const r = await cli(['predict', '--kubelet', '1.31', podBefore, file('pod-image.yaml', pod('nginx:1.28'))]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^restart +kubelet +Pod\/shop\/web-0 +web +hash /m);
    expect(r.out).toMatch(/^keep +kubelet +Pod\/shop\/web-0 +log /m);
  });

  it('a Pod env change is refused by the apiserver at spec.containers[0].env (exit 2, rows in --json)', async () => {
    const r = await cli([
      'predict',
      '--json',
      '-k',
      '1.31',
      podBefore,
      file('pod-env.yaml', pod('nginx:1.27', [{ name: 'LEVEL', value: 'debug' }])),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    const doc = outputSchema().parse(JSON.parse(r.out)) as {
      exitCode: number;
      rows: { action: string; decidedBy: string; field: string; reportedField: string }[];
    };
    expect(doc.exitCode).toBe(2);
    expect(doc.rows.map((x) => [x.action, x.decidedBy, x.field, x.reportedField])).toEqual([
      ['refused', 'apiserver', 'spec.containers[0].env', 'spec'],
      ['refused', 'apiserver', 'spec.containers[0].env', 'spec'],
    ]);
  });

  it('an OpenKruise CloneSet needs --openkruise; InPlaceIfPossible recreates for env, patches in place for an image', async () => {
    const cs = (image: string, env?: { name: string; value: string }[]) => ({
      ...deployment(image, env),
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      spec: { ...deployment(image, env).spec, updateStrategy: { type: 'InPlaceIfPossible' } },
    });
    const old = file('cs.yaml', cs('nginx:1.27'));
    const env = file('cs-env.yaml', cs('nginx:1.27', [{ name: 'LEVEL', value: 'debug' }]));
    const image = file('cs-image.yaml', cs('nginx:1.28'));
    const missing = await cli(['predict', '-k', '1.31', old, image]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('openKruise');
    const recreated = await cli(['predict', '-k', '1.31', '--openkruise', 'v1.8', old, env]);
    expect(recreated.code).toBe(1);
    expect(recreated.out).toMatch(/^replaced +controller +CloneSet\/shop\/web +web +kruise-recreate-fallback /m);
    const inPlace = await cli(['predict', '--json', '-k', '1.31', '--openkruise', 'v1.8', old, image]);
    expect(inPlace.code).toBe(1);
    const doc = outputSchema().parse(JSON.parse(inPlace.out)) as {
      rows: { action: string; decidedBy: string; verdict: string }[];
      summary: { restarts: number };
    };
    expect(doc.rows.map((x) => [x.action, x.decidedBy, x.verdict])).toEqual([
      ['restart', 'kubelet', 'in-place'],
      ['keep', 'kubelet', 'in-place'],
    ]);
    expect(doc.summary.restarts).toBe(1);
    // OpenKruise v1.8 hashes as Kubernetes 1.30 does; a 1.31 kubelet stores the name-and-image hash.
    const ready = (o: string) =>
      (JSON.parse(o) as { rows: { container: string; kruiseReady: string | null }[] }).rows.map((x) => [
        x.container,
        x.kruiseReady,
      ]);
    expect(ready(inPlace.out)).toEqual([
      ['web', 'image-id'],
      ['log', null],
    ]);
    const on130 = await cli(['predict', '--json', '-k', '1.30', '--openkruise', 'v1.8', old, image]);
    expect(ready(on130.out)).toEqual([
      ['web', 'hash'],
      ['log', null],
    ]);
    // A resize restart (memory under RestartContainer, both gates on) on 1.31: no hash matches, but the
    // image did not change, so Kruise's image-ID fallback does not wait for it.
    const sized = (memory: string) => {
      const o = cs('nginx:1.27');
      const web = o.spec.template.spec.containers[0]!;
      Object.assign(web, {
        resources: { requests: { memory }, limits: { memory } },
        resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
      });
      return o;
    };
    const resized = await cli([
      'predict',
      '--json',
      '-k',
      '1.31',
      '--feature-gates',
      'InPlacePodVerticalScaling=true',
      '--openkruise',
      'v1.8',
      '--openkruise-gates',
      'InPlaceWorkloadVerticalScaling=true',
      file('cs-64.yaml', sized('64Mi')),
      file('cs-128.yaml', sized('128Mi')),
    ]);
    expect(ready(resized.out)).toEqual([
      ['web', 'not-waited'],
      ['log', null],
    ]);
    const badGate = await cli([
      'predict',
      '-k',
      '1.31',
      '--openkruise',
      'v1.7',
      '--openkruise-gates',
      'InPlaceWorkloadVerticalScaling=true',
      old,
      image,
    ]);
    expect(badGate.code).toBe(2);
    expect(badGate.err).toContain('InPlaceWorkloadVerticalScaling');
  });

  it('reads standard input and Lists, pairing objects by kind, namespace and name', async () => {
    const list = (d: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items: d });
    const other = { ...pod('redis:7'), metadata: { name: 'cache', namespace: 'shop' } };
    const after = file('list-after.yaml', list([other, pod('nginx:1.28')]));
    const r = await cli(
      ['predict', '--json', '-k', '1.29', '-', after],
      JSON.stringify(list([pod('nginx:1.27'), other])),
    );
    const rows = (JSON.parse(r.out) as { rows: { object: string; container: string; action: string }[] }).rows;
    expect(rows.map((x) => [x.object, x.container, x.action])).toEqual([
      ['Pod/shop/cache', 'web', 'keep'],
      ['Pod/shop/cache', 'log', 'keep'],
      ['Pod/shop/web-0', 'web', 'restart'],
      ['Pod/shop/web-0', 'log', 'keep'],
    ]);
    expect(r.code).toBe(1);
  });

  it('edits that delete running pods are `delete` (exit 1), naming the pods where the objects say which', async () => {
    const sts = (replicas: number) => ({
      ...deployment('nginx:1.27'),
      kind: 'StatefulSet',
      spec: { ...deployment('nginx:1.27').spec, replicas },
    });
    const scaled = await cli(['predict', '--json', '-k', '1.31', file('sts5.yaml', sts(5)), file('sts3.yaml', sts(3))]);
    expect(scaled.code).toBe(1);
    const doc = outputSchema().parse(JSON.parse(scaled.out)) as {
      rows: { action: string; verdict: string; decidedBy: string; deletedPods: string[]; rolloutRuleId: string }[];
      summary: { deleted: number; replaced: number };
    };
    expect(doc.rows.map((x) => [x.action, x.verdict, x.decidedBy, x.rolloutRuleId, x.deletedPods])).toEqual([
      ['delete', 'delete', 'controller', 'workload-scaled-down', ['web-4', 'web-3']],
      ['delete', 'delete', 'controller', 'workload-scaled-down', ['web-4', 'web-3']],
    ]);
    expect(doc.summary).toMatchObject({ deleted: 1, replaced: 0 });

    // A Pod's deadline set below its age: admitted by the apiserver, then killed by the kubelet.
    const started = { ...pod('nginx:1.27'), status: { startTime: '2026-01-01T00:00:00Z' } };
    const deadline = { ...started, spec: { ...started.spec, activeDeadlineSeconds: 600 } };
    const [a, b] = [file('pod-started.yaml', started), file('pod-deadline.yaml', deadline)];
    const killed = await cli(['predict', '-k', '1.31', '--now', '2026-01-01T01:00:00Z', a, b]);
    expect(killed.code).toBe(1);
    expect(killed.out).toMatch(/^delete +kubelet +Pod\/shop\/web-0 +web +pod-active-deadline-exceeded /m);
    expect(killed.out).toContain('1 delete running pods (web-0)');
    const young = await cli(['predict', '-k', '1.31', '--now', '2026-01-01T00:05:00Z', a, b]);
    expect(young.code).toBe(0);
    const badNow = await cli(['predict', '-k', '1.31', '--now', 'yesterday', a, b]);
    expect(badNow.code).toBe(2);
    expect(badNow.err).toContain('"yesterday"');

    // A Job suspended: its active pods are deleted.
    const job = (suspend: boolean) => ({
      ...deployment('nginx:1.27'),
      apiVersion: 'batch/v1',
      kind: 'Job',
      spec: { ...deployment('nginx:1.27').spec, suspend },
    });
    const suspended = await cli(['predict', '-k', '1.31', file('job.yaml', job(false)), file('job-s.yaml', job(true))]);
    expect(suspended.code).toBe(1);
    expect(suspended.out).toMatch(/^delete +controller +Job\/shop\/web +web +job-suspended /m);
  });

  it('is documented like the other commands', () => {
    const predict = COMMANDS.find((c) => c.name === 'predict')!;
    expect(predict.finding).toBeDefined();
    expect(predict.operands.map((o) => o.name)).toEqual(['OLD', 'NEW']);
  });
});
