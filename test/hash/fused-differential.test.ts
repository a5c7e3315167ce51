/**
 * The fused hashers against the value-tree path (decode → encode → FNV): identical hashes on every
 * oracle row and on generated containers, as objects and as JSON text; where the tree path throws,
 * the fused path must have handed over (so the public API throws the same typed error).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fusedHash, NO_FUSED_HASH } from '../../src/hash/fused/entry.js';
import { keyHash } from '../../src/hash/fused/tape.js';
import { hashContainer, JsonNumber, type JsonEscapeMode } from '../../src/index.js';
import { releaseInfo } from '../../src/releases/release-info.js';
import { containerArb, releaseArb } from '../support/arbitraries.js';
import { oracleCases, oracleExpected } from '../support/oracle.js';
import { publicExpected, publicOutcome, treeOutcome } from '../support/outcomes.js';

/** Compares fused, tree and public outcomes; returns whether the fused path handed over. */
function agree(input: unknown, version: string, escapes?: JsonEscapeMode, wr = false): boolean {
  const tree = treeOutcome(input, version, escapes, wr);
  const fused = fusedHash(input, releaseInfo(version), escapes, wr);
  if ('code' in tree) expect(fused, `tree throws ${tree.code}, fused must hand over`).toBe(NO_FUSED_HASH);
  else if (fused !== NO_FUSED_HASH) expect(fused).toBe(tree.hash);
  expect(publicOutcome(input, version, escapes, wr)).toEqual(publicExpected(input, tree));
  return fused === NO_FUSED_HASH;
}

/** JSON text of a parsed value, numbers written as their source text (exact, unlike JSON.stringify). */
function toText(v: unknown): string {
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const escapeModes = (version: string): (JsonEscapeMode | undefined)[] =>
  releaseInfo(version).algorithm === 'legacy' ? [undefined] : [undefined, 'go1.22', 'pre-go1.22'];

describe('fused hashers agree with the value tree', () => {
  it('on every oracle row, as object and as text, with every escape mode and HashContainerWithoutResources', () => {
    const texts = new Map(oracleCases().map((c) => [c.id, toText(c.container)]));
    const objects = new Map([...texts].map(([id, t]) => [id, JSON.parse(t) as unknown]));
    const handedOver = new Set<string>();
    const textHandedOver = new Set<string>();
    let fusedRows = 0;
    let textRows = 0;
    for (const row of oracleExpected()) {
      const text = texts.get(row.case)!;
      const object = objects.get(row.case)!;
      // The fused path itself reproduces the oracle, not just the tree path.
      const direct = fusedHash(object, releaseInfo(row.version), undefined);
      if (direct !== NO_FUSED_HASH) {
        expect(direct.toString(16), `${row.case}@${row.version}`).toBe(row.hash);
        fusedRows++;
      } else handedOver.add(row.case);
      // So does the text path on the tape.
      const viaText = fusedHash(text, releaseInfo(row.version), undefined);
      if (viaText !== NO_FUSED_HASH) {
        expect(viaText.toString(16), `text ${row.case}@${row.version}`).toBe(row.hash);
        textRows++;
      } else textHandedOver.add(row.case);
      for (const escapes of escapeModes(row.version)) {
        agree(object, row.version, escapes);
        agree(text, row.version, escapes);
        if (row.hashWithoutResources !== undefined) {
          agree(object, row.version, escapes, true);
          agree(text, row.version, escapes, true);
        }
      }
    }
    // Only values a JS number cannot hold exactly or map keys needing Go's U+FFFD repair hand over.
    expect([...handedOver].sort()).toEqual(['esc-in-map-keys', 'esc-sorting', 'ptr-int64-extremes']);
    // As text: escaped map keys (the strict parser decides them), and numbers that are not short
    // integers (int64 extremes, quantities written as JSON numbers), whose source text the tree path keeps.
    expect([...textHandedOver].sort()).toEqual(['esc-in-map-keys', 'ptr-int64-extremes', 'qty-json-numbers']);
    expect(fusedRows).toBeGreaterThan(4500);
    expect(textRows).toBeGreaterThan(4000);
  });

  test.prop([containerArb, releaseArb, fc.constantFrom<JsonEscapeMode | undefined>(undefined, 'go1.22', 'pre-go1.22')])(
    'on generated containers, as object and as text',
    (c, version, escapes) => {
      agree(c, version, escapes);
      agree(toText(c), version, escapes);
      if (releaseInfo(version).hashWithoutResources) agree(c, version, escapes, true);
    },
  );

  const odd = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      -0,
      1.5,
      2 ** 53 + 2,
      Number.NaN,
      10n,
      '\ud800',
      'a\udc00b',
      '',
      [],
      {},
      [[]],
      [{}],
      true,
      'x',
    ),
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
  );
  const fieldKey = fc.constantFrom(
    'name',
    'image',
    'command',
    'ports',
    'env',
    'resources',
    'workingDir',
    'stdin',
    'livenessProbe',
    'securityContext',
    'lifecycle',
    'volumeMounts',
    'envFrom',
  );
  const nestedKey = fc.constantFrom(
    'containerPort',
    'limits',
    'requests',
    'cpu',
    'value',
    'periodSeconds',
    'tcpSocket',
    'port',
    'runAsUser',
    'privileged',
    'name',
  );

  test.prop([containerArb, releaseArb, fieldKey, nestedKey, odd, fc.boolean()], { numRuns: 300 })(
    'on containers with unusual values: same hash, or a hand-over and the same error',
    (c, version, key, inner, value, nest) => {
      const input: Record<string, unknown> = { ...c };
      if (nest && input[key] !== null && typeof input[key] === 'object' && !Array.isArray(input[key]))
        input[key] = { ...input[key], [inner]: value };
      else if (nest && Array.isArray(input[key]) && (input[key] as unknown[]).length > 0)
        input[key] = [{ ...((input[key] as object[])[0] as object), [inner]: value }];
      else input[key] = value;
      agree(input, version);
      if (releaseInfo(version).hashWithoutResources) agree(input, version, undefined, true);
    },
  );

  const spelling = fc.constantFrom(
    '1.0',
    '1e3',
    '1E3',
    '-0',
    '0.5',
    '12345678901234567890',
    '007',
    '1.',
    '"\\u0030"',
    '"\\/"',
    '"1\\u0030"',
    '"\\ud800"',
    '"a\\tb"',
    'NaN',
  );
  test.prop([containerArb, releaseArb, fieldKey, nestedKey, spelling, fc.boolean()])(
    'on JSON text with number spellings, escapes and repeated keys the pre-scan must send to the strict parser',
    (c, version, key, inner, raw, repeat) => {
      const base = toText(c);
      const inside = `{"${inner}":${raw}}`;
      const text = repeat
        ? `${base.slice(0, -1)},"${key}":${inside},"${key}":1}`
        : `${base.slice(0, -1)},"${key}":${inside}}`;
      agree(text, version);
      agree(`${base.slice(0, -1)},"resources":{"limits":{"cpu":${raw}}}}`.replace(/^\{/, '{"zz":0,'), version);
    },
  );

  it('strings and map keys with unpaired surrogates (U+FFFD in Go)', () => {
    const inputs = [
      { name: '\ud800' },
      { name: 'a\udc00' },
      { name: 'x', image: 'i\ud83d' },
      { name: 'x', image: '\ud83d\ude00' },
      { name: 'x', env: [{ name: '\udfff', value: 'v\ud800' }] },
      { name: 'x', resources: { limits: { '\ud800': '1', cpu: '1' } } },
      { name: 'x', args: ['\u2028', '\ud83d\ude00\ud800'] },
    ];
    for (const version of ['1.8', '1.15', '1.29', '1.30', '1.36']) {
      for (const input of inputs) {
        agree(input, version);
        agree(JSON.stringify(input), version);
      }
    }
  });

  it('objects that JSON.stringify reads differently from their members hand over', () => {
    const inherited = Object.assign(Object.create({ image: 'hidden' }) as object, { name: 'a' });
    const hidden = Object.defineProperty({ name: 'a' }, 'image', { value: 'x', enumerable: false });
    const withToJson = { name: 'a', toJSON: () => ({ name: 'b' }) };
    const ports = Object.assign([{ containerPort: 1 }], { toJSON: () => [] });
    for (const version of ['1.8', '1.29', '1.36']) {
      for (const input of [inherited, hidden, withToJson, { name: 'a', ports }]) agree(input, version);
      // A hidden member is left out exactly as JSON.stringify leaves it out.
      expect(hashContainer(hidden, { kubeletVersion: version })).toBe(
        hashContainer({ name: 'a' }, { kubeletVersion: version }),
      );
    }
  });

  it('members the decoder does not see (inherited, non-enumerable) neither fail nor change the hash', () => {
    // The 1.31+ check reads members without asking whether they are own and enumerable: one that
    // is not may make it hand over, and the tree path, which skips it, then decides.
    const clean = { name: 'a', image: 'x', resources: { limits: { cpu: '1' } }, env: [{ name: 'E' }] };
    const inheritedBad = Object.assign(Object.create({ ports: 'bad', stdin: 1 }) as object, clean);
    const inheritedGood = Object.assign(Object.create({ ports: [{ containerPort: 80 }] }) as object, clean);
    const hiddenBad = Object.defineProperty({ ...clean }, 'args', { value: [1], enumerable: false });
    const limits = Object.assign(Object.create({ memory: 'not a quantity' }) as object, { cpu: '1' });
    const inheritedMapMember = { ...clean, resources: { limits } };
    const hiddenMapMember = {
      ...clean,
      resources: { limits: Object.defineProperty({ cpu: '1' }, 'memory', { value: '1.5.3', enumerable: false }) },
    };
    const undefinedMembers = { ...clean, ports: undefined, resources: { limits: { cpu: '1', memory: undefined } } };
    for (const version of ['1.8', '1.29', '1.31', '1.36']) {
      const expected = hashContainer(clean, { kubeletVersion: version });
      for (const input of [
        inheritedBad,
        inheritedGood,
        hiddenBad,
        inheritedMapMember,
        hiddenMapMember,
        undefinedMembers,
      ]) {
        agree(input, version);
        expect(hashContainer(input as never, { kubeletVersion: version })).toBe(expected);
      }
    }
  });

  it("as text, a key with a field's length and key hash but other bytes neither hides the field nor fails", () => {
    // The 1.31+ check finds members by key length and hash alone: `stdjO` has those of `stdin`.
    expect(keyHash('stdjO')).toBe(keyHash('stdin'));
    const head = '{"name":"a","image":"x",';
    const refused = ['"stdin":"no","stdjO":true}', '"stdjO":true,"stdin":"no"}'].map((t) => head + t);
    const accepted = ['"stdin":true,"stdjO":1}', '"stdjO":"b","stdin":true}', '"stdjO":false}'].map((t) => head + t);
    for (const version of ['1.29', '1.31', '1.36']) {
      for (const text of [...refused, ...accepted]) agree(text, version);
      for (const text of refused) expect(() => hashContainer(text, { kubeletVersion: version }), text).toThrow();
      for (const text of accepted.slice(0, 2))
        expect(hashContainer(text, { kubeletVersion: version }), text).toBe(
          hashContainer({ name: 'a', image: 'x', stdin: true }, { kubeletVersion: version }),
        );
    }
  });

  it('1.31+ refuses what the decoder refuses, wherever it is (the check passes nothing the tree path refuses)', () => {
    const base = { name: 'a', image: 'x' };
    // Plain JSON first: those are tried as text too.
    const json: Record<string, unknown>[] = [
      { ports: 'bad' },
      { ports: [{ containerPort: 2 ** 31 }] },
      { env: [{ name: 1 }] },
      { env: [{ name: 'E', valueFrom: { resourceFieldRef: { divisor: '1.5.3' } } }] },
      { resources: { limits: { cpu: '1.5.3' } } },
      { resources: { limits: { cpu: true } } },
      { resources: { limits: [] } },
      { livenessProbe: { periodSeconds: 1.5 } },
      { livenessProbe: { httpGet: { port: true } } },
      { securityContext: { privileged: 'yes' } },
      { command: { 0: 'a' } },
      { lifecycle: [] },
    ];
    const bad: Record<string, unknown>[] = [
      ...json,
      // A JS number beyond 2^53 (as text the int64 is exact, and valid).
      { livenessProbe: { terminationGracePeriodSeconds: 2 ** 53 } },
      { resources: { limits: new Map([['cpu', '1']]) } },
      { resources: { limits: Object.create(Date.prototype) as object } },
      { command: Object.assign(['a'], { toJSON: () => [] }) },
      { lifecycle: { toJSON: () => ({}) } },
    ];
    // The check on the tape; Quantity.UnmarshalJSON parses the raw text, where `\u002e` is no dot.
    const texts = json.map((member) => JSON.stringify({ ...base, ...member }));
    texts.push('{"name":"a","image":"x","resources":{"limits":{"cpu":"1\\u002e5"}}}');
    for (const version of ['1.31', '1.36']) {
      for (const [i, member] of bad.entries()) {
        const input = { ...base, ...member };
        expect(agree(input, version), `bad[${i}]`).toBe(true);
        expect(() => hashContainer(input as never, { kubeletVersion: version })).toThrow();
      }
      for (const text of texts) {
        expect(agree(text, version), text).toBe(true);
        expect(() => hashContainer(text, { kubeletVersion: version })).toThrow();
      }
    }
  });
});
