/**
 * readDocuments / manifestObjects: YAML read as kubectl sends it (goyaml.v2 resolution, then
 * kubectl's JSON round trip), JSON streams, Lists, source positions and refusals.
 */
import { describe, expect, it } from 'vitest';
import {
  DecodeError,
  JsonNumber,
  hashContainer,
  manifestObjects,
  readDocuments,
  supportedReleases,
  type JsonValue,
} from '../../src/index.js';
import { oracleCases } from '../support/oracle.js';

/** The JSON text kubectl sends for the value of `v` in a one-line YAML document. */
function scalar(text: string): unknown {
  const v = (readDocuments(`v: ${text}\n`)[0]!.value as Record<string, JsonValue>)['v'];
  return v instanceof JsonNumber ? `number ${v.text}` : v;
}

describe('YAML scalars as goyaml.v2 resolves them and kubectl sends them', () => {
  it.each([
    // YAML 1.1 booleans and nulls
    ['yes', true],
    ['Yes', true],
    ['ON', true],
    ['y', true],
    ['True', true],
    ['no', false],
    ['off', false],
    ['N', false],
    ['~', null],
    ['null', null],
    ['NULL', null],
    ['', null],
    // words that look like them but are text
    ['yES', 'yES'],
    ['nope', 'nope'],
    ['tru', 'tru'],
    // integers: decimal, octal (leading 0 and 0o), hex, binary, underscores, signs
    ['42', 'number 42'],
    ['-17', 'number -17'],
    ['+5', 'number 5'],
    ['017', 'number 15'],
    ['0o17', 'number 15'],
    ['0x1F', 'number 31'],
    ['0b101', 'number 5'],
    ['-0b101', 'number -5'],
    ['1_000', 'number 1000'],
    ['08', 'number 8'],
    ['9223372036854775807', 'number 9223372036854775807'],
    ['-9223372036854775808', 'number -9223372036854775808'],
    // beyond int64, kubectl's unstructured decoding reads a float64
    ['9223372036854775808', 'number 9223372036854776000'],
    ['18446744073709551616', 'number 18446744073709552000'],
    ['0x10000000000000000', 'number 18446744073709552000'],
    // floats: no dot needed; Go's JSON text, which the round trip turns into an int64 when integral
    ['1e3', 'number 1000'],
    ['1.5', 'number 1.5'],
    ['1.', 'number 1'],
    ['.5', 'number 0.5'],
    ['+.5', 'number 0.5'],
    ['-0.0', 'number 0'],
    ['1e21', 'number 1e+21'],
    ['1.5e-7', 'number 1.5e-7'],
    ['1e-400', 'number 0'],
    // text
    ['1e400', '1e400'],
    ['500m', '500m'],
    ['1Gi', '1Gi'],
    ['0x', '0x'],
    ['2001-12-14', '2001-12-14'],
    ['2001-12-14T21:59:43.10Z', '2001-12-14T21:59:43.10Z'],
    ['12:30:00', '12:30:00'],
    ['.5_0', '.5_0'],
    ['-0x8000000000000000000', '-0x8000000000000000000'],
    ['"1e3"', '1e3'],
    ["'yes'", 'yes'],
    ['<<', '<<'],
    // tags
    ['!!str 5', '5'],
    ['!!str yes', 'yes'],
    ['!!int "5"', 'number 5'],
    ['!!float 3', 'number 3'],
    ['!!bool "on"', true],
    ['!local text', 'text'],
  ] as [string, unknown][])('%s', (text, expected) => {
    expect(scalar(text)).toEqual(expected);
  });

  it('keys are converted as sigs.k8s.io/yaml converts them', () => {
    // `n` is the YAML 1.1 false, also as a key (Go's JSON sorts keys, so their order does not matter).
    const v = readDocuments('yes: a\n5: b\n0x10: c\n"yes": d\nn: e\n')[0]!.value;
    expect(Object.keys(v as object).sort()).toEqual(['16', '5', 'false', 'true', 'yes']);
  });

  it('merge keys and aliases, in goyaml.v2 order (a later merge overrides an earlier key)', () => {
    const text =
      'base: &b {p: 1, q: 2}\nother: &o {q: 3, r: 4}\na: {<<: *b, q: 9}\nb: {q: 9, <<: *b}\nc: {<<: [*b, *o]}\nd: *b\n';
    const v = JSON.parse(JSON.stringify(readDocuments(text)[0]!.value)) as Record<string, unknown>;
    expect(v['a']).toEqual({ p: 1, q: 9 });
    expect(v['b']).toEqual({ q: 2, p: 1 });
    expect(v['c']).toEqual({ q: 2, r: 4, p: 1 });
    expect(v['d']).toEqual({ p: 1, q: 2 });
  });

  it('every oracle container written as YAML hashes as its JSON does', () => {
    const releases = supportedReleases().filter((_, i) => i % 4 === 0);
    let compared = 0;
    for (const c of oracleCases()) {
      const json = JSON.stringify(c.container);
      // A comment first makes the JSON text a YAML document (JSON is a subset of YAML).
      const yaml = readDocuments(`# yaml\n${json}`)[0]!.value;
      for (const v of releases) {
        const run = (input: unknown): string => {
          try {
            return hashContainer(input as object, { kubeletVersion: v });
          } catch (e) {
            return (e as DecodeError).code;
          }
        };
        expect(run(yaml), `${c.id} ${v}`).toBe(run(json));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe('streams, lists and positions', () => {
  it('YAML documents: empty and null ones skipped, positions per document', () => {
    const docs = readDocuments('---\na: 1\n---\n---\nnull\n---\nitems:\n  - x: {z: [1, 2]}\n');
    expect(docs.map((d) => d.index)).toEqual([0, 1]);
    expect(docs[1]!.positionOf(['items', 0, 'x', 'z', 1])).toEqual({ line: 8, column: 16 });
    // A missing member points at the nearest ancestor that exists.
    expect(docs[1]!.positionOf(['items', 0, 'nope'])).toEqual({ line: 8, column: 5 });
  });

  it('JSON streams: NDJSON and concatenated documents, with positions', () => {
    const docs = readDocuments('{"a": 1}\n{"b": [1,\n 2]}\n  {"c": 3}');
    expect(docs.map((d) => d.format)).toEqual(['json', 'json', 'json']);
    expect(docs[1]!.positionOf(['b', 1])).toEqual({ line: 3, column: 2 });
    expect(docs[2]!.positionOf(['c'])).toEqual({ line: 4, column: 9 });
  });

  it('Lists and top-level arrays give one object per item; other documents stay whole', () => {
    const docs = readDocuments('kind: PodList\nitems: [{kind: Pod}, {kind: Pod}]\n---\nkind: Deployment\nitems: [1]\n');
    expect(manifestObjects(docs).map((o) => [o.document.index, o.path])).toEqual([
      [0, ['items', 0]],
      [0, ['items', 1]],
      [1, []],
    ]);
    expect(manifestObjects(readDocuments('[{"name": "a"}, {"name": "b"}]')).map((o) => o.path)).toEqual([[0], [1]]);
    expect(() => manifestObjects(readDocuments('kind: List\nitems: [5]\n'))).toThrow(/INVALID_TYPE at \.items\[0\]/);
  });
});

describe('refusals: typed INVALID_YAML errors with line and column', () => {
  it.each([
    ['a: [1, 2\nb: c\n', /^INVALID_YAML: .*at line 2, column 1\)$/],
    ['a: 1\na: 2\n', /^INVALID_YAML at \.a: expected each key once.*line 2, column 1\)$/],
    ['a: .nan\n', /INVALID_YAML at \.a: .*json: unsupported value.*line 1, column 4/],
    ['a: -.inf\n', /INVALID_YAML at \.a/],
    ['a: !!int x\n', /cannot decode !!str `x` as a !!int/],
    ['a: !!binary aGk=\n', /!!binary is not supported/],
    ['1.5: x\n', /expected a mapping key that is text, an integer or a boolean \(found the float 1\.5/],
    ['~: x\n', /found null/],
    ['b: 1\n[a]: x\n', /found a collection/],
    ['18446744073709551615: x\n', /found the int/],
    ['a: *nope\n', /unknown anchor \*nope/],
    ['a: {<<: 5}\n', /a mapping \(or a sequence of mappings\) to merge/],
  ])('%j', (text, message) => {
    const run = (): unknown => readDocuments(text);
    expect(run).toThrow(DecodeError);
    expect(run).toThrow(message);
  });

  it('alias expansion cannot blow up', () => {
    let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++)
      text += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    expect(() => readDocuments(text)).toThrow(/alias expansion too large/);
  });

  it('bad JSON keeps its line and column', () => {
    expect(() => readDocuments('{"a": 1}\n{"b": }')).toThrow(/INVALID_JSON: .*line 2, column 7/);
  });
});
