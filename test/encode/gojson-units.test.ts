/**
 * The compiled encoding/json encoder on hand-built Go types: the rules of Go's `encode.go` that the
 * v1.Container models never reach (decoded containers have no nil slice without omitempty, no
 * unexported field outside Quantity, no `int`/`uint` field, no recursive type), and the ASCII
 * escape table the fused hashers reuse. Expected texts follow json.Marshal: nil slice/map `null`,
 * empty ones `[]`/`{}`, `isEmptyValue` for omitempty (len 0, false, 0, nil pointer; a struct is
 * never empty), unexported fields skipped, integers in full decimal.
 */
import { describe, expect, it } from 'vitest';
import { jsonEscapeTable } from '../../src/encode/gojson-string.js';
import { compileGoJsonEncoder } from '../../src/encode/gojson.js';
import { BufferSink } from '../../src/encode/sink.js';
import { makeGoMap, type GoStruct } from '../../src/go/value.js';
import type { DeclKind, FieldDecl, ReleaseModel, TypeDecl } from '../../src/models/model.js';
import { UTF8_BOUNDARY_BYTES, UTF8_BOUNDARY_TEXT } from '../support/utf8-boundaries.js';
import { structTypesOf } from '../support/struct-types.js';

function field(goName: string, goType: string, jsonName = '', omitempty = false): FieldDecl {
  return { goName, goType, jsonName, omitempty, exported: /^[A-Z]/.test(goName), jsonTag: '' };
}
function decl(name: string, kind: DeclKind, rest: Partial<TypeDecl> = {}): TypeDecl {
  return { name, pkgPath: 'example.com/t', kind, ...rest };
}

const model = {
  types: [
    decl('t.Node', 'struct', { fields: [field('Val', 'int32', 'val'), field('Next', '*t.Node', 'next')] }),
    decl('t.Inner', 'struct', { fields: [field('A', 'string', 'a', true)] }),
    decl('t.Kinds', 'struct', {
      fields: [
        field('I', 'int', 'i'),
        field('I64', 'int64', 'i64'),
        field('U', 'uint', 'u'),
        field('B', 'bool', 'b'),
        field('S', 'string'),
        field('hidden', 'string', 'hidden'),
        field('Strs', '[]string', 'strs'),
        field('M', 'map[string]string', 'm'),
      ],
    }),
    decl('t.Omit', 'struct', {
      fields: [
        field('I', 'int', 'i', true),
        field('I64', 'int64', 'i64', true),
        field('U', 'uint', 'u', true),
        field('I32', 'int32', 'i32', true),
        field('B', 'bool', 'b', true),
        field('S', 'string', 's', true),
        field('P', '*string', 'p', true),
        field('Strs', '[]string', 'strs', true),
        field('M', 'map[string]string', 'm', true),
        field('In', 't.Inner', 'in', true),
      ],
    }),
  ],
} satisfies Pick<ReleaseModel, 'types'>;

const structType = structTypesOf(model);

function marshal(typeName: string, value: GoStruct, mode: 'go1.22' | 'pre-go1.22' = 'go1.22'): string {
  const sink = new BufferSink();
  compileGoJsonEncoder(structType(typeName), mode)(value, sink);
  return new TextDecoder().decode(sink.bytes());
}

const ZERO_OMIT: GoStruct = {
  I: 0n,
  I64: 0n,
  U: 0n,
  I32: 0,
  B: false,
  S: '',
  P: null,
  Strs: null,
  M: null,
  In: { A: '' },
};

describe('encoding/json on hand-built types', () => {
  it('follows a recursive struct through its pointer (nil pointer: null)', () => {
    expect(marshal('t.Node', { Val: 1, Next: { Val: 2, Next: { Val: 3, Next: null } } })).toBe(
      '{"val":1,"next":{"val":2,"next":{"val":3,"next":null}}}',
    );
    expect(marshal('t.Node', { Val: -7, Next: null })).toBe('{"val":-7,"next":null}');
  });

  it('writes int, int64 and uint in full decimal, skips unexported fields, nil slice and map as null', () => {
    const zero = { I: 0n, I64: 0n, U: 0n, B: false, S: '', hidden: 'secret', Strs: null, M: null };
    expect(marshal('t.Kinds', zero)).toBe('{"i":0,"i64":0,"u":0,"b":false,"S":"","strs":null,"m":null}');
    const extremes = {
      ...zero,
      I: -9223372036854775808n,
      I64: 9223372036854775807n,
      U: 18446744073709551615n,
      B: true,
    };
    expect(marshal('t.Kinds', extremes)).toBe(
      '{"i":-9223372036854775808,"i64":9223372036854775807,"u":18446744073709551615,"b":true,"S":"","strs":null,"m":null}',
    );
  });

  it('writes empty slices and maps as [] and {} when there is no omitempty', () => {
    expect(
      marshal('t.Kinds', { I: 1n, I64: 2n, U: 3n, B: false, S: 's', hidden: '', Strs: [], M: makeGoMap([]) }),
    ).toBe('{"i":1,"i64":2,"u":3,"b":false,"S":"s","strs":[],"m":{}}');
    const full = { I: 0n, I64: 0n, U: 0n, B: false, S: '', hidden: '', Strs: ['a', ''], M: makeGoMap([['k', 'v']]) };
    expect(marshal('t.Kinds', full)).toContain('"strs":["a",""],"m":{"k":"v"}}');
  });

  it('omits the zero value of every omitempty kind, but never a struct', () => {
    expect(marshal('t.Omit', ZERO_OMIT)).toBe('{"in":{}}');
    expect(marshal('t.Omit', { ...ZERO_OMIT, Strs: [], M: makeGoMap([]) })).toBe('{"in":{}}');
  });

  it('keeps every non-zero omitempty value, a pointer to a zero value included', () => {
    expect(marshal('t.Omit', { ...ZERO_OMIT, P: '' })).toBe('{"p":"","in":{}}');
    expect(
      marshal('t.Omit', {
        I: -1n,
        I64: 9223372036854775807n,
        U: 18446744073709551615n,
        I32: -2147483648,
        B: true,
        S: ' ',
        P: 'x',
        Strs: [''],
        M: makeGoMap([['', '']]),
        In: { A: 'a' },
      }),
    ).toBe(
      '{"i":-1,"i64":9223372036854775807,"u":18446744073709551615,"i32":-2147483648,"b":true,"s":" ","p":"x",' +
        '"strs":[""],"m":{"":""},"in":{"a":"a"}}',
    );
    for (const [name, key] of [
      ['I', 'i'],
      ['I64', 'i64'],
      ['U', 'u'],
    ] as const) {
      expect(marshal('t.Omit', { ...ZERO_OMIT, [name]: 1n })).toBe(`{"${key}":1,"in":{}}`);
    }
  });

  it('writes characters beyond ASCII as their UTF-8 bytes (2-, 3- and 4-byte boundaries)', () => {
    const s = UTF8_BOUNDARY_TEXT;
    const sink = new BufferSink();
    compileGoJsonEncoder(structType('t.Inner'), 'go1.22')({ A: s }, sink);
    expect([...sink.bytes()]).toEqual([
      ...new TextEncoder().encode('{"a":"'),
      ...UTF8_BOUNDARY_BYTES,
      ...new TextEncoder().encode('"}'),
    ]);
  });
});

describe('jsonEscapeTable (the ASCII escapes the fused hashers reuse)', () => {
  const text = (mode: 'go1.22' | 'pre-go1.22'): (string | null)[] =>
    jsonEscapeTable(mode).map((esc) => (esc ? new TextDecoder().decode(esc) : null));

  it('covers exactly ASCII and escapes the 32 controls plus " \\ < > &', () => {
    for (const mode of ['go1.22', 'pre-go1.22'] as const) {
      const table = text(mode);
      expect(table).toHaveLength(128);
      expect(table.filter((e) => e !== null)).toHaveLength(37);
      expect([table[0x22], table[0x5c], table[0x0a], table[0x0d], table[0x09]]).toEqual([
        '\\"',
        '\\\\',
        '\\n',
        '\\r',
        '\\t',
      ]);
      expect([table[0x00], table[0x1f], table[0x3c], table[0x3e], table[0x26]]).toEqual([
        '\\u0000',
        '\\u001f',
        '\\u003c',
        '\\u003e',
        '\\u0026',
      ]);
      expect([table[0x20], table[0x41], table[0x2f], table[0x7f]]).toEqual([null, null, null, null]);
    }
  });

  it('writes BS and FF as \\b \\f from Go 1.22, \\u0008 \\u000c before', () => {
    expect([text('go1.22')[0x08], text('go1.22')[0x0c]]).toEqual(['\\b', '\\f']);
    expect([text('pre-go1.22')[0x08], text('pre-go1.22')[0x0c]]).toEqual(['\\u0008', '\\u000c']);
  });
});
