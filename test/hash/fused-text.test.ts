/**
 * The text scanner of the fused path (`src/hash/fused/text.ts`) against the strict parser and the
 * value tree: on random valid and broken container texts (repeated and escaped keys, every escape,
 * raw and escaped surrogates, deep nesting, every number spelling, cut or spliced text), the public
 * API must return exactly the tree path's hash or throw exactly its error code.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fusedHash, NO_FUSED_HASH } from '../../src/hash/fused/entry.js';
import { tape } from '../../src/hash/fused/tape.js';
import { scanContainerText, TEXT_DOUBT, TEXT_VALID } from '../../src/hash/fused/text.js';
import { utf8Text } from '../../src/hash/fused/utf8-text.js';
import { hashContainer, parseJson } from '../../src/index.js';
import { releaseInfo } from '../../src/releases/release-info.js';
import { publicExpected, publicOutcome, treeOutcome } from '../support/outcomes.js';

const VERSIONS = ['1.8', '1.16', '1.29', '1.36'];

function agree(text: string): void {
  let valid = true;
  try {
    parseJson(text);
  } catch {
    valid = false;
  }
  const kind = scanContainerText(text);
  // The scanner never calls text valid that the strict parser refuses.
  if (!valid) expect(kind).toBe(TEXT_DOUBT);
  for (const version of VERSIONS) {
    const tree = treeOutcome(text, version);
    const fused = fusedHash(text, releaseInfo(version), undefined);
    if ('code' in tree) expect(fused, `tree throws ${tree.code}`).toBe(NO_FUSED_HASH);
    else if (fused !== NO_FUSED_HASH) expect(fused).toBe(tree.hash);
    expect(publicOutcome(text, version)).toEqual(publicExpected(text, tree));
  }
}

const ws = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');
const keyText = fc.oneof(
  fc.constantFrom(
    'name',
    'image',
    'command',
    'ports',
    'containerPort',
    'resources',
    'limits',
    'cpu',
    'env',
    'value',
    'tty',
    // Members of Pods, workloads and pod specs: the scan reports them for the NOT_A_CONTAINER check.
    'kind',
    'spec',
    'containers',
    'ephemeralContainers',
  ),
  fc.constantFrom('na\\u006de', 'im\\/age', '\\"', 'n\\tame', '\ud83d\ude00', '\ud800', 'a\\ud800'),
  fc.string({ maxLength: 4 }),
);
const stringBody = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom(
    'a\\"b',
    '\\\\',
    '\\/',
    '\\b\\f\\n\\r\\t',
    '\\u0030',
    '\\uD83D\\uDE00',
    '\\ud800',
    '\\u12',
    '\\x',
    '\ud83d\ude00',
    '\udc00',
    'a\u0001',
    'nginx:1.25',
  ),
);
const numberText = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1',
    '-1',
    '1.0',
    '1e3',
    '1E+3',
    '2e-1',
    '0.5',
    '007',
    '1.',
    '.5',
    '-',
    '123456789012345',
    '1234567890123456',
    '12345678901234567890',
    '9007199254740993',
    '1e400',
  ),
  fc.integer().map(String),
);
const tie = fc.letrec<{ value: string; obj: string }>((t) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    stringBody.map((b) => `"${b}"`),
    numberText,
    fc.constantFrom('true', 'false', 'null', 'tru', 'nul'),
    fc.array(t('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    t('obj'),
  ),
  obj: fc.array(fc.tuple(keyText, ws, t('value'), ws), { maxLength: 4 }).chain((members) =>
    fc.boolean().map((repeat) => {
      const parts = members.map(([k, a, v, b]) => `"${k}"${a}:${b}${v}`);
      if (repeat && parts.length > 0) parts.push(parts[0]!);
      return `{${parts.join(',')}}`;
    }),
  ),
}));

/** A container text: name and image (maybe odd) plus random members. */
const containerText = fc
  .tuple(stringBody, stringBody, tie.obj, ws)
  .map(
    ([name, image, rest, w]) =>
      `${w}{"name":"${name}",${w}"image":"${image}"${rest === '{}' ? '' : ',' + rest.slice(1, -1)}}${w}`,
  );

/** Breaks a text: cut, splice a character in, or drop one. */
const broken = fc
  .tuple(
    containerText,
    fc.nat(),
    fc.constantFrom('', '"', '\\', ',', '}', ']', ':', '{', '[', '\u0000', '\ud800', 'e', '.', '-', ' '),
    fc.constantFrom('cut', 'insert', 'drop'),
  )
  .map(([text, at, ch, how]) => {
    const i = at % (text.length + 1);
    if (how === 'cut') return text.slice(0, i);
    if (how === 'insert') return text.slice(0, i) + ch + text.slice(i);
    return text.slice(0, i) + text.slice(i + 1);
  });

describe('container text: scanner, strict parser and value tree agree', () => {
  test.prop([containerText], { numRuns: 400 })('on random container texts', (text) => {
    agree(text);
  });
  test.prop([broken], { numRuns: 400 })('on cut and spliced container texts', (text) => {
    agree(text);
  });

  it('on deep nesting, top-level name and image in every form, and non-object roots', () => {
    const texts = [
      `{"name":"a","image":"b","x":${'['.repeat(499)}${']'.repeat(499)}}`,
      `{"name":"a","image":"b","x":${'['.repeat(520)}${']'.repeat(520)}}`,
      `{"name":"a","image":"b","x":${'{"y":'.repeat(600)}1${'}'.repeat(600)}}`,
      '{"name":"a\\u0062","image":"\\/x"}',
      '{"name":"\\ud800","image":"i"}',
      '{"name":"\ud83d\ude00","image":"i"}',
      '{"name":1,"image":"i"}',
      '{"name":null,"image":["i"]}',
      '{"image":"i","name":"n","name":"m"}',
      '{"nam\\u0065":"n","name":"m"}',
      '{"env":[{"name":"a"},{"name":"a"}],"name":"x"}',
      '["name"]',
      '"name"',
      '',
      '{}',
      '{"name":"x"} {}',
      '{"name":"x",}',
      // Numbers in hashed fields, where the spelling decides the hash or the error.
      ...['80', '-0', '8.0', '8e1', '1234567890123456', '9007199254740993', '12345678901234567890'].flatMap((n) => [
        `{"name":"a","ports":[{"containerPort":${n}}]}`,
        `{"name":"a","resources":{"limits":{"cpu":${n}}}}`,
        `{"name":"a","livenessProbe":{"exec":{"command":["x"]},"periodSeconds":${n}},"securityContext":{"runAsUser":${n}}}`,
      ]),
    ];
    for (const text of texts) agree(text);
  });

  it('classifies valid and doubtful text', () => {
    expect(scanContainerText('{"name":"a","ports":[{"containerPort":80}]}')).toBe(TEXT_VALID);
    expect(scanContainerText('{"name":"a","cpu":1e3}')).toBe(TEXT_VALID);
    expect(scanContainerText('{"name":"\\u0061"}')).toBe(TEXT_VALID);
    expect(scanContainerText('{"name":"a","name":"b"}')).toBe(TEXT_DOUBT);
    expect(scanContainerText('{"name":"a"')).toBe(TEXT_DOUBT);
    expect(scanContainerText('[]')).toBe(TEXT_DOUBT);
  });

  it('reads the text as UTF-8 bytes: characters beyond the BMP pass, lone surrogates and cut text do not', () => {
    expect(scanContainerText('{"name":"\ud83d\ude00","\u00e9t\u00e9":1}')).toBe(TEXT_VALID);
    expect(scanContainerText('{"name":"a\ud800"}')).toBe(TEXT_DOUBT);
    expect(scanContainerText('{"name":"a\udc00b"}')).toBe(TEXT_DOUBT);
    expect(scanContainerText('{"name":"a\u0000"}')).toBe(TEXT_DOUBT); // a raw NUL, like the one after the text
    expect(scanContainerText('{"name":"a\nb"}')).toBe(TEXT_DOUBT);
    // Cut inside a string, an escape, a literal, a number: the scan stops at the end, whatever the scratch held before.
    scanContainerText(`{"name":"${'x'.repeat(200)}","tty":true,"a":12345}`);
    for (const cut of ['{"name":"ab', '{"name":"a\\', '{"name":"a\\u00', '{"tty":tru', '{"a":-', '{"a":1.', '{"a":1e'])
      expect(scanContainerText(cut), cut).toBe(TEXT_DOUBT);
  });

  it('finds a repeated key among many, and tells apart keys that share a filter bit', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`); // more than the key scratch holds at first
    const object = (ks: string[]): string => `{${ks.map((k, i) => `"${k}":${i}`).join(',')}}`;
    expect(scanContainerText(object(keys))).toBe(TEXT_VALID);
    expect(scanContainerText(object([...keys, 'k117']))).toBe(TEXT_DOUBT);
    // The same key in sibling and nested objects is no repeat; in the outer object after a nested one it is.
    expect(scanContainerText('{"a":{"a":1},"b":[{"a":1},{"a":2}]}')).toBe(TEXT_VALID);
    expect(scanContainerText('{"a":{"b":1},"b":2,"a":3}')).toBe(TEXT_DOUBT);
  });

  it('does not hold on to the tape, bytes and text of a very large text', () => {
    const env = Array.from({ length: 70_000 }, (_, i) => ({ name: `V${i}`, value: 'x' }));
    const text = JSON.stringify({ name: 'a', image: 'b', env });
    for (const version of ['1.8', '1.29']) {
      expect(hashContainer(text, { kubeletVersion: version })).toBe(
        hashContainer(JSON.parse(text) as object, { kubeletVersion: version }),
      );
      expect(tape.kind.length).toBeLessThanOrEqual(256);
      expect(utf8Text.bytes.length).toBeLessThanOrEqual(1024);
      expect(utf8Text.text).toBe('');
    }
  });

  it('hashes valid text from the tape, and leaves escaped quantities and other number spellings to the tree', () => {
    // As Go's json.Marshal (and so kubectl -o json) writes `&&`, `<` and `>`: \u escapes.
    const container = {
      name: 'web',
      image: 'nginx',
      command: ['sh', '-c', 'test -f /a && echo <ok> \ud83d\ude00'],
      resources: { limits: { cpu: '500m' } },
    };
    const goText = JSON.stringify(container).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
    expect(scanContainerText(goText)).toBe(TEXT_VALID);
    for (const version of ['1.8', '1.16', '1.29']) {
      const fused = fusedHash(goText, releaseInfo(version), undefined);
      expect(fused, version).not.toBe(NO_FUSED_HASH);
      expect(fused.toString(16)).toBe(hashContainer(container, { kubeletVersion: version }));
    }
    // An escaped quantity is parsed from its raw text by Go (and refused here): the tree path decides.
    const escapedQuantity = '{"name":"a","resources":{"limits":{"cpu":"5\\u0030m"}}}';
    const cpuAsExponent = '{"name":"a","resources":{"limits":{"cpu":1e3}}}';
    for (const text of [escapedQuantity, cpuAsExponent]) {
      expect(fusedHash(text, releaseInfo('1.29'), undefined)).toBe(NO_FUSED_HASH);
      agree(text);
    }
  });

  it('hashes int64 members beyond 2^53 from their text, and leaves -2^63, overflow and int32 fields to the tree', () => {
    const at = (n: string, field = 'runAsUser'): string =>
      `{"name":"app","image":"busybox","securityContext":{"${field}":${n}},"livenessProbe":{"exec":{"command":["x"]},"terminationGracePeriodSeconds":${n}}}`;
    const asObject = (n: string) => ({
      name: 'app',
      image: 'busybox',
      securityContext: { runAsUser: BigInt(n) },
      livenessProbe: { exec: { command: ['x'] }, terminationGracePeriodSeconds: BigInt(n) },
    });
    for (const n of [
      '9007199254740993',
      '-9007199254740993',
      '1152921504606846976',
      '9223372036854775807',
      '-9223372036854775807',
      '1234567890123456',
    ]) {
      for (const version of ['1.8', '1.15', '1.16', '1.29', '1.30', '1.36']) {
        const fused = fusedHash(at(n), releaseInfo(version), undefined);
        expect(fused, `${version} ${n}`).not.toBe(NO_FUSED_HASH);
        // The object with bigints takes the tree path: the text's hash must be its hash.
        expect(fused.toString(16), `${version} ${n}`).toBe(hashContainer(asObject(n), { kubeletVersion: version }));
      }
    }
    // -2^63 fits an int64 but is left to the tree; 2^63 and 20 digits overflow; -0 and 1e17 are other spellings.
    for (const n of [
      '-9223372036854775808',
      '9223372036854775808',
      '12345678901234567890',
      '-0',
      '100000000000000000e0',
    ])
      for (const version of ['1.8', '1.29']) {
        expect(fusedHash(at(n), releaseInfo(version), undefined), `${version} ${n}`).toBe(NO_FUSED_HASH);
        agree(at(n));
      }
    // runAsUser is an int64, but a port is an int32: beyond 2^31 the tree path refuses it.
    const port = '{"name":"app","image":"busybox","ports":[{"containerPort":9007199254740993}]}';
    expect(fusedHash(port, releaseInfo('1.29'), undefined)).toBe(NO_FUSED_HASH);
    agree(port);
  });
});
