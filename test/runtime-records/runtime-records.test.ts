/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- these tests parse the sample records and mutate them freely (untyped JSON on purpose) */
/** Runtime records: reading the stored kubelet hash and rewriting it byte-exactly, over the samples in fixtures/runtime. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HashFormatError, HashMismatchError, KubeletHashError, OptionError, RecordError } from '../../src/errors.js';
import { detectRecordKind, readRuntimeRecords, rewriteRuntimeRecord } from '../../src/runtime-records/index.js';
import { storedHashValue as parseStoredHash } from '../../src/hash/format.js';
import type { ContainerRecordInfo, HashChange } from '../../src/runtime-records/index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/runtime/${name}`, import.meta.url), 'utf8');

const DOCKER_INSPECT = fixture('docker-inspect.json');
const DOCKER_CONFIG = fixture('docker-config.v2.json');
const CONTAINERD = fixture('crictl-inspect-containerd.json');
const CRIO = fixture('crictl-inspect-crio.json');

const APP_ID = 'af2180ce00fa56bad8d1efde4cac899eff48a0bb75e7d46166f1eb4dc7ea6204';
const SANDBOX_ID = 'da5c13c25c79345ab5487a6f5d5760edd5dd327098e9ee7075db5c30f86b40fa';

/**
 * The expected rewrite computed without the library's scanner: every hash value, found by a regex
 * over the raw text (plain `"key": "value"` and the escaped `\"key\":\"value\"` inside CRI-O's
 * JSON-in-a-string), replaced by its new text. Also returns how many values were replaced.
 */
function expectedRewrite(
  text: string,
  to: { hash: string; hashWithoutResources?: string },
): { text: string; count: number } {
  let count = 0;
  const pick = (field: string) => (field === 'hash' ? to.hash : to.hashWithoutResources);
  const plain = /("(?:annotation\.)?io\.kubernetes\.container\.(hash|hashWithoutResources)"\s*:\s*")([^"\\]*)(")/g;
  const embedded = /(\\"io\.kubernetes\.container\.(hash|hashWithoutResources)\\":\\")([0-9a-zA-Z]*)(\\")/g;
  const replace = (_m: string, pre: string, field: string, value: string, post: string) => {
    const next = pick(field);
    if (next === undefined) return pre + value + post;
    count++;
    return pre + next + post;
  };
  return { text: text.replace(plain, replace).replace(embedded, replace), count };
}

function catchError(fn: () => unknown): KubeletHashError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KubeletHashError);
    return e as KubeletHashError;
  }
  throw new Error('expected the call to throw');
}

describe('readRuntimeRecords over the samples', () => {
  it('docker inspect (cri-dockerd): one entry per container, the app container carrying the real-world hash', () => {
    const records = readRuntimeRecords(DOCKER_INSPECT);
    expect(records).toEqual<ContainerRecordInfo[]>([
      {
        kind: 'docker-inspect',
        runtime: 'docker',
        containerId: APP_ID,
        containerName: 'simple-pod',
        podName: 'simple-pod',
        podNamespace: 'default',
        podUid: 'be386bc7-67d4-4ae1-858e-db898508c204',
        attempt: 0,
        hash: '62b86e75',
        hashLocations: ['[0].Config.Labels["annotation.io.kubernetes.container.hash"]'],
      },
      {
        kind: 'docker-inspect',
        runtime: 'docker',
        containerId: SANDBOX_ID,
        containerName: 'POD',
        podName: 'simple-pod',
        podNamespace: 'default',
        podUid: 'be386bc7-67d4-4ae1-858e-db898508c204',
        attempt: 0,
        hashLocations: [],
      },
    ]);
  });

  it('docker config.v2.json: both hashes of a 1.27–1.30 kubelet with in-place resize', () => {
    expect(readRuntimeRecords(DOCKER_CONFIG)).toEqual<ContainerRecordInfo[]>([
      {
        kind: 'docker-config-v2',
        runtime: 'docker',
        containerId: 'e34a9ea282574ebbf47f2daa62cf755075445f606ee25915131ec566c700b1f5',
        containerName: 'simple-pod',
        podName: 'simple-pod',
        podNamespace: 'default',
        podUid: '145c2a62-81fa-49f7-a1a2-04ef4869c6f9',
        attempt: 0,
        hash: '62b86e75',
        hashWithoutResources: 'bd7cf28f',
        hashLocations: [
          'Config.Labels["annotation.io.kubernetes.container.hash"]',
          'Config.Labels["annotation.io.kubernetes.container.hashWithoutResources"]',
        ],
      },
    ]);
  });

  it('crictl inspect on containerd: status, CRI config and (passed-through) OCI spec copies', () => {
    const [r] = readRuntimeRecords(CONTAINERD);
    expect(r).toEqual<ContainerRecordInfo>({
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerId: 'efb78fcc4bd5c6b25271fa92b2d44626f4a836744172f32fb1b7256f9d9fedd7',
      containerName: 'nginx',
      podName: 'nginx',
      podNamespace: 'default',
      podUid: 'ab3cd33d-29b4-4048-a8ec-90fc49614f20',
      attempt: 0,
      hash: '9624f5a5',
      hashLocations: [
        'status.annotations["io.kubernetes.container.hash"]',
        'info.config.annotations["io.kubernetes.container.hash"]',
        'info.runtimeSpec.annotations["io.kubernetes.container.hash"]',
      ],
    });
  });

  it('crictl inspect on CRI-O: status, OCI spec, and the JSON kept in io.kubernetes.cri-o.Annotations', () => {
    const [r] = readRuntimeRecords(CRIO);
    expect(r?.runtime).toBe('cri-o');
    expect(r?.attempt).toBe(0);
    expect(r?.hash).toBe('62b86e75');
    expect(r?.hashWithoutResources).toBe('bd7cf28f');
    expect(r?.hashLocations).toEqual([
      'status.annotations["io.kubernetes.container.hash"]',
      'status.annotations["io.kubernetes.container.hashWithoutResources"]',
      'info.runtimeSpec.annotations["io.kubernetes.container.hash"]',
      'info.runtimeSpec.annotations["io.kubernetes.container.hashWithoutResources"]',
      'info.runtimeSpec.annotations["io.kubernetes.cri-o.Annotations"] | fromjson | ["io.kubernetes.container.hash"]',
      'info.runtimeSpec.annotations["io.kubernetes.cri-o.Annotations"] | fromjson | ["io.kubernetes.container.hashWithoutResources"]',
    ]);
    expect([r?.containerName, r?.podName, r?.podNamespace, r?.podUid]).toEqual([
      'simple-pod',
      'simple-pod',
      'default',
      '976baa11-c85b-413d-87af-2688d1653a88',
    ]);
  });

  it("crictl's status.metadata.attempt: as stored, 0 when left out, refused when not a uint32", () => {
    const doc = JSON.parse(CONTAINERD) as { status: { metadata: Record<string, unknown> } };
    const withAttempt = (metadata: Record<string, unknown>) =>
      JSON.stringify({ ...doc, status: { ...doc.status, metadata } });
    expect(readRuntimeRecords(withAttempt({ name: 'nginx', attempt: 7 }))[0]?.attempt).toBe(7);
    expect(readRuntimeRecords(withAttempt({ name: 'nginx' }))[0]?.attempt).toBe(0);
    expect(catchError(() => readRuntimeRecords(withAttempt({ name: 'nginx', attempt: '7' })))).toMatchObject({
      code: 'INVALID_RECORD',
      path: ['status', 'metadata', 'attempt'],
    });
  });

  it('agrees with JSON.parse on every value it reads from the samples', () => {
    const crio = JSON.parse(CRIO);
    const embedded = JSON.parse(crio.info.runtimeSpec.annotations['io.kubernetes.cri-o.Annotations']);
    expect(embedded['io.kubernetes.container.hash']).toBe('62b86e75');
    const inspect = JSON.parse(DOCKER_INSPECT);
    expect(readRuntimeRecords(DOCKER_INSPECT).map((r) => r.containerId)).toEqual(
      inspect.map((c: { Id: string }) => c.Id),
    );
  });

  it('a crictl inspect without verbose info reads from status alone (runtime unknown)', () => {
    const doc = JSON.parse(CONTAINERD);
    delete doc.info;
    const [r] = readRuntimeRecords(JSON.stringify(doc));
    expect(r?.runtime).toBe('unknown');
    expect(r?.hashLocations).toEqual(['status.annotations["io.kubernetes.container.hash"]']);
  });
});

describe('detectRecordKind', () => {
  it('tells the three kinds apart', () => {
    expect(detectRecordKind(JSON.parse(DOCKER_INSPECT))).toBe('docker-inspect');
    expect(detectRecordKind(JSON.parse(DOCKER_CONFIG))).toBe('docker-config-v2');
    expect(detectRecordKind(JSON.parse(CONTAINERD))).toBe('crictl-inspect');
    expect(detectRecordKind(JSON.parse(CRIO))).toBe('crictl-inspect');
  });

  it.each([
    ['null', null],
    ['a number', 42],
    ['an empty array', []],
    ['an unrelated object', { kind: 'Pod' }],
    ['a single docker inspect object (not in an array)', { Id: 'abc', Config: {} }],
  ])('refuses %s with a RecordError at the root', (_label, doc) => {
    const err = catchError(() => detectRecordKind(doc));
    expect(err).toBeInstanceOf(RecordError);
    expect(err.code).toBe('INVALID_RECORD');
    expect(err.path).toEqual([]);
  });

  it('does not modify the document it looks at', () => {
    const doc = Object.freeze(JSON.parse(CONTAINERD));
    const before = JSON.stringify(doc);
    detectRecordKind(doc);
    expect(JSON.stringify(doc)).toBe(before);
  });
});

describe('rewriteRuntimeRecord changes only the stored hash values', () => {
  const cases: Array<[string, string, HashChange, number]> = [
    [
      'docker inspect',
      DOCKER_INSPECT,
      { from: { hash: '62b86e75' }, to: { hash: 'd01fedb2' }, containerId: APP_ID },
      1,
    ],
    [
      'docker config.v2.json',
      DOCKER_CONFIG,
      {
        from: { hash: '62b86e75', hashWithoutResources: 'bd7cf28f' },
        to: { hash: 'd01fedb2', hashWithoutResources: '1a2b3c' },
      },
      2,
    ],
    ['containerd', CONTAINERD, { from: { hash: '9624f5a5' }, to: { hash: 'a564281e' } }, 3],
    [
      'CRI-O',
      CRIO,
      {
        from: { hash: '62b86e75', hashWithoutResources: 'bd7cf28f' },
        to: { hash: 'd01fedb2', hashWithoutResources: '7' },
      },
      6,
    ],
  ];

  it.each(cases)('%s: output equals the independently computed rewrite', (_label, text, change, count) => {
    const out = rewriteRuntimeRecord(text, change);
    const expected = expectedRewrite(text, change.to);
    expect(expected.count).toBe(count);
    expect(out).toBe(expected.text);
    expect(out).not.toBe(text);
    // Trailing newline (or its absence, for config.v2.json) survives.
    expect(out.endsWith('\n')).toBe(text.endsWith('\n'));
  });

  it.each(cases)('%s: reading the output gives the new hash everywhere', (_label, text, change) => {
    const out = rewriteRuntimeRecord(text, change);
    const before = readRuntimeRecords(text);
    const after = readRuntimeRecords(out);
    const i = change.containerId === undefined ? 0 : before.findIndex((r) => r.containerId === change.containerId);
    expect(after[i]?.hash).toBe(change.to.hash);
    if (change.to.hashWithoutResources !== undefined)
      expect(after[i]?.hashWithoutResources).toBe(change.to.hashWithoutResources);
    expect(after[i]?.hashLocations).toEqual(before[i]?.hashLocations);
    // Everything else JSON.parse sees is unchanged.
    const strip = (t: string) =>
      t.replace(/(io\.kubernetes\.container\.hash(?:WithoutResources)?\\?"\s*:\s*\\?")[0-9a-f]*/g, '$1');
    expect(JSON.stringify(JSON.parse(strip(out)))).toBe(JSON.stringify(JSON.parse(strip(text))));
  });

  it.each(cases)('%s: from = to returns the text unchanged, and a round trip restores it', (_label, text, change) => {
    expect(rewriteRuntimeRecord(text, { ...change, to: change.from })).toBe(text);
    const there = rewriteRuntimeRecord(text, change);
    expect(rewriteRuntimeRecord(there, { ...change, from: change.to, to: change.from })).toBe(text);
  });

  it('leaves a stored hashWithoutResources untouched when `to` has none', () => {
    const out = rewriteRuntimeRecord(CRIO, { from: { hash: '62b86e75' }, to: { hash: 'd01fedb2' } });
    const [r] = readRuntimeRecords(out);
    expect(r?.hash).toBe('d01fedb2');
    expect(r?.hashWithoutResources).toBe('bd7cf28f');
    expect(out).toBe(expectedRewrite(CRIO, { hash: 'd01fedb2' }).text);
  });

  it('rewrites only the chosen container of a docker inspect array', () => {
    const doc = JSON.parse(DOCKER_INSPECT);
    const twin = structuredClone(doc[0]);
    twin.Id = 'bb' + APP_ID.slice(2);
    doc.push(twin);
    const text = JSON.stringify(doc, null, 2);
    const out = rewriteRuntimeRecord(text, {
      from: { hash: '62b86e75' },
      to: { hash: '1' },
      containerId: twin.Id.slice(0, 12),
    });
    expect(readRuntimeRecords(out).map((r) => r.hash)).toEqual(['62b86e75', undefined, '1']);
  });

  it('keeps \\u-escapes, key order and compact layout of config.v2.json', () => {
    const out = rewriteRuntimeRecord(DOCKER_CONFIG, { from: { hash: '62b86e75' }, to: { hash: 'ffffffff' } });
    expect(out).toContain('GREETING=café \\u0026 crème \\u003cok\\u003e');
    expect(out).toContain(
      '"annotation.io.kubernetes.container.hash":"ffffffff","annotation.io.kubernetes.container.hashWithoutResources":"bd7cf28f"',
    );
    expect(out.length).toBe(DOCKER_CONFIG.length);
  });

  it('never modifies the change object it is given', () => {
    const change: HashChange = Object.freeze({
      from: Object.freeze({ hash: '62b86e75', hashWithoutResources: 'bd7cf28f' }),
      to: Object.freeze({ hash: 'd01fedb2', hashWithoutResources: 'bd7cf28f' }),
    });
    const snapshot = JSON.stringify(change);
    rewriteRuntimeRecord(CRIO, change);
    expect(JSON.stringify(change)).toBe(snapshot);
  });
});

describe('rewriteRuntimeRecord refuses what it cannot do safely', () => {
  it('refuses when the stored hash is not `from.hash`, naming the path', () => {
    const err = catchError(() => rewriteRuntimeRecord(CONTAINERD, { from: { hash: '62b86e75' }, to: { hash: '1' } }));
    expect(err).toBeInstanceOf(HashMismatchError);
    expect(err.code).toBe('HASH_MISMATCH');
    expect(err.path).toEqual(['status', 'annotations', 'io.kubernetes.container.hash']);
    expect(err.message).toContain('9624f5a5');
  });

  it('refuses when any one copy differs (containerd CRI config copy edited)', () => {
    const text = CONTAINERD.replace(
      /("annotations": \{\s*"io\.kubernetes\.container\.hash": ")9624f5a5/g,
      (m, pre, offset: number) =>
        offset > CONTAINERD.indexOf('"config"') && offset < CONTAINERD.indexOf('"runtimeSpec"') ? `${pre}9624f5a6` : m,
    );
    expect(text).not.toBe(CONTAINERD);
    const err = catchError(() => rewriteRuntimeRecord(text, { from: { hash: '9624f5a5' }, to: { hash: '1' } }));
    expect(err).toBeInstanceOf(HashMismatchError);
    expect(err.path).toEqual(['info', 'config', 'annotations', 'io.kubernetes.container.hash']);
  });

  it("refuses when the copy inside CRI-O's JSON-encoded annotations differs", () => {
    const text = CRIO.replace(
      '\\"io.kubernetes.container.hash\\":\\"62b86e75\\"',
      '\\"io.kubernetes.container.hash\\":\\"62b86e76\\"',
    );
    expect(text).not.toBe(CRIO);
    const err = catchError(() => rewriteRuntimeRecord(text, { from: { hash: '62b86e75' }, to: { hash: '1' } }));
    expect(err).toBeInstanceOf(HashMismatchError);
    expect(err.path).toEqual([
      'info',
      'runtimeSpec',
      'annotations',
      'io.kubernetes.cri-o.Annotations',
      'io.kubernetes.container.hash',
    ]);
  });

  it('refuses a hashWithoutResources rewrite when from.hashWithoutResources mismatches', () => {
    const err = catchError(() =>
      rewriteRuntimeRecord(DOCKER_CONFIG, {
        from: { hash: '62b86e75', hashWithoutResources: 'bd7cf28e' },
        to: { hash: '1', hashWithoutResources: '2' },
      }),
    );
    expect(err).toBeInstanceOf(HashMismatchError);
    expect(err.path).toEqual(['Config', 'Labels', 'annotation.io.kubernetes.container.hashWithoutResources']);
  });

  it('requires from.hashWithoutResources when to.hashWithoutResources is given', () => {
    const err = catchError(() =>
      rewriteRuntimeRecord(DOCKER_CONFIG, { from: { hash: '62b86e75' }, to: { hash: '1', hashWithoutResources: '2' } }),
    );
    expect(err).toBeInstanceOf(OptionError);
    expect(err.path).toEqual(['from', 'hashWithoutResources']);
  });

  it('refuses a hashWithoutResources rewrite on a record that stores none', () => {
    const err = catchError(() =>
      rewriteRuntimeRecord(CONTAINERD, {
        from: { hash: '9624f5a5', hashWithoutResources: '9624f5a5' },
        to: { hash: '1', hashWithoutResources: '2' },
      }),
    );
    expect(err).toBeInstanceOf(HashMismatchError);
    expect(err.path).toEqual(['status', 'annotations', 'io.kubernetes.container.hashWithoutResources']);
  });

  it('compares as the kubelet does: hex as uint64, unreadable or missing text as 0', () => {
    const upper = CONTAINERD.replaceAll('"9624f5a5"', '"09624F5A5"');
    const out = rewriteRuntimeRecord(upper, { from: { hash: '9624f5a5' }, to: { hash: '9624f5a5' } });
    expect(readRuntimeRecords(out)[0]?.hash).toBe('9624f5a5');

    const junk = CONTAINERD.replaceAll('"9624f5a5"', '"not-hex"');
    expect(
      catchError(() => rewriteRuntimeRecord(junk, { from: { hash: '9624f5a5' }, to: { hash: '1' } })),
    ).toBeInstanceOf(HashMismatchError);
    expect(readRuntimeRecords(rewriteRuntimeRecord(junk, { from: { hash: '0' }, to: { hash: '1' } }))[0]?.hash).toBe(
      '1',
    );

    // The sandbox container stores no hash: the kubelet would read 0.
    const sandbox = catchError(() =>
      rewriteRuntimeRecord(DOCKER_INSPECT, { from: { hash: '62b86e75' }, to: { hash: '1' }, containerId: SANDBOX_ID }),
    );
    expect(sandbox).toBeInstanceOf(HashMismatchError);
    expect(sandbox.path).toEqual([1, 'Config', 'Labels', 'annotation.io.kubernetes.container.hash']);
    const nothing = catchError(() =>
      rewriteRuntimeRecord(DOCKER_INSPECT, { from: { hash: '0' }, to: { hash: '1' }, containerId: SANDBOX_ID }),
    );
    expect(nothing).toBeInstanceOf(RecordError);
  });

  it('parseStoredHash mirrors strconv.ParseUint(s, 16, 64) with errors read as 0', () => {
    expect(parseStoredHash('311670a')).toBe(0x311670an);
    expect(parseStoredHash('00FF')).toBe(255n);
    expect(parseStoredHash('ffffffffffffffff')).toBe(2n ** 64n - 1n);
    expect(parseStoredHash('10000000000000000')).toBe(0n);
    for (const bad of [undefined, '', '0x1f', '-1', '+1', '1_0', ' 1f', 'g']) expect(parseStoredHash(bad)).toBe(0n);
  });

  it('needs containerId for a docker inspect array with several containers, and a matching one', () => {
    const noId = catchError(() =>
      rewriteRuntimeRecord(DOCKER_INSPECT, { from: { hash: '62b86e75' }, to: { hash: '1' } }),
    );
    expect(noId).toBeInstanceOf(OptionError);
    expect(noId.path).toEqual(['containerId']);
    expect(
      catchError(() =>
        rewriteRuntimeRecord(DOCKER_INSPECT, { from: { hash: '62b86e75' }, to: { hash: '1' }, containerId: 'ffff' }),
      ),
    ).toBeInstanceOf(OptionError);
    expect(
      catchError(() =>
        rewriteRuntimeRecord(CONTAINERD, { from: { hash: '9624f5a5' }, to: { hash: '1' }, containerId: APP_ID }),
      ),
    ).toBeInstanceOf(OptionError);
    const byPrefix = rewriteRuntimeRecord(DOCKER_INSPECT, {
      from: { hash: '62b86e75' },
      to: { hash: '1' },
      containerId: 'af2180ce',
    });
    expect(readRuntimeRecords(byPrefix)[0]?.hash).toBe('1');
  });

  it.each(['0062b86e', 'ABC', '', '0x1', '10000000000000000', 'g1'])(
    'refuses to write non-canonical hash text %j',
    (bad) => {
      const err = catchError(() => rewriteRuntimeRecord(CONTAINERD, { from: { hash: '9624f5a5' }, to: { hash: bad } }));
      expect(err).toBeInstanceOf(HashFormatError);
      expect(err.code).toBe('INVALID_HASH');
      expect(err.path).toEqual(['to', 'hash']);
    },
  );

  it('refuses a malformed change object with a typed error', () => {
    const bad = [null, {}, { from: { hash: 1 }, to: { hash: '1' } }, { from: { hash: '1' } }];
    for (const change of bad) {
      expect(catchError(() => rewriteRuntimeRecord(CONTAINERD, change as unknown as HashChange))).toBeInstanceOf(
        OptionError,
      );
    }
    expect(
      catchError(() => rewriteRuntimeRecord(CONTAINERD, { from: { hash: 'zz' }, to: { hash: '1' } })).path,
    ).toEqual(['from', 'hash']);
  });
});

describe('malformed records give RecordError with a JSON path', () => {
  const mutate = (text: string, edit: (doc: any) => void): string => {
    const doc = JSON.parse(text);
    edit(doc);
    return JSON.stringify(doc, null, 2);
  };

  const cases: Array<[string, string, Array<string | number>]> = [
    ['not JSON at all', 'hello', []],
    ['an empty text', '', []],
    ['a top-level string', '"docker"', []],
    ['trailing garbage', `${CONTAINERD}x`, []],
    [
      'docker label of the wrong type',
      mutate(DOCKER_INSPECT, (d) => (d[0].Config.Labels['io.kubernetes.pod.name'] = 5)),
      [0, 'Config', 'Labels', 'io.kubernetes.pod.name'],
    ],
    [
      'docker hash label of the wrong type',
      mutate(DOCKER_INSPECT, (d) => (d[1].Config.Labels['annotation.io.kubernetes.container.hash'] = null)),
      [1, 'Config', 'Labels', 'annotation.io.kubernetes.container.hash'],
    ],
    ['docker Labels null', mutate(DOCKER_CONFIG, (d) => (d.Config.Labels = null)), ['Config', 'Labels']],
    ['docker inspect element without Id', mutate(DOCKER_INSPECT, (d) => delete d[1].Id), [1, 'Id']],
    [
      'crictl status missing a pod label',
      mutate(CONTAINERD, (d) => delete d.status.labels['io.kubernetes.pod.uid']),
      ['status', 'labels', 'io.kubernetes.pod.uid'],
    ],
    ['crictl status without labels', mutate(CRIO, (d) => delete d.status.labels), ['status', 'labels']],
    [
      'crictl annotations as an array',
      mutate(CONTAINERD, (d) => (d.status.annotations = [])),
      ['status', 'annotations'],
    ],
    ['crictl info.config of the wrong type', mutate(CONTAINERD, (d) => (d.info.config = 'x')), ['info', 'config']],
    [
      'CRI-O embedded annotations not JSON',
      mutate(
        CRIO,
        (d) => (d.info.runtimeSpec.annotations['io.kubernetes.cri-o.Annotations'] = '{"io.kubernetes.container.hash":'),
      ),
      ['info', 'runtimeSpec', 'annotations', 'io.kubernetes.cri-o.Annotations', 'io.kubernetes.container.hash'],
    ],
    [
      'CRI-O embedded annotations not an object',
      mutate(CRIO, (d) => (d.info.runtimeSpec.annotations['io.kubernetes.cri-o.Annotations'] = 'nope')),
      ['info', 'runtimeSpec', 'annotations', 'io.kubernetes.cri-o.Annotations'],
    ],
    [
      'CRI-O embedded hash of the wrong type',
      mutate(
        CRIO,
        (d) =>
          (d.info.runtimeSpec.annotations['io.kubernetes.cri-o.Annotations'] = '{"io.kubernetes.container.hash":7}'),
      ),
      ['info', 'runtimeSpec', 'annotations', 'io.kubernetes.cri-o.Annotations', 'io.kubernetes.container.hash'],
    ],
  ];

  it.each(cases)('%s', (_label, text, path) => {
    for (const call of [
      () => readRuntimeRecords(text),
      () => rewriteRuntimeRecord(text, { from: { hash: '0' }, to: { hash: '1' } }),
    ]) {
      const err = catchError(call);
      expect(err).toBeInstanceOf(RecordError);
      expect(err.code).toBe('INVALID_RECORD');
      expect(err.path).toEqual(path);
      expect(err.expected.length).toBeGreaterThan(0);
    }
  });

  it.each([
    ['docker inspect', DOCKER_INSPECT],
    ['config.v2.json', DOCKER_CONFIG],
    ['containerd', CONTAINERD],
    ['CRI-O', CRIO],
  ])('%s truncated anywhere gives RecordError, never a raw error', (_label, text) => {
    for (let cut = 0; cut < text.length - 1; cut += Math.max(1, Math.floor(text.length / 97))) {
      const err = catchError(() => readRuntimeRecords(text.slice(0, cut)));
      expect(err).toBeInstanceOf(RecordError);
      expect(err.code).toBe('INVALID_RECORD');
    }
  });

  it('a truncated record names where in the document the text stopped', () => {
    const cut = DOCKER_INSPECT.indexOf('"io.kubernetes.pod.uid"');
    const err = catchError(() => readRuntimeRecords(DOCKER_INSPECT.slice(0, cut + 10)));
    expect(err.path).toEqual([0, 'Config', 'Labels']);
    expect(err.message).toContain('[0].Config.Labels');
  });

  it('refuses non-string input with RecordError, not a TypeError', () => {
    expect(catchError(() => readRuntimeRecords(undefined as unknown as string))).toBeInstanceOf(RecordError);
    expect(catchError(() => readRuntimeRecords({} as unknown as string))).toBeInstanceOf(RecordError);
  });
});

describe('only the copy the kubelet reads back counts', () => {
  // containerd with the status annotation removed: the config copy remains, the kubelet reads 0.
  const doc = JSON.parse(CONTAINERD) as { status: { annotations: Record<string, string> } };
  delete doc.status.annotations['io.kubernetes.container.hash'];
  const text = JSON.stringify(doc, null, 2);

  it('reads no hash when only a copy the kubelet ignores is stored', () => {
    const [info] = readRuntimeRecords(text);
    expect(info!.hash).toBeUndefined();
    expect(info!.hashLocations.some((l) => l.startsWith('info.config.annotations'))).toBe(true);
  });

  it('refuses to rewrite such a record: the kubelet would still read 0', () => {
    expect(() => rewriteRuntimeRecord(text, { from: { hash: '9624f5a5' }, to: { hash: 'a564281e' } })).toThrow(
      HashMismatchError,
    );
    try {
      rewriteRuntimeRecord(text, { from: { hash: '0' }, to: { hash: 'a564281e' } });
      expect.fail('rewrote a record whose read-back copy is missing');
    } catch (e) {
      expect(e).toBeInstanceOf(RecordError);
      expect((e as RecordError).path).toEqual(['status', 'annotations', 'io.kubernetes.container.hash']);
    }
  });
});

describe('docker inspect of a whole node: the kubelet’s containers among others', () => {
  const ours = JSON.parse(DOCKER_INSPECT) as Array<Record<string, unknown>>;
  const registry = { Id: 'f00d'.repeat(16), Name: '/registry', Config: { Labels: null, Image: 'registry:2' } };
  const tagged = { Id: 'beef'.repeat(16), Name: '/monitor', Config: { Labels: { 'com.example.team': 'ops' } } };
  const text = JSON.stringify([registry, ...ours, tagged], null, 2);

  it('reads only the containers the kubelet created and skips the rest', () => {
    const strip = (r: ContainerRecordInfo) => ({ ...r, hashLocations: [] });
    const mixed = readRuntimeRecords(text);
    expect(mixed.map(strip)).toEqual(readRuntimeRecords(DOCKER_INSPECT).map(strip));
    // Locations name the element's place in the mixed array (the first one is the registry).
    expect(mixed.flatMap((r) => r.hashLocations).every((l) => !l.startsWith('[0]'))).toBe(true);
  });

  it('still refuses a kubelet container whose labels are malformed', () => {
    const broken = JSON.parse(DOCKER_INSPECT) as Array<{ Config: { Labels: Record<string, unknown> } }>;
    broken[0]!.Config.Labels['io.kubernetes.pod.uid'] = 42;
    expect(() => readRuntimeRecords(JSON.stringify([registry, ...broken]))).toThrow(RecordError);
  });

  it('is read one element at a time, with the errors of a whole-document read in the same order', () => {
    const broken = JSON.parse(DOCKER_INSPECT) as Array<{ Config: { Labels: Record<string, unknown> } }>;
    broken[0]!.Config.Labels['io.kubernetes.pod.uid'] = 42;
    const schemaFirst = JSON.stringify([...broken, registry]);
    // A schema error in the first element, a syntax error at the very end: the syntax error wins.
    const error = (t: string): RecordError => {
      try {
        readRuntimeRecords(t);
      } catch (e) {
        if (e instanceof RecordError) return e;
        throw e;
      }
      throw new Error('no error');
    };
    expect(error(schemaFirst.slice(0, -1)).message).toMatch(/well-formed JSON: ',' or '\]' in an array/);
    expect(error(schemaFirst).path).toEqual([0, 'Config', 'Labels', 'io.kubernetes.pod.uid']);
    expect(error(' [ ] ').message).toContain('at least one container');
    // Paths and spans of later elements are those of the whole text.
    const locations = readRuntimeRecords(
      `[${JSON.stringify(registry)},${JSON.stringify(tagged)},${JSON.stringify(ours[0])}]`,
    ).flatMap((r) => r.hashLocations);
    expect(locations.length).toBeGreaterThan(0);
    expect(locations.every((l) => l.startsWith('[2]'))).toBe(true);
  });

  it('rewrites a kubelet container in the mixed array and leaves the others byte for byte', () => {
    const target = readRuntimeRecords(text).find((r) => r.hash !== undefined)!;
    const out = rewriteRuntimeRecord(text, {
      from: { hash: target.hash! },
      to: { hash: 'abc123' },
      containerId: target.containerId!,
    });
    expect(out.replace('"abc123"', `"${target.hash}"`)).toBe(text);
  });
});
