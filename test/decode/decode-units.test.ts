/**
 * The decode stage's pieces on their own: the per-type decoder (`decoderFor`) on Go types the
 * container model reaches only inside Quantity and IntOrString (or not at all) and on small
 * hand-built structs for Go's embedding rules; the input shape checks (input.ts); and the token a
 * Quantity's UnmarshalJSON receives (quantity-token.ts).
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { decoderFor } from '../../src/decode/decode.js';
import { describeObject, hasToJson, isJsonNumberText, isPlainObject, memberOf } from '../../src/decode/input.js';
import { quantityTokenOf } from '../../src/decode/quantity-token.js';
import { DecodeError } from '../../src/errors.js';
import type { GoValue } from '../../src/go/value.js';
import { JsonNumber } from '../../src/json/number.js';
import { releaseModel } from '../../src/models/catalog.js';
import { TypeResolver, type GoField, type GoType, type StructType } from '../../src/models/gotype.js';
import { errorOf } from '../support/error-of.js';

const resolver = (release: string) => new TypeResolver(releaseModel(release));
const STRING: GoType = { kind: 'string', name: 'string' };
const INT32: GoType = { kind: 'int32', name: 'int32' };

function field(goName: string, jsonName: string, type: GoType): GoField {
  return { goName, jsonName, omitempty: true, embedded: false, exported: true, inline: false, type };
}
function embedded(type: StructType): GoField {
  return { goName: type.name, jsonName: '', omitempty: false, embedded: true, exported: true, inline: true, type };
}
function struct(name: string, fields: GoField[]): StructType {
  return { kind: 'struct', name, fields, jsonCustomMarshal: false };
}

const decode = (type: GoType, json: unknown): GoValue => decoderFor(type)(json, []);

describe('decoderFor', () => {
  it('compiles one decoder per Go type', () => {
    const container = resolver('1.29').resolve('v1.Container');
    expect(decoderFor(container)).toBe(decoderFor(container));
    expect(decoderFor(STRING)).toBe(decoderFor(STRING));
  });

  it('decodes Go int (intstr.Type before 1.12) like int64, null and absent as 0', () => {
    const int = resolver('1.8').resolve('intstr.Type');
    expect(int.kind).toBe('int');
    expect(decode(int, new JsonNumber('-9223372036854775808'))).toBe(-(2n ** 63n));
    expect(decode(int, 7)).toBe(7n);
    expect(decode(int, null)).toBe(0n);
    expect(decode(int, undefined)).toBe(0n);
    expect(errorOf(() => decode(int, 2n ** 63n)).code).toBe('INT_OUT_OF_RANGE');
  });

  it('decodes int64 null and absent as 0, and int32 -0 as 0', () => {
    const int64 = resolver('1.29').resolve('intstr.Type');
    expect(int64.kind).toBe('int64');
    expect(decode(int64, null)).toBe(0n);
    expect(decode(int64, undefined)).toBe(0n);
    expect(Object.is(decode(INT32, -0), 0)).toBe(true);
    expect(Object.is(decode(INT32, new JsonNumber('-0')), 0)).toBe(true);
    expect(decode(INT32, null)).toBe(0);
    expect(decode(INT32, -2147483648)).toBe(-2147483648);
  });

  it('refuses Go types that have no JSON decoding here, naming the type', () => {
    const r = resolver('1.29');
    const word = r.resolve('big.Word'); // uint, only reachable inside a Quantity
    const bigInt = r.resolve('big.Int'); // its own MarshalJSON
    const intKeys: GoType = { kind: 'map', name: 'map[int32]string', key: INT32, elem: STRING };
    for (const [type, json] of [
      [word, 1],
      [word, undefined],
      [bigInt, {}],
      [intKeys, { 1: 'a' }],
    ] as const) {
      const e = errorOf(() => decoderFor(type)(json, ['here']));
      expect(e).toBeInstanceOf(DecodeError);
      expect(e.toJSON()).toEqual({
        name: 'DecodeError',
        code: 'INVALID_TYPE',
        path: ['here'],
        expected: `no JSON decoding for Go type ${type.name}`,
        message: `INVALID_TYPE at .here: expected no JSON decoding for Go type ${type.name}`,
      });
    }
    expect(word.kind).toBe('uint');
    expect(bigInt.kind === 'struct' && bigInt.jsonCustomMarshal).toBe(true);
  });

  it("gives an embedded struct's keys to the outer struct when both declare one (Go's dominance rule)", () => {
    const inner = struct('v1.Inner', [field('A', 'a', STRING), field('B', 'b', STRING)]);
    const outer = struct('v1.Outer', [embedded(inner), field('A', 'a', STRING), field('C', '', INT32)]);
    expect(decode(outer, { a: 'x', b: 'y', C: 3 })).toEqual({ 'v1.Inner': { A: '', B: 'y' }, A: 'x', C: 3 });
    // Without a field of its own, the outer struct hands the embedded one every key.
    const wrapper = struct('v1.Wrapper', [embedded(inner)]);
    expect(decode(wrapper, { a: 'x', b: 'y' })).toEqual({ 'v1.Inner': { A: 'x', B: 'y' } });
    expect(decode(outer, null)).toEqual({ 'v1.Inner': { A: '', B: '' }, A: '', C: 0 });
  });

  it('keeps the path of a value inside an embedded struct at the outer object', () => {
    const inner = struct('v1.Inner', [field('N', 'n', INT32)]);
    const outer = struct('v1.Outer', [field('Name', 'name', STRING), embedded(inner)]);
    const e = errorOf(() => decoderFor(outer)({ name: 'a', n: 'x' }, ['probe']));
    expect([e.path, e.expected, e.detail]).toEqual([['probe', 'n'], 'an int32', 'found string "x"']);
  });
});

describe('isPlainObject', () => {
  it.each<[string, unknown]>([
    ['a literal', { a: 1 }],
    ['a null-prototype object', Object.create(null)],
    [
      'a class instance',
      new (class V1Probe {
        period = 10;
      })(),
    ],
    ['an object from another realm', runInNewContext('({ a: 1 })')],
    ['an object with toJSON', { toJSON: () => 1 }],
  ])('accepts %s', (_label, value) => {
    expect(isPlainObject(value)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'x'],
    ['a number', 1],
    ['an array', []],
    ['an array tagged Object', Object.assign([], { [Symbol.toStringTag]: 'Object' })],
    ['a function tagged Object', Object.assign(() => 1, { [Symbol.toStringTag]: 'Object' })],
    ['a Map', new Map()],
    ['a Map subclass', new (class extends Map {})()],
    ['a Map from another realm', runInNewContext('new Map()')],
    ['a Set', new Set()],
    ['a WeakMap', new WeakMap()],
    ['a WeakSet', new WeakSet()],
    ['a Date', new Date(0)],
    ['a RegExp', /x/],
    ['an Error', new Error('x')],
    ['a Promise', Promise.resolve()],
    ['a boxed string', Object('x')],
    ['a boxed bigint', Object(1n)],
    ['an ArrayBuffer', new ArrayBuffer(1)],
    ['a DataView', new DataView(new ArrayBuffer(1))],
    ['a Float64Array', new Float64Array(1)],
    ['a JsonNumber', new JsonNumber('1')],
    ['an arguments object', runInNewContext('(function () { return arguments; })()')],
    ['an object on a Date prototype', Object.create(Date.prototype)],
    ['an object on a Number prototype', Object.create(Number.prototype)],
    ['an object on a Symbol prototype', Object.create(Symbol.prototype)],
    ['an object on a typed array prototype', Object.create(Uint8Array.prototype)],
    ['an object two steps above an Error prototype', Object.create(Object.create(TypeError.prototype) as object)],
  ])('refuses %s', (_label, value) => {
    expect(isPlainObject(value)).toBe(false);
  });
});

describe('describeObject', () => {
  it.each<[string, object, string]>([
    ['an array', [1], 'found an array'],
    ['an array tagged Object', Object.assign([], { [Symbol.toStringTag]: 'Object' }), 'found an array'],
    ['a literal', {}, 'found an object'],
    ['a null-prototype object', Object.create(null), 'found an object'],
    ['a prototype without constructor', Object.create(Object.create(null) as object), 'found an object'],
    [
      'an anonymous class instance',
      new (class {
        period = 10;
      })(),
      'found an object',
    ],
    [
      'a class instance',
      new (class Probe {
        period = 10;
      })(),
      'found a Probe',
    ],
    [
      'a class instance starting with a vowel',
      new (class EnvVar {
        value = 'v';
      })(),
      'found an EnvVar',
    ],
    ['a constructor name that is not a string', Object.create({ constructor: { name: 1 } }), 'found an object'],
    ['a Map', new Map(), 'found a Map'],
    ['a Map subclass (its tag wins)', new (class Registry extends Map {})(), 'found a Map'],
    ['an arguments object', runInNewContext('(function () { return arguments; })()'), 'found an Arguments'],
    ['a Date', new Date(0), 'found a Date'],
    ['a boxed boolean', Object(true), 'found a Boolean'],
    ['an object on a Date prototype', Object.create(Date.prototype), 'found a Date'],
    ['a JsonNumber', new JsonNumber('1'), 'found a JsonNumber'],
  ])('%s', (_label, value, text) => {
    expect(describeObject(value)).toBe(text);
  });
});

describe('hasToJson and memberOf', () => {
  it('sees toJSON as JSON.stringify does, own or inherited', () => {
    expect(hasToJson({ toJSON: () => 1 })).toBe(true);
    expect(hasToJson(new Date(0))).toBe(true);
    expect(hasToJson(Object.assign([], { toJSON: () => [] }))).toBe(true);
    expect(hasToJson({ toJSON: 'not a function' })).toBe(false);
    expect(hasToJson({})).toBe(false);
  });

  it('reads own enumerable members only', () => {
    const obj = Object.create({ inherited: 1 }) as Record<string, unknown>;
    obj['own'] = 2;
    Object.defineProperty(obj, 'hidden', { value: 3, enumerable: false });
    expect([memberOf(obj, 'own'), memberOf(obj, 'inherited'), memberOf(obj, 'hidden'), memberOf(obj, 'x')]).toEqual([
      2,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('checks JsonNumber text against RFC 8259', () => {
    for (const ok of ['0', '-0', '1.5', '1E3', '-2e-7', '9007199254740993']) expect(isJsonNumberText(ok)).toBe(true);
    for (const bad of ['', '007', '+1', '.5', '1.', '1e', '0x10', ' 1', '1 ', 'NaN', 'Infinity', '1Gi']) {
      expect(isJsonNumberText(bad)).toBe(false);
    }
  });
});

describe('quantityTokenOf', () => {
  it('gives numbers as number tokens with their JSON text', () => {
    expect(quantityTokenOf(new JsonNumber('1E3'), [])).toEqual({ kind: 'number', text: '1E3' });
    expect(quantityTokenOf(2n ** 60n, [])).toEqual({ kind: 'number', text: '1152921504606846976' });
    expect(quantityTokenOf(0.5, [])).toEqual({ kind: 'number', text: '0.5' });
    expect(quantityTokenOf(1e21 / 1e21, [])).toEqual({ kind: 'number', text: '1' });
    expect(quantityTokenOf(1.5e-7, [])).toEqual({ kind: 'number', text: '1.5e-7' });
  });

  it('gives strings with the spelling a client sends, and null for absent values', () => {
    expect(quantityTokenOf('1Gi', [])).toEqual({ kind: 'string', text: '1Gi', raw: '1Gi' });
    expect(quantityTokenOf('\t1', [])).toEqual({ kind: 'string', text: '\t1', raw: '\\t1' });
    expect(quantityTokenOf('10', [], '1\\u0030')).toEqual({ kind: 'string', text: '10', raw: '1\\u0030' });
    expect(quantityTokenOf(null, [])).toEqual({ kind: 'null' });
    expect(quantityTokenOf(undefined, [])).toEqual({ kind: 'null' });
  });

  it('returns null (a type error for the caller) for values no JSON token has', () => {
    for (const value of [true, NaN, Infinity, -Infinity, {}, [], Symbol('q'), () => 1]) {
      expect(quantityTokenOf(value, [])).toBeNull();
    }
  });

  it('refuses rounded numbers and bad JsonNumber text at the given path', () => {
    expect(errorOf(() => quantityTokenOf(2 ** 53, ['cpu'])).toJSON()).toMatchObject({
      code: 'UNSAFE_INTEGER',
      path: ['cpu'],
      detail: 'the JS number 9007199254740992 is beyond 2^53 and may have been rounded',
    });
    expect(errorOf(() => quantityTokenOf(new JsonNumber('1Gi'), ['cpu'])).toJSON()).toMatchObject({
      code: 'INVALID_JSON',
      path: ['cpu'],
      detail: 'found "1Gi"',
    });
  });
});
