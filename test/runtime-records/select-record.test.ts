/**
 * One error vocabulary between the library and the CLI: `selectRecord` picks a container's runtime
 * record by pod identity (never by container name alone across pods), and `kubelet-hash changed`
 * refuses a bad --record or --status with exactly the error the library gives for the same input
 * (class, code, path, expected, detail), because it calls the same functions.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  containerChanged,
  formatJsonPath,
  KubeletHashError,
  readRuntimeRecords,
  RecordError,
  selectRecord,
  StoreError,
  type ContainerRecordInfo,
  type SelectRecordInput,
} from '../../src/index.js';
import { checkPlannedRoot, discoverRuntime } from '../../src/discovery/index.js';
import { errorSchema } from '../../src/cli/output-schema.js';
import { cli } from '../support/cli.js';

const F = 'test/fixtures/cli/';
const dir = mkdtempSync(join(tmpdir(), 'kh-records-'));
const POD_FILE = `${F}simple-pod.yaml`;
const POD = parse(readFileSync(POD_FILE, 'utf8')) as {
  metadata: { name: string; namespace: string; uid: string };
  spec: { containers: Record<string, unknown>[] };
};
const CONTAINER = POD.spec.containers[0]!;
const OF_POD: SelectRecordInput = {
  container: 'simple-pod',
  pod: { uid: POD.metadata.uid, name: POD.metadata.name, namespace: POD.metadata.namespace },
};
const BARE_FILE = `${F}container.yaml`;
const BARE = parse(readFileSync(BARE_FILE, 'utf8')) as Record<string, unknown>;

/** The simple-pod's own docker inspect element (hash 62b86e75), relabelled. */
const NODE = JSON.parse(readFileSync(`${F}docker-inspect-node.json`, 'utf8')) as Record<string, unknown>[];
function dockerRecord(o: { id: string; pod?: string; uid?: string; container?: string; hash?: string | null }) {
  const r = structuredClone(NODE[1]!) as { Id: string; Config: { Labels: Record<string, string> } };
  r.Id = o.id.padEnd(64, '0');
  const labels = r.Config.Labels;
  if (o.pod !== undefined) labels['io.kubernetes.pod.name'] = o.pod;
  if (o.uid !== undefined) labels['io.kubernetes.pod.uid'] = o.uid;
  if (o.container !== undefined) labels['io.kubernetes.container.name'] = o.container;
  if (o.hash === null) delete labels['annotation.io.kubernetes.container.hash'];
  else if (o.hash !== undefined) labels['annotation.io.kubernetes.container.hash'] = o.hash;
  return r;
}
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The library's error as the CLI's --json error document shows it. */
function asDocument(run: () => unknown) {
  try {
    run();
  } catch (e) {
    if (!(e instanceof KubeletHashError)) throw e;
    return { name: e.name, code: e.code, path: formatJsonPath(e.path), expected: e.expected, detail: e.detail ?? null };
  }
  throw new Error('the library accepted the input');
}

async function cliError(args: string[]) {
  const r = await cli(['changed', '--json', '-k', '1.29', ...args]);
  expect(r.code, r.err).toBe(2);
  expect(r.out).toBe('');
  const { name, code, path, expected, detail } = errorSchema.parse(JSON.parse(r.err)).error;
  return { name, code, path, expected, detail };
}

describe('selectRecord', () => {
  const rec = (podName: string, podUid: string, containerName: string, containerId?: string): ContainerRecordInfo => ({
    kind: 'crictl-inspect',
    runtime: 'containerd',
    ...(containerId !== undefined ? { containerId } : {}),
    containerName,
    podName,
    podNamespace: podName.startsWith('kube-') ? 'kube-system' : 'default',
    podUid,
    hash: '1',
    hashLocations: [],
  });
  const node = [rec('web-0', 'u0', 'web', 'a'), rec('web-1', 'u1', 'web', 'b'), rec('kube-proxy-x', 'u2', 'web', 'c')];

  it('matches every pod field given: uid, name, namespace', () => {
    expect(selectRecord(node, { container: 'web', pod: { uid: 'u1' } }).containerId).toBe('b');
    expect(selectRecord(node, { container: 'web', pod: { name: 'web-0', namespace: 'default' } }).containerId).toBe(
      'a',
    );
    // Without a uid or a name, the namespace narrows the records to one pod.
    expect(selectRecord(node, { container: 'web', pod: { namespace: 'kube-system' } }).containerId).toBe('c');
  });

  it('a field that does not match is no match, even when the container name is', () => {
    const e = asDocument(() => selectRecord(node, { container: 'web', pod: { uid: 'u1', name: 'web-0' } }));
    expect(e).toEqual({
      name: 'RecordError',
      code: 'RECORD_MISMATCH',
      path: '.records',
      expected: 'a record of container "web" of pod ?/web-0 (uid u1)',
      detail:
        'found none; "web" is of default/web-0 (uid u0), default/web-1 (uid u1), kube-system/kube-proxy-x (uid u2)',
    });
  });

  it('without a pod, the records must hold one pod', () => {
    const e = asDocument(() => selectRecord(node, { container: 'web' }));
    expect(e.code).toBe('AMBIGUOUS_RECORD');
    expect(e.detail).toBe(
      'found records of 3 pods: default/web-0 (uid u0), default/web-1 (uid u1), kube-system/kube-proxy-x (uid u2)',
    );
    expect(selectRecord([node[0]!], { container: 'web' })).toBe(node[0]);
    expect(asDocument(() => selectRecord([node[0]!], { container: 'db' }))).toMatchObject({
      code: 'RECORD_MISMATCH',
      expected: 'one record of a container named "db"',
      detail: 'found "web"',
    });
    expect(asDocument(() => selectRecord([], { container: 'db' })).detail).toBe('found no container');
  });

  it('two records of one container of one pod are refused, naming both', () => {
    const twice = [rec('web-0', 'u0', 'web', 'a'), rec('web-0', 'u0', 'web'), rec('web-0', 'u0', 'log', 'l')];
    for (const input of [{ container: 'web', pod: { uid: 'u0' } }, { container: 'web' }]) {
      expect(() => selectRecord(twice, input)).toThrow(RecordError);
      expect(asDocument(() => selectRecord(twice, input))).toMatchObject({
        code: 'AMBIGUOUS_RECORD',
        path: '.records',
        detail: 'found 2: container ids a, (no id)',
      });
    }
  });

  it("takes a store's records as they are and returns the caller's own object, changing nothing", () => {
    const stored = node.map((r) => ({ ...r, fingerprint: `fp-${r.podUid}` }));
    const before = structuredClone(stored);
    const picked = selectRecord(stored, { container: 'web', pod: { uid: 'u2' } });
    expect(picked).toBe(stored[2]);
    expect(picked.fingerprint).toBe('fp-u2');
    expect(stored).toEqual(before);
  });
});

describe('changed refuses with the library error for the same bad input', () => {
  const several = file(
    'several-pods.json',
    JSON.stringify([dockerRecord({ id: 'a1' }), dockerRecord({ id: 'b2', pod: 'other', uid: 'uid-other' })]),
  );
  const twice = file('twice.json', JSON.stringify([dockerRecord({ id: 'a1' }), dockerRecord({ id: 'b2' })]));
  const otherPod = file('other-pod.json', JSON.stringify([dockerRecord({ id: 'c3', pod: 'other', uid: 'uid-o' })]));
  const noHash = file('no-hash.json', JSON.stringify([dockerRecord({ id: 'd4', hash: null })]));
  const badHash = file('bad-hash.json', JSON.stringify([dockerRecord({ id: 'e5', hash: '0x62b86e75' })]));
  const records = (path: string) => readRuntimeRecords(readFileSync(path, 'utf8'));
  const changed = (status: unknown) => () => containerChanged(CONTAINER, status as never, { kubeletVersion: '1.29' });

  const statuses: [string, string, unknown][] = [
    ['no hash', '{"io.kubernetes.container.restartCount": "0"}', { 'io.kubernetes.container.restartCount': '0' }],
    [
      'a malformed hash',
      '{"io.kubernetes.container.hash": "62B86E7G"}',
      { 'io.kubernetes.container.hash': '62B86E7G' },
    ],
    ['a hash of the wrong type', 'hash: true\n', { hash: true }],
    [
      'a docker label that is no hash',
      '{"annotation.io.kubernetes.container.hash": ""}',
      { 'annotation.io.kubernetes.container.hash': '' },
    ],
    ['two status objects', 'hash: 62b86e75\n---\nhash: 62b86e75\n', [{ hash: '62b86e75' }, { hash: '62b86e75' }]],
    ['no status object at all', '# nothing\n', undefined],
    ['a list where the object goes', '["62b86e75"]', ['62b86e75']],
  ];
  const recordCases: [string, string, string, () => unknown][] = [
    ['records of one container twice', twice, POD_FILE, () => selectRecord(records(twice), OF_POD)],
    [
      'records of several pods, no pod to match',
      several,
      BARE_FILE,
      () => selectRecord(records(several), { container: BARE['name'] as string }),
    ],
    ['no record of the pod', otherPod, POD_FILE, () => selectRecord(records(otherPod), OF_POD)],
    ['a record without a hash', noHash, POD_FILE, changed(selectRecord(records(noHash), OF_POD))],
    ['a record with a malformed hash', badHash, POD_FILE, changed(selectRecord(records(badHash), OF_POD))],
  ];

  it.each(statuses)('--status with %s', async (_what, text, value) => {
    const library = asDocument(changed(value));
    expect(library.path.startsWith('.status')).toBe(true);
    expect(await cliError(['--status', file(`status-${_what.replace(/\W+/g, '-')}.yaml`, text), POD_FILE])).toEqual(
      library,
    );
  });

  it.each(recordCases)('--record with %s', async (_what, path, operand, run) => {
    expect(await cliError(['--record', path, operand])).toEqual(asDocument(run));
  });

  it('the codes are those of the table: no CLI-only refusal is left', async () => {
    const codes = new Set<string>();
    for (const [, text] of statuses) codes.add((await cliError(['--status', file('s.yaml', text), POD_FILE])).code);
    for (const [, path, operand] of recordCases) codes.add((await cliError(['--record', path, operand])).code);
    expect([...codes].sort()).toEqual([
      'AMBIGUOUS_RECORD',
      'INVALID_HASH',
      'INVALID_OPTION',
      'MISSING_HASH',
      'RECORD_MISMATCH',
    ]);
  });

  it('a --status error points at the key in the status file, not at the pod', async () => {
    const status = file('status-line.yaml', '# the runtime annotations\nio.kubernetes.container.hash: nope\n');
    const r = await cli(['changed', '--json', '-k', '1.29', '--status', status, POD_FILE]);
    expect(errorSchema.parse(JSON.parse(r.err)).error).toMatchObject({
      code: 'INVALID_HASH',
      path: '.status["io.kubernetes.container.hash"]',
      file: status,
      line: 2,
    });
  });

  it('a number in a YAML status is read as its text, as the kubelet reads its label', async () => {
    const r = await cli(['changed', '--json', '-k', '1.29', '--status', file('n.yaml', 'hash: 62b86e75\n'), POD_FILE]);
    const numeric = await cli([
      'changed',
      '--json',
      '-k',
      '1.29',
      '--status',
      file('m.yaml', 'hash: 311670\n'),
      POD_FILE,
    ]);
    expect([r.code, numeric.code]).toEqual([0, 1]);
    expect((JSON.parse(numeric.out) as { rows: { actual: string }[] }).rows[0]!.actual).toBe('311670');
  });

  it('a mirror pod is matched by the static pod uid its records carry (kubernetes.io/config.mirror)', async () => {
    const mirror = readFileSync(POD_FILE, 'utf8').replace(
      `uid: ${POD.metadata.uid}`,
      `uid: 0c7e0f1a-mirror\n  annotations:\n    kubernetes.io/config.mirror: ${POD.metadata.uid}`,
    );
    const r = await cli(['changed', '--json', '-k', '1.29', '--record', `${F}docker-inspect-node.json`, '-'], mirror);
    expect(r.code, r.err).toBe(0);
  });

  it('a gate the release lacks or locks is refused at the flag, by the library', async () => {
    const gate = async (k: string, g: string) => {
      const r = await cli(['changed', '--json', '-k', k, '--hash', '62b86e75', '--feature-gates', g, POD_FILE]);
      return errorSchema.parse(JSON.parse(r.err)).error;
    };
    expect(await gate('1.26', 'InPlacePodVerticalScaling=true')).toMatchObject({
      code: 'UNKNOWN_FEATURE_GATE',
      path: '["--feature-gates"].InPlacePodVerticalScaling',
      file: null,
    });
    expect(await gate('1.35', 'InPlacePodVerticalScaling=false')).toMatchObject({
      code: 'INVALID_OPTION',
      path: '["--feature-gates"].InPlacePodVerticalScaling',
      file: null,
      expected: asDocument(() =>
        containerChanged(
          CONTAINER,
          { hash: '62b86e75' },
          {
            kubeletVersion: '1.35',
            featureGates: { InPlacePodVerticalScaling: false },
          },
        ),
      ).expected,
    });
  });

  it('predict refuses such a gate at the flag too, not in the new manifest', async () => {
    const r = await cli([
      'predict',
      '--json',
      '-k',
      '1.26',
      '--feature-gates',
      'InPlacePodVerticalScaling=true',
      POD_FILE,
      POD_FILE,
    ]);
    expect(r.code).toBe(2);
    expect(errorSchema.parse(JSON.parse(r.err)).error).toMatchObject({
      code: 'UNKNOWN_FEATURE_GATE',
      path: '["--feature-gates"].InPlacePodVerticalScaling',
      file: null,
    });
  });
});

describe('RUNTIME_ROOT_MISMATCH', () => {
  it('a plan for another root than the runtime endpoint serves is a StoreError at the plan’s store root', () => {
    const fsRoot = mkdtempSync(join(tmpdir(), 'kh-node-'));
    mkdirSync(join(fsRoot, 'run/containerd'), { recursive: true });
    writeFileSync(join(fsRoot, 'run/containerd/containerd.sock'), '');
    const d = discoverRuntime({ endpoint: 'unix:///run/containerd/containerd.sock', fsRoot });
    expect(() => {
      checkPlannedRoot(d, d.rootOnDisk, ['store', 'root']);
    }).not.toThrow();
    try {
      checkPlannedRoot(d, '/var/lib/containerd-copy', ['store', 'root']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StoreError);
      expect(e).toMatchObject({
        code: 'RUNTIME_ROOT_MISMATCH',
        path: ['store', 'root'],
        detail: 'the plan was made for /var/lib/containerd-copy',
      });
    }
  });
});
