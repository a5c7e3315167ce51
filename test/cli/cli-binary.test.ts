/**
 * The built `kubelet-hash` binary, run as a child process on the fixtures of test/fixtures/cli:
 * every command, every input kind, `--json` parsed back against the documented schema, every exit
 * code, and each misuse refused with exit 2. Expected hashes are oracle rows.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { COMMANDS, outputSchema } from '../../src/cli/registry.js';
import { errorSchema } from '../../src/cli/output-schema.js';
import { supportedReleases } from '../../src/index.js';
import { runBin, type BinResult } from '../support/cli-bin.js';
import { oracleCase, oracleRow } from '../support/oracle.js';

const F = 'test/fixtures/cli/';
const sampleJson = JSON.stringify(oracleCase('k8s-sampleContainer').container);
const row = (id: string, v: string): { hash: string; hashWithoutResources?: string } => oracleRow(id, v);
/** The `hash` field of one --ndjson line. */
const hashOf = (line: string): unknown => (JSON.parse(line) as { hash?: unknown }).hash;

interface Doc {
  command: string;
  exitCode: number;
  warnings: string[];
  rows: Record<string, unknown>[];
  summary: unknown;
}

/** Parses a --json stdout document against the documented schema. */
function doc(r: BinResult): Doc {
  // With --json, stderr holds nothing on success: warnings are in the document.
  expect(r.err).toBe('');
  return outputSchema().parse(JSON.parse(r.out)) as Doc;
}

/** The --json error document on stderr; checks exit 2 and an empty stdout. */
function errorDoc(r: BinResult) {
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  // stderr is exactly one JSON document: no warning line before it.
  return errorSchema.parse(JSON.parse(r.err)).error;
}

describe('help and version', () => {
  it('--help and -h print the program usage on stdout with exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await runBin(args);
      expect(r.code).toBe(0);
      expect(r.out).toContain('usage: kubelet-hash COMMAND');
      for (const c of COMMANDS) expect(r.out).toContain(`  ${c.name} `);
    }
  });

  it('every command has --help and -h (exit 0, usage on stdout), also as `help COMMAND`', async () => {
    for (const c of COMMANDS) {
      for (const args of [
        [c.name, '--help'],
        [c.name, '-h'],
        ['help', c.name],
        [c.name, '--bogus', '-h'],
      ]) {
        const r = await runBin(args);
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.out.startsWith(`usage: kubelet-hash ${c.name}`)).toBe(true);
        expect(r.out).toContain('exit codes:');
        expect(r.err).toBe('');
      }
    }
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(await runBin(['--version'])).toEqual({ code: 0, out: `kubelet-hash ${pkg.version}\n`, err: '' });
  });

  it('no command: usage on stderr, exit 2', async () => {
    const r = await runBin([]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('usage: kubelet-hash COMMAND');
  });
});

describe('inputs', () => {
  it('JSON on stdin: the oracle hash of every release, with hashWithoutResources exactly where a release has it', async () => {
    const d = doc(await runBin(['hash', '--json', '-'], { stdin: sampleJson }));
    expect(d.command).toBe('hash');
    expect(d.rows.map((r) => r['release'])).toEqual(supportedReleases());
    for (const r of d.rows) {
      const expected = row('k8s-sampleContainer', r['release'] as string);
      expect(r['hash']).toBe(expected.hash);
      expect(r['hashWithoutResources']).toBe(expected.hashWithoutResources ?? null);
    }
    expect(d.rows.filter((r) => r['hashWithoutResources'] !== null).map((r) => r['release'])).toEqual([
      '1.27',
      '1.28',
      '1.29',
      '1.30',
    ]);
  });

  it('a YAML container (YAML 1.1 `yes` read as true) hashes like its JSON', async () => {
    for (const v of ['1.8', '1.15', '1.29', '1.31']) {
      const r = await runBin(['hash', '-k', v, '--ndjson', `${F}container.yaml`]);
      expect(r.code).toBe(0);
      expect(hashOf(r.out)).toBe(row('k8s-sampleContainer', v).hash);
    }
  });

  it('YAML on stdin', async () => {
    const r = await runBin(['hash', '-k', '1.20', '-'], { stdin: readFileSync(`${F}container.yaml`, 'utf8') });
    expect(r.code).toBe(0);
    expect(r.out).toContain(row('k8s-sampleContainer', '1.20').hash);
  });

  it('a multi-document stream: every workload kind, the empty document skipped', async () => {
    const d = doc(await runBin(['hash', '-k', '1.29', '--json', `${F}workloads.yaml`]));
    expect(d.rows.map((r) => `${String(r['kind'])}/${String(r['pod'])}`)).toEqual([
      'Deployment/deployment-apps',
      'StatefulSet/statefulset-apps',
      'DaemonSet/daemonset-apps',
      'ReplicaSet/replicaset-apps',
      'Job/job-batch',
      'CloneSet/cloneset-apps-kruise-io',
      'StatefulSet/statefulset-apps-kruise-io',
      'DaemonSet/daemonset-apps-kruise-io',
      'CronJob/nightly',
      'PodTemplate/tmpl',
    ]);
    expect(d.rows.map((r) => r['document'])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(d.rows.map((r) => r['hash']))).toEqual(new Set([row('k8s-sampleContainer', '1.29').hash]));
    expect(d.rows[8]!['path']).toBe('.spec.jobTemplate.spec.template.spec.containers[0]');
    // Templates lack the apiserver's defaults: said once on stderr and in the document.
    expect(d.warnings).toHaveLength(1);
    expect(d.warnings[0]).toContain('10 containers');
  });

  it('a List (kubectl get pods -o yaml), NDJSON, and several files at once', async () => {
    const pair = (id: string) => ({
      hash: row(id, '1.29').hash,
      hashWithoutResources: row(id, '1.29').hashWithoutResources ?? null,
    });
    const expected = [
      ['simple-pod', pair('real-cri-dockerd-simple-pod-2024')],
      ['nginx', pair('real-containerd-nginx-2022')],
    ];
    for (const file of [`${F}podlist.yaml`, `${F}pods.ndjson`]) {
      const d = doc(await runBin(['hash', '-k', '1.29', '--json', file]));
      expect(
        d.rows.map((r) => [r['pod'], { hash: r['hash'], hashWithoutResources: r['hashWithoutResources'] }]),
      ).toEqual(expected);
      expect(d.warnings).toEqual([]);
    }
    const both = doc(
      await runBin(['hash', '-k', '1.29', '-k', '1.31', '--json', `${F}podlist.yaml`, `${F}simple-pod.yaml`]),
    );
    expect(both.rows).toHaveLength(6);
    expect(both.rows[4]).toMatchObject({
      file: `${F}simple-pod.yaml`,
      release: '1.29',
      hash: '62b86e75',
      line: 11,
      column: 5,
    });
    const table = await runBin(['hash', '-k', '1.29', `${F}podlist.yaml`]);
    expect(table.out.split('\n')[0]).toMatch(/^POD +CONTAINER +RELEASE +HASH +WITHOUT-RESOURCES$/);
    expect(table.out).toMatch(/default\/nginx +nginx +1\.29 +9624f5a5 +9624f5a5/);
  });

  it('a file that starts with a byte-order mark', async () => {
    const r = await runBin(['hash', '-k', '1.29', '--ndjson', '-'], { stdin: '\ufeff' + sampleJson });
    expect(hashOf(r.out)).toBe('311670a');
  });
});

describe('errors point at file, line and column', () => {
  it('broken YAML', async () => {
    const r = await runBin(['hash', `${F}broken.yaml`]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`${F}broken.yaml:5:1: INVALID_YAML`);
    expect(r.err).toContain('5 | ports:');
    const e = errorDoc(await runBin(['hash', '--json', `${F}broken.yaml`]));
    expect(e).toMatchObject({ code: 'INVALID_YAML', file: `${F}broken.yaml`, line: 5, column: 1 });
  });

  it('a bad value deep in a YAML PodList: nothing on stdout, the error at its line and column', async () => {
    const r = await runBin(['hash', '-k', '1.29', `${F}podlist-bad.yaml`]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(
      `${F}podlist-bad.yaml:50:16: INVALID_QUANTITY at .items[1].spec.containers[0].resources.limits.cpu`,
    );
    expect(r.err).toMatch(/50 \| {11}cpu: lots\n {5}\| {16}\^/);
    const e = errorDoc(await runBin(['hash', '--ndjson', `${F}podlist-bad.yaml`]));
    expect(e).toMatchObject({
      name: 'QuantityError',
      code: 'INVALID_QUANTITY',
      path: '.items[1].spec.containers[0].resources.limits.cpu',
      line: 50,
      column: 16,
    });
  });

  it('a bad value in JSON', async () => {
    const e = errorDoc(
      await runBin(['hash', '-k', '1.20', '--json', '-'], { stdin: '{"name":"a","ports":[{"containerPort":"80"}]}' }),
    );
    expect(e).toMatchObject({ code: 'INVALID_TYPE', path: '.ports[0].containerPort', file: '-', line: 1, column: 39 });
  });
});

describe('commands', () => {
  it('example --json is one valid JSON document', async () => {
    const r = await runBin(['example', '--json']);
    expect(r.code).toBe(0);
    const d = doc(r);
    expect(d.rows).toHaveLength(3 * supportedReleases().length);
    expect(d.rows[0]).toMatchObject({
      file: 'examples/pod.json',
      pod: 'web',
      container: 'migrate',
      list: 'initContainers',
    });
    expect((await runBin(['example', '-k', '1.31'])).out).toMatch(/^# examples\/pod\.json/);
  });

  it('example (npm start) prints release ranges: one row per container and run of releases storing the same hashes', async () => {
    const r = await runBin(['example']);
    expect(r.code).toBe(0);
    const migrate = r.out.split('\n').filter((l) => l.includes('migrate (init)'));
    expect(migrate.map((l) => l.split(/\s{2,}/).slice(2))).toEqual([
      ['1.8', 'a89873aa', '-'],
      ['1.9–1.15', '9091501c', '-'],
      ['1.16–1.26', '1ee6e12c', '-'],
      ['1.27–1.30', '1ee6e12c', '1ee6e12c'],
      ['1.31–1.37', 'bead3064', '-'],
    ]);
    // Three containers: at most six rows each, where one per release was thirty.
    expect(
      r.out
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('default/web')).length,
    ).toBeLessThanOrEqual(18);
  });

  it('preimage: legacy text, --hashed bytes, --json', async () => {
    const legacy = await runBin(['preimage', '-k', '1.8', '-'], { stdin: sampleJson });
    expect(legacy.out).toBe(oracleRow('k8s-sampleContainer', '1.8').preimage + '\n');
    const hashed = await runBin(['preimage', '-k', '1.31', '--hashed', '-'], { stdin: sampleJson });
    expect(hashed.out.trim()).toMatch(/^\(\[\]uint8\)\[123 34 105 109 /);
    const d = doc(await runBin(['preimage', '-k', '1.20', '--json', '-c', 'nginx', `${F}podlist.yaml`]));
    expect(d.rows[0]).toMatchObject({
      container: 'nginx',
      release: '1.20',
      hashed: false,
      preimage: oracleRow('real-containerd-nginx-2022', '1.20').preimage,
    });
  });

  it('releases: a table and --json', async () => {
    expect((await runBin(['releases'])).out.split('\n')[1]).toMatch(/^1\.8 +legacy +no/);
    const d = doc(await runBin(['releases', '--json']));
    expect(d.rows.map((r) => r['release'])).toEqual(supportedReleases());
  });

  it('changed: exit 0 to keep, 1 to restart; --hash, --status, --record, Go bool gate values', async () => {
    const keep = await runBin(['changed', '-k', '1.29', '--status', `${F}status.yaml`, `${F}simple-pod.yaml`]);
    expect(keep).toMatchObject({ code: 0, out: 'keep: default/simple-pod simple-pod: hash unchanged (62b86e75)\n' });
    const restart = await runBin([
      'changed',
      '-k',
      '1.31',
      '--json',
      '--record',
      'fixtures/runtime/docker-inspect.json',
      `${F}simple-pod.yaml`,
    ]);
    expect(restart.code).toBe(1);
    expect(doc(restart).rows[0]).toMatchObject({
      changed: true,
      expected: row('real-cri-dockerd-simple-pod-2024', '1.31').hash,
      actual: '62b86e75',
      source: 'fixtures/runtime/docker-inspect.json',
    });
    for (const value of ['True', '1', 't', 'TRUE']) {
      const r = await runBin(
        [
          'changed',
          '-k',
          '1.29',
          '--hash',
          '1',
          '--hash-without-resources',
          'e8022015',
          '--feature-gates',
          `InPlacePodVerticalScaling=${value}`,
          '-',
        ],
        { stdin: sampleJson },
      );
      expect(r.code, value).toBe(0);
    }
    const off = await runBin(
      [
        'changed',
        '-k',
        '1.29',
        '--hash',
        '1',
        '--hash-without-resources',
        'e8022015',
        '--feature-gates',
        'InPlacePodVerticalScaling=0',
        '-',
      ],
      { stdin: sampleJson },
    );
    expect(off.code).toBe(1);
  });

  it('changed --record in a node-wide docker inspect matches by pod identity, not container name', async () => {
    const node = `${F}docker-inspect-node.json`;
    // The canary pod's container has the same name and another hash; the Pod's uid picks the right one.
    expect((await runBin(['changed', '-k', '1.29', '--record', node, `${F}simple-pod.yaml`])).code).toBe(0);
    const canary = readFileSync(`${F}simple-pod.yaml`, 'utf8')
      .replace('name: simple-pod\n  namespace', 'name: simple-pod-canary\n  namespace')
      .replace('be386bc7-67d4-4ae1-858e-db898508c204', '5d0a8c3e-1111-4c2b-9e57-0f2a7b6c9d10');
    const r = await runBin(['changed', '-k', '1.29', '--json', '--record', node, '-'], { stdin: canary });
    expect(r.code).toBe(1);
    expect(doc(r).rows[0]).toMatchObject({ actual: '1f2e3d4c', changed: true });
  });

  it('translate: verified translation; a spec that does not give --observed is refused', async () => {
    expect(
      await runBin(['translate', '--from', '1.30', '--to', '1.31', '--observed', '311670a', '-'], {
        stdin: sampleJson,
      }),
    ).toMatchObject({ code: 0, out: '8e45cbd0\n' });
    const e = errorDoc(
      await runBin(['translate', '--json', '--from', '1.15', '--to', '1.31', '--observed', '311670a', '-'], {
        stdin: sampleJson,
      }),
    );
    expect(e.code).toBe('HASH_MISMATCH');
    const d = doc(await runBin(['translate', '--from', '1.8', '--to', '1.36', '--json', `${F}podlist.yaml`]));
    expect(d.rows.map((r) => [r['container'], r['hash']])).toEqual([
      ['simple-pod', row('real-cri-dockerd-simple-pod-2024', '1.36').hash],
      ['nginx', row('real-containerd-nginx-2022', '1.36').hash],
    ]);
  });

  it('identify: releases oldest first; exit 1 when none matches', async () => {
    const r = await runBin(['identify', '--hash', 'f39e1ad', '-'], { stdin: sampleJson });
    expect(r.out.trim().split('\n')).toEqual(['1.9', '1.10', '1.11', '1.12', '1.13', '1.14', '1.15']);
    const none = await runBin(['identify', '--json', '--hash', 'abc', '-'], { stdin: sampleJson });
    expect(none.code).toBe(1);
    expect(doc(none)).toMatchObject({ exitCode: 1, summary: { identified: 0 } });
  });

  it('explain', async () => {
    const c = JSON.stringify({ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/v' }] });
    expect((await runBin(['explain', '--from', '1.13', '--to', '1.14', '-'], { stdin: c })).out).toContain(
      'v1.VolumeMount.SubPathExpr',
    );
    const d = doc(await runBin(['explain', '--from', '1.15', '--to', '1.16', '--json', '-'], { stdin: c }));
    expect((d.rows[0]!['reasons'] as { kind: string }[])[0]!.kind).toBe('algorithm');
  });

  it('plan: a running API pod without a record is unknown (exit 1); exit 0 once every container is joined; an unreadable record is listed', async () => {
    const record = 'fixtures/runtime/crictl-inspect-containerd.json';
    const both = await runBin(['plan', '--from', '1.30', '--to', '1.31', '--pods', `${F}podlist.yaml`, record]);
    expect(both.code).toBe(1);
    expect(both.out).toMatch(/rewrite +default\/nginx +nginx +9624f5a5 +a564281e/);
    expect(both.out).toMatch(
      /unknown +default\/simple-pod +simple-pod .*no runtime record: wrong --namespace or runtime root\?/,
    );
    const nginxOnly = (
      parse(readFileSync(`${F}podlist.yaml`, 'utf8')) as { items: { metadata: { name: string } }[] }
    ).items.filter((p) => p.metadata.name === 'nginx');
    const ok = await runBin(['plan', '--from', '1.30', '--to', '1.31', '--pods', '-', record], {
      stdin: JSON.stringify({ kind: 'List', items: nginxOnly }),
    });
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('# 1.30 -> 1.31: keep 0, rewrite 1, will-restart 0, unknown 0');
    const bad = await runBin(
      ['plan', '--json', '--from', '1.30', '--to', '1.31', '--pods', '-', record, `${F}broken.yaml`],
      { stdin: JSON.stringify({ kind: 'List', items: nginxOnly }) },
    );
    expect(bad.code).toBe(1);
    const d = doc(bad);
    expect(d.rows.map((r) => [r['action'], r['location']])).toEqual([
      ['rewrite', resolve(record)],
      ['unknown', resolve(`${F}broken.yaml`)],
    ]);
    expect(d.summary).toMatchObject({ counts: { rewrite: 1, unknown: 1 }, out: null });
  });

  it('--ndjson: one row per line, each valid against the command row schema', async () => {
    const r = await runBin(['hash', '--ndjson', `${F}podlist.yaml`]);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(2 * supportedReleases().length);
    const schema = COMMANDS.find((c) => c.name === 'hash')!.output.row;
    for (const l of lines) schema.parse(JSON.parse(l));
  });
});

describe('misuse: exit 2', () => {
  const pod = `${F}simple-pod.yaml`;
  const cases: [string, string[], string, string?][] = [
    ['unknown command', ['hsah', 'x'], 'USAGE'],
    ['unknown option', ['hash', '--bogus', pod], 'USAGE'],
    ['missing operand', ['hash'], 'USAGE'],
    ['missing required option', ['changed', '--hash', '1', pod], 'USAGE'],
    ['--json with --ndjson', ['hash', '--ndjson', '--json', pod], 'USAGE'],
    ['file not found', ['hash', '/nonexistent/pod.yaml'], 'ENOENT'],
    ['malformed --hash', ['changed', '-k', '1.29', '--hash', 'xyz', pod], 'INVALID_HASH'],
    ['malformed --hash (sign)', ['changed', '-k', '1.29', '--hash=-1', pod], 'INVALID_HASH'],
    [
      'malformed --observed',
      ['translate', '--from', '1.29', '--to', '1.31', '--observed', '0x12', pod],
      'INVALID_HASH',
    ],
    ['malformed identify --hash', ['identify', '--hash', 'zz', pod], 'INVALID_HASH'],
    [
      'unknown feature gate',
      ['changed', '-k', '1.29', '--hash', '62b86e75', '--feature-gates', 'InPlacePodVerticalScalng=true', pod],
      'UNKNOWN_FEATURE_GATE',
    ],
    [
      'gate value Go does not parse',
      ['changed', '-k', '1.29', '--hash', '62b86e75', '--feature-gates', 'SidecarContainers=yes', pod],
      'INVALID_OPTION',
    ],
    ['status without a hash', ['changed', '-k', '1.29', '--status', `${F}status-nohash.json`, pod], 'MISSING_HASH'],
    [
      'record without a hash',
      ['changed', '-k', '1.29', '--record', `${F}docker-inspect-nohash.json`, pod],
      'MISSING_HASH',
    ],
    [
      'record of several pods, no Pod to match',
      ['changed', '-k', '1.29', '--record', `${F}docker-inspect-node.json`, `${F}container.yaml`],
      'AMBIGUOUS_RECORD',
    ],
    [
      'record of another pod',
      ['changed', '-k', '1.29', '--record', 'fixtures/runtime/crictl-inspect-containerd.json', pod],
      'RECORD_MISMATCH',
    ],
    ['several containers where one is needed', ['preimage', '-k', '1.29', `${F}podlist.yaml`], 'USAGE'],
    ['no such container', ['hash', '-c', 'nope', pod], 'USAGE'],
    ['unsupported release', ['hash', '-k', '1.7', pod], 'UNSUPPORTED_RELEASE'],
    [
      'gate the release does not have',
      ['changed', '-k', '1.26', '--hash', '62b86e75', '--feature-gates', 'InPlacePodVerticalScaling=true', pod],
      'UNKNOWN_FEATURE_GATE',
    ],
    ['duplicate YAML key', ['hash', '-'], 'INVALID_YAML', 'name: a\nimage: x\nname: b\n'],
    ['standard input twice', ['hash', '-', '-'], 'USAGE', 'name: a\n'],
  ];
  it.each(cases)('%s', async (_what, args, code, stdin) => {
    if (!args.includes('--json')) {
      const text = await runBin(args, stdin === undefined ? {} : { stdin });
      expect(text.code).toBe(2);
      expect(text.out).toBe('');
      expect(text.err).toMatch(/error: /);
    }
    const e = errorDoc(await runBin([...args, '--json'], stdin === undefined ? {} : { stdin }));
    expect(e.code).toBe(code);
  });

  it('usage errors show the usage line', async () => {
    const r = await runBin(['changed', '--hash', '1', pod]);
    expect(r.err).toContain('--kubelet-version is required');
    expect(r.err).toContain('usage: kubelet-hash changed');
  });
});

describe('--apply-defaults and --token-volume', () => {
  it('nginx with its token mount, defaulted for 1.24, hashes to the observed 9624f5a5', async () => {
    const args = ['hash', '-k', '1.24', '--ndjson', '--token-volume', 'kube-api-access-75rfs'];
    const stdin = '{"name":"nginx","image":"nginx"}';
    // The namespace's LimitRanges (none here) are cluster state: given, nothing is assumed.
    const dir = mkdtempSync(join(tmpdir(), 'kh-nginx-'));
    const noRanges = join(dir, 'no-limit-ranges.json');
    writeFileSync(noRanges, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
    const r = await runBin([...args, '--limit-ranges', noRanges, '-'], { stdin });
    expect(r.code).toBe(0);
    expect(hashOf(r.out)).toBe('9624f5a5');
    expect(r.err).toBe('');
    // Not given: the same hash, and one warning that it assumes no LimitRange set the resources.
    const assumed = await runBin([...args, '-'], { stdin });
    expect(hashOf(assumed.out)).toBe('9624f5a5');
    expect((JSON.parse(assumed.err) as { warnings: string[] }).warnings).toEqual([
      expect.stringContaining('give --limit-ranges FILE'),
    ]);
  });

  it('the simple-pod manifest as written hashes to the observed 62b86e75 once defaulted, and matches its docker record', async () => {
    const manifest = `${F}simple-pod-manifest.yaml`;
    const flags = ['--apply-defaults', '--token-volume', 'kube-api-access-qj5tq'];
    const d = doc(await runBin(['hash', '--json', ...flags, manifest]));
    for (const r of d.rows)
      expect(r['hash'], r['release'] as string).toBe(
        row('real-cri-dockerd-simple-pod-2024', r['release'] as string).hash,
      );
    expect(d.warnings).toEqual([]);
    expect(
      (await runBin(['changed', '-k', '1.29', ...flags, '--record', 'fixtures/runtime/docker-inspect.json', manifest]))
        .code,
    ).toBe(0);
    // As written, the manifest is not what the kubelet hashed: a different hash and a warning.
    const raw = await runBin(['hash', '-k', '1.29', '--ndjson', manifest]);
    expect(hashOf(raw.out)).not.toBe('62b86e75');
    expect(raw.err).toContain('--apply-defaults');
  });
});

describe('warnings', () => {
  it('a pod manifest without the token mount is hashed with a warning on stderr', async () => {
    const manifest = JSON.stringify({
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [
          {
            ...(oracleCase('k8s-sampleContainer').container as object),
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'IfNotPresent',
          },
        ],
      },
    });
    const r = await runBin(['hash', '-k', '1.29', '-'], { stdin: manifest });
    expect(r.code).toBe(0);
    expect(r.err).toContain('no service-account token mount');
    // 1.31+ hashes only name and image: nothing to warn about.
    expect((await runBin(['hash', '-k', '1.31', '-'], { stdin: manifest })).err).toBe('');
  });

  it('progress is not drawn when stderr is not a terminal', async () => {
    const r = await runBin(['hash', `${F}workloads.yaml`]);
    expect(r.err).not.toContain('\r');
  });
});
