/**
 * The decode stage against Go's encoding/json (decode.go) and the apimachinery Unmarshalers, on
 * inputs the oracle does not cover. Each table states the Go rule it pins down; the expected
 * values are Go's (reasoned from the upstream functions named), not copies of our output.
 * Pipeline modelled: apiserver Unmarshal (sigs.k8s.io/json: encoding/json semantics, exact-case
 * keys) → one Marshal→Unmarshal round trip → kubelet. We read the 1.29 JSON pre-image (what
 * json.Marshal writes for the decoded container) and, where Go types matter, the 1.15 spew text.
 */
import { describe, expect, it } from 'vitest';
import { JsonNumber, type ErrorCode } from '../../src/index.js';
import { hashingWithoutNameCheck } from '../../src/hash-api/hash.js';
import { errorOf } from '../support/error-of.js';

// Go semantics of decoding, checked on container fragments: the public functions' name check
// (tested in api-misuse.test.ts) is not what these tests are about.
const { hashContainer, preimage } = hashingWithoutNameCheck;

const JSON_ERA = { kubeletVersion: '1.29' };
const LEGACY = { kubeletVersion: '1.15' };

/** The container as the 1.29 kubelet's json.Marshal writes it, parsed back for easy picking. */
function marshal(c: string | object): Record<string, unknown> {
  return JSON.parse(preimage(c, JSON_ERA).text) as Record<string, unknown>;
}

function spew(c: string | object): string {
  return preimage(c, LEGACY).text;
}

const codeOf = (fn: () => unknown): ErrorCode => errorOf(fn).code;

/** `{"name":"a", <member>}` as JSON text. */
const withMember = (member: string): string => `{"name":"a",${member}}`;

describe('null: literalStore leaves non-pointers alone, indirect(v, decodingNull) nils pointers/slices/maps', () => {
  // [what, member, what json.Marshal then writes at that place (undefined = omitted)]
  const table: Array<[string, string, (m: Record<string, unknown>) => unknown, unknown]> = [
    ['string field: stays ""', '"image":null', (m) => m['image'], undefined],
    ['bool field: stays false', '"stdin":null', (m) => m['stdin'], undefined],
    ['int32 field: stays 0', '"ports":[{"containerPort":null}]', (m) => m['ports'], [{ containerPort: 0 }]],
    ['*int64: nil', '"securityContext":{"runAsUser":null}', (m) => m['securityContext'], {}],
    ['*struct: nil', '"securityContext":null', (m) => m['securityContext'], undefined],
    ['struct (resources): zero value', '"resources":null', (m) => m['resources'], {}],
    ['slice: nil', '"command":null', (m) => m['command'], undefined],
    ['[]string element: ""', '"command":[null,"x"]', (m) => m['command'], ['', 'x']],
    ['[]struct element: zero struct', '"ports":[null]', (m) => m['ports'], [{ containerPort: 0 }]],
    ['[]EnvVar element: zero struct', '"env":[null]', (m) => m['env'], [{ name: '' }]],
    ['map: nil', '"resources":{"limits":null}', (m) => m['resources'], {}],
    // object(): a fresh zero map element, Quantity.UnmarshalJSON("null") keeps it zero,
    // MarshalJSON writes the zero Quantity as "0", the kubelet parses "0".
    [
      'map value Quantity: zero, then "0"',
      '"resources":{"limits":{"cpu":null}}',
      (m) => m['resources'],
      { limits: { cpu: '0' } },
    ],
    [
      'Quantity struct field (divisor): "0"',
      '"env":[{"name":"e","valueFrom":{"resourceFieldRef":{"resource":"cpu","divisor":null}}}]',
      (m) => m['env'],
      [{ name: 'e', valueFrom: { resourceFieldRef: { resource: 'cpu', divisor: '0' } } }],
    ],
    // IntOrString.UnmarshalJSON: not a quote, so Type Int and json.Unmarshal(null, &IntVal) is a no-op.
    [
      'IntOrString: Int 0',
      '"livenessProbe":{"httpGet":{"port":null}}',
      (m) => m['livenessProbe'],
      { httpGet: { port: 0 } },
    ],
    // Round trip: a non-nil pointer to a zero struct is not omitted; [] and {} are (omitempty).
    ['{} behind a pointer survives', '"lifecycle":{}', (m) => m['lifecycle'], {}],
    ['[] becomes nil', '"args":[]', (m) => m['args'], undefined],
    ['{} map becomes nil', '"resources":{"requests":{}}', (m) => m['resources'], {}],
  ];
  it.each(table)('%s', (_what, member, pick, expected) => {
    const text = withMember(member);
    expect(pick(marshal(text))).toEqual(expected);
    // JSON.parse'd objects (JS null) decode the same as the text.
    expect(hashContainer(JSON.parse(text) as object, JSON_ERA)).toBe(hashContainer(text, JSON_ERA));
  });

  it('spew shows the Go values behind them (zero Quantity re-parsed from "0" caches s "0")', () => {
    const s = spew(
      withMember('"resources":{"limits":{"cpu":null}},"livenessProbe":{"httpGet":{"port":null}},"ports":[null]'),
    );
    expect(s).toContain(
      'Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)0 Format:(resource.Format)DecimalSI}]',
    );
    expect(s).toContain('Port:(intstr.IntOrString){Type:(intstr.Type)0 IntVal:(int32)0 StrVal:(string)}');
    expect(s).toContain(
      'Ports:([]v1.ContainerPort)[{Name:(string) HostPort:(int32)0 ContainerPort:(int32)0 Protocol:(v1.Protocol) HostIP:(string)}]',
    );
  });
});

describe('numbers into int32/int64: literalStore runs strconv.ParseInt(text, 10, 64) and checks OverflowInt', () => {
  const port = (n: string): string => withMember(`"ports":[{"containerPort":${n}}]`);
  const user = (n: string): string => withMember(`"securityContext":{"runAsUser":${n}}`);
  const portOf = (t: string): unknown => (marshal(t)['ports'] as Array<Record<string, unknown>>)[0]!['containerPort'];
  const userText = (t: string): string => preimage(t, JSON_ERA).text.match(/"runAsUser":(-?\d+)/)![1]!;

  it.each([
    ['-0', 0],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ])('int32 %s → %s', (n, v) => {
    expect(portOf(port(n))).toBe(v);
  });

  it.each([
    ['-0', '0'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9007199254740993', '9007199254740993'],
  ])('int64 %s → %s exactly', (n, v) => {
    expect(userText(user(n))).toBe(v);
  });

  // Go: UnmarshalTypeError, so the apiserver rejects the object; we throw.
  it.each<[string, string, ErrorCode]>([
    ['int32', '2147483648', 'INT_OUT_OF_RANGE'],
    ['int32', '-2147483649', 'INT_OUT_OF_RANGE'],
    ['int32', '1.0', 'NOT_AN_INTEGER'],
    ['int32', '1e2', 'NOT_AN_INTEGER'],
    ['int32', '1e400', 'NOT_AN_INTEGER'],
    ['int32', '"80"', 'INVALID_TYPE'],
    ['int32', 'true', 'INVALID_TYPE'],
    ['int32', '00', 'INVALID_JSON'], // the scanner rejects it before any Unmarshal
    ['int64', '9223372036854775808', 'INT_OUT_OF_RANGE'],
    ['int64', '-9223372036854775809', 'INT_OUT_OF_RANGE'],
    ['int64', '1E2', 'NOT_AN_INTEGER'],
    ['int64', '{}', 'INVALID_TYPE'],
  ])('%s given %s → %s', (kind, n, code) => {
    expect(codeOf(() => hashContainer(kind === 'int32' ? port(n) : user(n), JSON_ERA))).toBe(code);
  });

  it('JS numbers stand for JSON.stringify text; bigints are exact; rounded doubles and bad JsonNumbers are refused', () => {
    const p = (v: unknown): unknown =>
      (marshal({ name: 'a', ports: [{ containerPort: v }] })['ports'] as Array<Record<string, unknown>>)[0]![
        'containerPort'
      ];
    expect(p(-0)).toBe(0);
    expect(p(1e2)).toBe(100); // JSON.stringify(1e2) is "100"
    expect(p(80n)).toBe(80);
    expect(p(new JsonNumber('80'))).toBe(80);
    const u = (v: unknown): string => preimage({ name: 'a', securityContext: { runAsUser: v } }, JSON_ERA).text;
    expect(u(2 ** 53 - 1)).toContain('"runAsUser":9007199254740991');
    expect(u(-(2n ** 63n))).toContain('"runAsUser":-9223372036854775808');
    expect(codeOf(() => u(2 ** 53))).toBe('UNSAFE_INTEGER');
    expect(codeOf(() => u(2n ** 63n))).toBe('INT_OUT_OF_RANGE');
    expect(codeOf(() => u(Number.NaN))).toBe('NOT_AN_INTEGER');
    for (const text of ['007', '+5', '0x10', ' 5', '1.', ''])
      expect(codeOf(() => u(new JsonNumber(text)))).toBe('INVALID_JSON');
  });

  it('a number for a string field and a string for a bool field are type errors (no ,string tags in v1.Container)', () => {
    expect(codeOf(() => hashContainer('{"name":1}', JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer(withMember('"tty":"true"'), JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer(withMember('"command":[1]'), JSON_ERA))).toBe('INVALID_TYPE');
  });
});

describe('IntOrString.UnmarshalJSON: a leading quote means Type String, anything else json.Unmarshal into int32', () => {
  const probe = (port: string): string => withMember(`"livenessProbe":{"tcpSocket":{"port":${port}}}`);
  it.each([
    ['"8080"', 'Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)8080', '"8080"'],
    ['8080', 'Type:(intstr.Type)0 IntVal:(int32)8080 StrVal:(string)}', '8080'],
    ['-0', 'Type:(intstr.Type)0 IntVal:(int32)0 StrVal:(string)}', '0'],
    ['null', 'Type:(intstr.Type)0 IntVal:(int32)0 StrVal:(string)}', '0'],
    ['""', 'Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)}', '""'],
    ['"\\ud800x"', 'Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)\ufffdx}', '"\ufffdx"'],
  ])('%s', (port, spewText, jsonText) => {
    expect(spew(probe(port))).toContain(`Port:(intstr.IntOrString){${spewText}`);
    expect(preimage(probe(port), JSON_ERA).text).toContain(`"tcpSocket":{"port":${jsonText}}`);
  });

  it.each<[string, ErrorCode]>([
    ['true', 'INVALID_TYPE'],
    ['{}', 'INVALID_TYPE'],
    ['[8080]', 'INVALID_TYPE'],
    ['1.5', 'NOT_AN_INTEGER'],
    ['2147483648', 'INT_OUT_OF_RANGE'],
  ])('%s is an UnmarshalTypeError → %s', (port, code) => {
    expect(codeOf(() => hashContainer(probe(port), JSON_ERA))).toBe(code);
  });
});

describe('strings: unquote maps an unpaired UTF-16 surrogate escape to U+FFFD and keeps everything else', () => {
  // [JSON string body as written, the Go string]
  const table: Array<[string, string]> = [
    ['\\ud800', '\ufffd'],
    ['\\udc00x', '\ufffdx'],
    ['\\ud800\\u0041', '\ufffdA'], // high surrogate followed by a non-surrogate escape: that escape is kept
    ['\\ud800\\ud800\\udc00', '\ufffd\u{10000}'], // the second escape pairs with the third
    ['\\udc00\\ud800', '\ufffd\ufffd'],
    ['\\ud83d\\ude00', '\u{1f600}'],
    ['\\ud83d😀', '\ufffd\u{1f600}'], // an escape never pairs with a raw character
    ['\\ufffd', '\ufffd'],
    ['a\\u0000b', 'a\u0000b'],
  ];
  it.each(table)('"%s" as a value and as a map key', (body, go) => {
    const text = `{"name":"${body}","resources":{"limits":{"${body}":"1"}}}`;
    const m = marshal(text);
    expect(m['name']).toBe(go);
    expect(Object.keys((m['resources'] as { limits: object }).limits)).toEqual([go]);
    // The same string held in a JS object (JSON.stringify would escape the lone surrogates).
    const js = JSON.parse(`"${body}"`) as string;
    expect(hashContainer({ name: js, resources: { limits: { [js]: '1' } } }, JSON_ERA)).toBe(
      hashContainer(text, JSON_ERA),
    );
  });

  it('map keys equal after repair collapse to one entry, the later value winning (object() assigns in order)', () => {
    const limits = (m: Record<string, unknown>): unknown => (m['resources'] as { limits: unknown }).limits;
    expect(limits(marshal('{"resources":{"limits":{"\\ud800":"1","\\udc00":"2"}}}'))).toEqual({ '\ufffd': '2' });
    expect(limits(marshal('{"resources":{"limits":{"\\udc00":"2","\\ufffd":"3"}}}'))).toEqual({ '\ufffd': '3' });
    expect(limits(marshal({ resources: { limits: { '\ufffd': '3', '\ud800': '1' } } }))).toEqual({ '\ufffd': '1' });
  });

  it('keys are unquoted before they are matched to fields', () => {
    expect(marshal('{"n\\u0061me":"x","\\u0069mage":"y"}')).toMatchObject({ name: 'x', image: 'y' });
    expect(marshal('{"name\\ud800":"x"}')['name']).toBe(''); // "name\ufffd" is an unknown field
  });
});

describe('Quantity.UnmarshalJSON: null is zero; else the raw token, quotes stripped, strings.TrimSpace, ParseQuantity', () => {
  const cpu = (c: string | object): unknown =>
    (marshal(c)['resources'] as { limits: Record<string, unknown> }).limits['cpu'];
  const text = (v: string): string => `{"resources":{"limits":{"cpu":${v}}}}`;

  it.each([
    ['" 1 "', '1'], // ASCII spaces arrive raw and are trimmed
    ['"0.5"', '500m'],
    ['1e2', '100'], // a JSON number's text is parsed as is
    ['1E3', '1E3'], // … and may be cached verbatim as s
    ['-0', '0'],
    ['1.0', '1'],
    ['0.5', '500m'],
    ['1e400', '10e399'], // int32 exponent arithmetic, canonical DecimalExponent
    ['1000000000000000000000', '1'], // upstream: DecimalSI ≥ 10^21 has no suffix and loses the exponent
  ])('%s → %s', (v, expected) => {
    expect(cpu(text(v))).toBe(expected);
  });

  it.each<[string, string, ErrorCode]>([
    // Raw bytes between the quotes still hold the escape, so ParseQuantity sees a backslash.
    ['an escaped tab', '"\\t1"', 'INVALID_QUANTITY'],
    ['an escaped newline', '"1\\n"', 'INVALID_QUANTITY'],
    ['a lone surrogate', '"1\\ud800"', 'INVALID_QUANTITY'],
    ['the empty string', '""', 'INVALID_QUANTITY'],
    // Non-ASCII spaces: raw they are trimmed, escaped (Go's encoder does it for U+2028, Python's
    // for all) they are not — depends on the client, so refused.
    ['U+00A0 around it', '"\\u00a01"', 'INVALID_QUANTITY'],
    ['raw U+2028 around it', '"1\u2028"', 'INVALID_QUANTITY'],
    ['raw U+3000 around it', '"\u30001"', 'INVALID_QUANTITY'],
    ['a boolean', 'true', 'INVALID_TYPE'],
    ['an object', '{}', 'INVALID_TYPE'],
    ['an array', '["1"]', 'INVALID_TYPE'],
  ])('%s (%s) → %s', (_what, v, code) => {
    expect(codeOf(() => hashContainer(text(v), JSON_ERA))).toBe(code);
  });

  it('JS values: strings are spelled as JSON.stringify spells them; numbers as String(n); bigint exact', () => {
    expect(codeOf(() => hashContainer({ resources: { limits: { cpu: '\t1' } } }, JSON_ERA))).toBe('INVALID_QUANTITY');
    expect(codeOf(() => hashContainer({ resources: { limits: { cpu: '1\u00a0' } } }, JSON_ERA))).toBe(
      'INVALID_QUANTITY',
    );
    expect(cpu({ resources: { limits: { cpu: ' 2 ' } } })).toBe('2');
    expect(cpu({ resources: { limits: { cpu: 0.1 } } })).toBe('100m');
    expect(cpu({ resources: { limits: { cpu: 1e-7 } } })).toBe('100e-9'); // String(1e-7) is "1e-7": an e suffix, so DecimalExponent
    expect(cpu({ resources: { limits: { cpu: 10n ** 21n } } })).toBe('1');
    expect(cpu({ resources: { limits: { cpu: new JsonNumber('1E3') } } })).toBe('1E3');
    expect(codeOf(() => hashContainer({ resources: { limits: { cpu: 1e21 } } }, JSON_ERA))).toBe('UNSAFE_INTEGER');
    expect(codeOf(() => hashContainer({ resources: { limits: { cpu: Infinity } } }, JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer({ resources: { limits: { cpu: new JsonNumber('1Gi') } } }, JSON_ERA))).toBe(
      'INVALID_JSON',
    );
  });
});

describe('embedded structs: fields of an untagged anonymous struct are promoted (typeFields), outer names dominate', () => {
  it('Probe handler fields sit at the Probe level; a "Handler" key is no field', () => {
    const text = withMember(
      '"livenessProbe":{"exec":{"command":["x"]},"Handler":{"tcpSocket":{"port":1}},"periodSeconds":3}',
    );
    expect(spew(text)).toContain(
      'LivenessProbe:(*v1.Probe){Handler:(v1.Handler){Exec:(*v1.ExecAction){Command:([]string)[x]} HTTPGet:(*v1.HTTPGetAction)<nil> TCPSocket:(*v1.TCPSocketAction)<nil>} InitialDelaySeconds:(int32)0 TimeoutSeconds:(int32)0 PeriodSeconds:(int32)3',
    );
    expect(marshal(text)['livenessProbe']).toEqual({ exec: { command: ['x'] }, periodSeconds: 3 });
  });

  it('secretKeyRef.name fills the embedded LocalObjectReference; "LocalObjectReference" is no key', () => {
    const env = (ref: string): string => withMember(`"env":[{"name":"e","valueFrom":{"secretKeyRef":${ref}}}]`);
    expect(spew(env('{"name":"s","key":"k"}'))).toContain(
      'SecretKeyRef:(*v1.SecretKeySelector){LocalObjectReference:(v1.LocalObjectReference){Name:(string)s} Key:(string)k Optional:(*bool)<nil>}',
    );
    expect(spew(env('{"LocalObjectReference":{"name":"s"},"key":"k"}'))).toContain(
      '{LocalObjectReference:(v1.LocalObjectReference){Name:(string)} Key:(string)k',
    );
  });
});

describe('keys match exactly (sigs.k8s.io/json, and json-iterator CaseSensitive since kubernetes#65034)', () => {
  it('a mis-cased key is an unknown field and is dropped, not matched case-insensitively as encoding/json would', () => {
    expect(marshal('{"Name":"a","IMAGE":"b","name":"c"}')).toMatchObject({ name: 'c' });
    expect(marshal('{"Name":"a"}')['name']).toBe('');
  });
});

describe('JS objects stand for the JSON text JSON.stringify would send', () => {
  const base = (): string => hashContainer('{"name":"a","image":"i"}', JSON_ERA);

  it('null-prototype objects are plain data; undefined members are left out like JSON.stringify does', () => {
    expect(hashContainer(Object.assign(Object.create(null) as object, { name: 'a', image: 'i' }), JSON_ERA)).toBe(
      base(),
    );
    expect(hashContainer({ name: 'a', image: 'i', workingDir: undefined, securityContext: undefined }, JSON_ERA)).toBe(
      base(),
    );
    // In a map an undefined value leaves no key: not a zero Quantity "0".
    expect(hashContainer({ name: 'a', image: 'i', resources: { limits: { cpu: undefined } } }, JSON_ERA)).toBe(base());
    // A hole in an array is written as null.
    // eslint-disable-next-line no-sparse-arrays
    expect(marshal({ name: 'a', command: ['x', , 'y'] })['command']).toEqual(['x', '', 'y']);
  });

  it('non-enumerable and inherited properties are not sent', () => {
    const hidden = { name: 'a', image: 'i' };
    Object.defineProperty(hidden, 'workingDir', { value: '/w', enumerable: false });
    Object.defineProperty(hidden, 'tty', { value: true, enumerable: false });
    expect(hashContainer(hidden, JSON_ERA)).toBe(base());
    expect(hashContainer(hidden, { kubeletVersion: '1.31' })).toBe(
      hashContainer('{"name":"a","image":"i"}', { kubeletVersion: '1.31' }),
    );
    const nameHidden = { image: 'i' };
    Object.defineProperty(nameHidden, 'name', { value: 'a', enumerable: false });
    expect(marshal(nameHidden)['name']).toBe('');
  });

  it("class instances (client libraries' models) are objects: their own enumerable members are what is sent", () => {
    class Container {
      name = 'a';
      image = 'i';
      workingDir: string | undefined = undefined;
      describe(): string {
        return this.name;
      }
    }
    class Special extends Container {}
    expect(hashContainer(new Container(), JSON_ERA)).toBe(base());
    expect(hashContainer(new Special(), { kubeletVersion: '1.31' })).toBe(
      hashContainer('{"name":"a","image":"i"}', { kubeletVersion: '1.31' }),
    );
    // Inherited data is not sent (JSON.stringify gives {}), whatever the prototype is.
    expect(marshal(Object.create({ name: 'inherited' }) as object)['name']).toBe('');
  });

  it('what JSON.stringify would send differently is refused, not guessed: toJSON, Map, Set, Date, RegExp, boxed values', () => {
    const viaToJson = { name: 'a', toJSON: () => ({ name: 'b' }) };
    expect(codeOf(() => hashContainer(viaToJson, JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer(viaToJson, { kubeletVersion: '1.31' }))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer({ name: 'a', securityContext: { toJSON: () => ({}) } }, JSON_ERA))).toBe(
      'INVALID_TYPE',
    );
    class WithToJson {
      name = 'a';
      toJSON(): object {
        return { name: 'b' };
      }
    }
    expect(codeOf(() => hashContainer(new WithToJson(), JSON_ERA))).toBe('INVALID_TYPE');
    class Limits extends Map<string, string> {}
    expect(
      codeOf(() => hashContainer({ name: 'a', resources: { limits: new Limits([['cpu', '1']]) } }, JSON_ERA)),
    ).toBe('INVALID_TYPE');
    for (const exotic of [
      new Set(),
      /x/,
      new String('a'),
      new Number(1),
      new Uint8Array(2),
      new Error('x'),
      Promise.resolve(),
    ]) {
      expect(codeOf(() => hashContainer({ name: 'a', securityContext: exotic }, JSON_ERA))).toBe('INVALID_TYPE');
      expect(codeOf(() => hashContainer(exotic, JSON_ERA))).toBe('INVALID_TYPE');
    }
    expect(() => hashContainer(new Map(), JSON_ERA)).toThrow(/found a Map/);
    expect(codeOf(() => hashContainer({ name: 'a', resources: { limits: new Map([['cpu', '1']]) } }, JSON_ERA))).toBe(
      'INVALID_TYPE',
    );
    expect(codeOf(() => hashContainer({ name: new Date(0) }, JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer({ name: 'a', resources: [] }, JSON_ERA))).toBe('INVALID_TYPE');
    expect(codeOf(() => hashContainer({ name: 'a', ports: { 0: { containerPort: 1 } } }, JSON_ERA))).toBe(
      'INVALID_TYPE',
    );
  });
});

describe('JSON text details Go sees that a JS value cannot show (our parser keeps them)', () => {
  const v = { kubeletVersion: '1.29' };

  it('Quantity.UnmarshalJSON parses the raw bytes between the quotes: escaped digits are no quantity', () => {
    expect(codeOf(() => hashContainer('{"resources":{"limits":{"cpu":"1\\u0030"}}}', v))).toBe('INVALID_QUANTITY');
    expect(
      codeOf(() =>
        hashContainer(
          '{"env":[{"name":"a","valueFrom":{"resourceFieldRef":{"resource":"x","divisor":"\\u0031"}}}]}',
          v,
        ),
      ),
    ).toBe('INVALID_QUANTITY');
    // The same value written plainly, or as a JS string, is the quantity 10.
    expect(hashContainer('{"resources":{"limits":{"cpu":"10"}}}', v)).toBe(
      hashContainer({ resources: { limits: { cpu: '10' } } }, v),
    );
    // Escapes elsewhere are ordinary JSON: a name spelled with \u escapes is the same name.
    expect(hashContainer('{"name":"\\u0061"}', v)).toBe(hashContainer({ name: 'a' }, v));
  });

  it('refuses a key repeated in one object (Go merges, clients send the last, strict validation refuses)', () => {
    expect(codeOf(() => hashContainer('{"name":"a","name":"b"}', v))).toBe('INVALID_JSON');
    expect(codeOf(() => hashContainer('{"resources":{"limits":{"cpu":"1","cpu":"2"}}}', v))).toBe('INVALID_JSON');
  });

  it('refuses raw unpaired surrogates in JSON text (no UTF-8 text holds them); escaped pairs are one character', () => {
    expect(codeOf(() => hashContainer('{"name":"\ud800"}', v))).toBe('INVALID_JSON');
    expect(codeOf(() => hashContainer('{"name":"\udc00x"}', v))).toBe('INVALID_JSON');
    expect(hashContainer('{"name":"\\ud83d\\ude00"}', v)).toBe(hashContainer('{"name":"😀"}', v));
  });
});
