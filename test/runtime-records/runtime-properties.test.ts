/**
 * Properties of the record rewrite over generated records: random label maps, random legal
 * whitespace, random `\u`-escapes, and CRI-O's JSON-in-a-string. The generator writes the JSON
 * text itself and notes where each hash value lands, so the expected output is known without the
 * library's scanner.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { readRuntimeRecords, rewriteRuntimeRecord } from '../../src/runtime-records/index.js';

type Field = 'hash' | 'hashWithoutResources';
type Tree =
  | { t: 'obj'; entries: Array<[string, Tree]> }
  | { t: 'arr'; items: Tree[] }
  | { t: 'str'; value: string; field?: Field }
  | { t: 'json-in-string'; inner: Tree }
  | { t: 'lit'; text: string };

interface HashSpan {
  start: number;
  end: number;
  field: Field;
  value: string;
}

/** Small deterministic PRNG so one fast-check seed decides every layout choice (and shrinks). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

class Writer {
  out = '';
  readonly spans: HashSpan[] = [];
  constructor(private readonly rng: () => number) {}

  private ws(): void {
    const n = Math.floor(this.rng() * 4);
    for (let i = 0; i < n; i++) this.out += ' \t\n\r'.charAt(Math.floor(this.rng() * 4));
  }

  /** Writes one UTF-16 unit of a string literal, sometimes as a \u escape (either hex case). */
  private unit(c: string, escapeRate: number): void {
    const code = c.charCodeAt(0);
    const hex4 = () => {
      const h = code.toString(16).padStart(4, '0');
      return `\\u${this.rng() < 0.5 ? h : h.toUpperCase()}`;
    };
    if (SHORT[c] !== undefined) this.out += this.rng() < 0.3 ? hex4() : SHORT[c];
    else if (code < 0x20) this.out += hex4();
    else if (c === '/' && this.rng() < 0.5) this.out += '\\/';
    else this.out += this.rng() < escapeRate ? hex4() : c;
  }

  /** Writes a string literal; returns, per unit, where its encoding starts (plus the closing quote). */
  string(value: string, escapeRate: number): number[] {
    this.out += '"';
    const offsets: number[] = [];
    for (const c of value.split('')) {
      offsets.push(this.out.length);
      this.unit(c, escapeRate);
    }
    offsets.push(this.out.length);
    this.out += '"';
    return offsets;
  }

  value(tree: Tree): void {
    switch (tree.t) {
      case 'lit':
        this.out += tree.text;
        return;
      case 'str': {
        const offsets = this.string(tree.value, tree.field ? 0.1 : 0.15);
        if (tree.field)
          this.spans.push({
            start: offsets[0] as number,
            end: offsets[offsets.length - 1] as number,
            field: tree.field,
            value: tree.value,
          });
        return;
      }
      case 'json-in-string': {
        const inner = new Writer(mulberry32(Math.floor(this.rng() * 2 ** 32)));
        inner.ws();
        inner.value(tree.inner);
        inner.ws();
        const offsets = this.string(inner.out, 0.05);
        for (const s of inner.spans)
          this.spans.push({ ...s, start: offsets[s.start] as number, end: offsets[s.end] as number });
        return;
      }
      case 'arr':
        this.out += '[';
        this.ws();
        tree.items.forEach((item, i) => {
          if (i > 0) {
            this.out += ',';
            this.ws();
          }
          this.value(item);
          this.ws();
        });
        this.out += ']';
        return;
      case 'obj':
        this.out += '{';
        this.ws();
        tree.entries.forEach(([k, v], i) => {
          if (i > 0) {
            this.out += ',';
            this.ws();
          }
          this.string(k, 0.1);
          this.ws();
          this.out += ':';
          this.ws();
          this.value(v);
          this.ws();
        });
        this.out += '}';
        return;
    }
  }

  document(tree: Tree): { text: string; spans: HashSpan[] } {
    this.ws();
    this.value(tree);
    this.ws();
    if (this.rng() < 0.5) this.out += '\n';
    return { text: this.out, spans: this.spans };
  }
}

// ---- generated records ----------------------------------------------------------------------

const awkward = fc.constantFrom(
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u2028',
  '<',
  '&',
  'é',
  '😀',
  '{',
  '}',
  ':',
  ',',
  ' ',
);
const text = fc.string({ unit: fc.oneof(awkward, fc.string({ minLength: 1, maxLength: 1 })), maxLength: 10 });
const labelMap = fc
  .uniqueArray(fc.tuple(text, text), { selector: ([k]) => k, maxLength: 5 })
  .map((pairs) => pairs.filter(([k]) => !k.startsWith('io.kubernetes.') && !k.startsWith('annotation.io.kubernetes.')));
const hexHash = fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map((h) => h.toString(16));
const word = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,14}$/);

interface Spec {
  shape: 'docker-inspect' | 'docker-config-v2' | 'crictl';
  labels: Array<[string, string]>;
  annotations: Array<[string, string]>;
  pod: { name: string; ns: string; uid: string; container: string; id: string };
  hash: string;
  hashWithoutResources: string | undefined;
  withConfig: boolean;
  withSpec: boolean;
  withCrioJson: boolean;
  seed: number;
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  shape: fc.constantFrom('docker-inspect', 'docker-config-v2', 'crictl'),
  labels: labelMap,
  annotations: labelMap,
  pod: fc.record({ name: word, ns: word, uid: fc.uuid(), container: word, id: fc.stringMatching(/^[0-9a-f]{64}$/) }),
  hash: hexHash,
  hashWithoutResources: fc.option(hexHash, { nil: undefined }),
  withConfig: fc.boolean(),
  withSpec: fc.boolean(),
  withCrioJson: fc.boolean(),
  seed: fc.integer(),
});

const str = (value: string, field?: Field): Tree => (field ? { t: 'str', value, field } : { t: 'str', value });

/** Puts `extra` entries into `base` at positions the PRNG picks, keeping each list's own order. */
function interleave(
  base: Array<[string, Tree]>,
  extra: Array<[string, Tree]>,
  rng: () => number,
): Array<[string, Tree]> {
  const out = [...base];
  for (const e of extra) out.splice(Math.floor(rng() * (out.length + 1)), 0, e);
  return out;
}

function build(spec: Spec): { text: string; spans: HashSpan[] } {
  const rng = mulberry32(spec.seed);
  const noise = (pairs: Array<[string, string]>): Array<[string, Tree]> => pairs.map(([k, v]) => [k, str(v)]);
  const identity: Array<[string, Tree]> = [
    ['io.kubernetes.container.name', str(spec.pod.container)],
    ['io.kubernetes.pod.name', str(spec.pod.name)],
    ['io.kubernetes.pod.namespace', str(spec.pod.ns)],
    ['io.kubernetes.pod.uid', str(spec.pod.uid)],
  ];
  const hashes = (prefix: string): Array<[string, Tree]> => [
    [`${prefix}io.kubernetes.container.hash`, str(spec.hash, 'hash')],
    ...(spec.hashWithoutResources === undefined
      ? []
      : ([
          [
            `${prefix}io.kubernetes.container.hashWithoutResources`,
            str(spec.hashWithoutResources, 'hashWithoutResources'),
          ],
        ] as Array<[string, Tree]>)),
  ];
  const obj = (entries: Array<[string, Tree]>): Tree => ({ t: 'obj', entries });

  let tree: Tree;
  if (spec.shape === 'crictl') {
    const annotations = () => obj(interleave(noise(spec.annotations), hashes(''), rng));
    const info: Array<[string, Tree]> = [['pid', { t: 'lit', text: '4242' }]];
    if (spec.withConfig) info.push(['config', obj([['annotations', annotations()]])]);
    if (spec.withSpec) {
      const specAnnotations = interleave(noise(spec.annotations), hashes(''), rng);
      if (spec.withCrioJson)
        specAnnotations.push(['io.kubernetes.cri-o.Annotations', { t: 'json-in-string', inner: annotations() }]);
      info.push(['runtimeSpec', obj([['annotations', obj(specAnnotations)]])]);
    }
    tree = obj([
      [
        'status',
        obj([
          ['id', str(spec.pod.id)],
          ['labels', obj(interleave(noise(spec.labels), identity, rng))],
          ['annotations', annotations()],
        ]),
      ],
      ['info', obj(info)],
    ]);
  } else {
    const labels = obj(interleave(noise(spec.labels), [...identity, ...hashes('annotation.')], rng));
    const container = obj([
      [spec.shape === 'docker-inspect' ? 'Id' : 'ID', str(spec.pod.id)],
      [
        'State',
        obj([
          ['Running', { t: 'lit', text: 'true' }],
          ['Pid', { t: 'lit', text: '-1e0' }],
        ]),
      ],
      [
        'Config',
        obj([
          ['Env', { t: 'arr', items: spec.annotations.map(([k, v]) => str(`${k}=${v}`)) }],
          ['Labels', labels],
        ]),
      ],
    ]);
    tree = spec.shape === 'docker-inspect' ? { t: 'arr', items: [container] } : container;
  }
  return new Writer(rng).document(tree);
}

/** The text with each span of a rewritten field replaced, unless it already holds the new value. */
function splice(text: string, spans: readonly HashSpan[], to: Partial<Record<Field, string>>): string {
  let out = '';
  let pos = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const next = to[s.field];
    if (next === undefined || next === s.value) continue;
    out += text.slice(pos, s.start) + next;
    pos = s.end;
  }
  return out + text.slice(pos);
}

describe('rewriteRuntimeRecord over generated records', () => {
  test.prop([specArb])('reads back exactly the stored values and finds every copy', (spec) => {
    const { text, spans } = build(spec);
    const [r] = readRuntimeRecords(text);
    expect(r?.hash).toBe(spec.hash);
    expect(r?.hashWithoutResources).toBe(spec.hashWithoutResources);
    expect(r?.hashLocations).toHaveLength(spans.length);
    expect([r?.containerName, r?.podName, r?.podNamespace, r?.podUid, r?.containerId]).toEqual([
      spec.pod.container,
      spec.pod.name,
      spec.pod.ns,
      spec.pod.uid,
      spec.pod.id,
    ]);
  });

  test.prop([specArb, hexHash, hexHash])(
    'touches only the hash spans, and re-reads the new values',
    (spec, toHash, toWithout) => {
      const { text, spans } = build(spec);
      const to =
        spec.hashWithoutResources === undefined ? { hash: toHash } : { hash: toHash, hashWithoutResources: toWithout };
      const from = { hash: spec.hash, hashWithoutResources: spec.hashWithoutResources };
      const containerId = spec.shape === 'docker-inspect' ? spec.pod.id : undefined;
      const out = rewriteRuntimeRecord(text, containerId === undefined ? { from, to } : { from, to, containerId });
      expect(out).toBe(splice(text, spans, to));
      const [r] = readRuntimeRecords(out);
      expect(r?.hash).toBe(toHash);
      if (spec.hashWithoutResources !== undefined) expect(r?.hashWithoutResources).toBe(toWithout);
    },
  );

  test.prop([specArb])('is the identity when from = to', (spec) => {
    const { text } = build(spec);
    const pair = { hash: spec.hash, hashWithoutResources: spec.hashWithoutResources };
    expect(rewriteRuntimeRecord(text, { from: pair, to: pair, containerId: spec.pod.id })).toBe(text);
  });

  test.prop([specArb, hexHash])('refuses any from.hash the kubelet would not read there', (spec, other) => {
    fc.pre(BigInt(`0x${other}`) !== BigInt(`0x${spec.hash}`));
    const { text } = build(spec);
    expect(() =>
      rewriteRuntimeRecord(text, { from: { hash: other }, to: { hash: '1' }, containerId: spec.pod.id }),
    ).toThrow(/HASH_MISMATCH/);
  });
});
