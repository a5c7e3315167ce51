/**
 * go-spew 1.1.1 `%#v` rules the v1.Container models never reach, on hand-built Go types. Expected
 * texts follow spew/format.go: `format` prints a value's `(type)` unless `ignoreNextType` is set
 * and then clears the flag, so a struct, slice or map without members leaves it clear; slice
 * elements, map keys and values set it first; `formatPtr` writes `<nil>` and returns with the flag
 * still set for a nil pointer printed bare, and `<` + one `*` per indirection + `>` for a non-nil
 * one. Integers are printed by strconv in full decimal; strings as their raw UTF-8 bytes.
 */
import { describe, expect, it } from 'vitest';
import { compileSpewEncoder, reachesPointerElements } from '../../src/encode/spew.js';
import { BufferSink } from '../../src/encode/sink.js';
import { makeGoMap, type GoStruct } from '../../src/go/value.js';
import { TypeResolver } from '../../src/models/gotype.js';
import type { DeclKind, FieldDecl, ReleaseModel, TypeDecl } from '../../src/models/model.js';
import { spewReference } from '../support/spew-reference.js';
import { UTF8_BOUNDARY_BYTES, UTF8_BOUNDARY_TEXT } from '../support/utf8-boundaries.js';
import { structTypesOf } from '../support/struct-types.js';

function field(goName: string, goType: string): FieldDecl {
  return { goName, goType, jsonName: '', omitempty: false, exported: /^[A-Z]/.test(goName), jsonTag: '' };
}
function decl(name: string, kind: DeclKind, rest: Partial<TypeDecl> = {}): TypeDecl {
  return { name, pkgPath: 'example.com/t', kind, ...rest };
}

const model = {
  types: [
    decl('t.Empty', 'struct', { fields: [] }),
    decl('t.Inner', 'struct', { fields: [field('Name', 'string')] }),
    decl('t.Node', 'struct', { fields: [field('Val', 'int32'), field('Next', '*t.Node')] }),
    decl('t.Twice', 'struct', { fields: [field('A', 't.Inner'), field('B', 't.Inner')] }),
    // Each struct below can leak the flag (a pointer held in a slice or map), so it is printed
    // field by field with the flag carried along; the field after the interesting one shows it.
    decl('t.EmptyFirst', 'struct', {
      fields: [field('E', 't.Empty'), field('After', 'int32'), field('P', '[]*int32')],
    }),
    decl('t.InnerFirst', 'struct', {
      fields: [field('I', 't.Inner'), field('After', 'int32'), field('P', '[]*int32')],
    }),
    decl('t.Collections', 'struct', {
      fields: [
        field('S', '[]*int32'),
        field('After', 'int32'),
        field('M', 'map[string]*int32'),
        field('Tail', 'int32'),
      ],
    }),
    decl('t.Chains', 'struct', { fields: [field('PP', '[]**int32'), field('After', 'int32')] }),
    decl('t.MapOnly', 'struct', { fields: [field('M', 'map[string]*string'), field('X', 'int32')] }),
    decl('t.PtrToSlice', 'struct', { fields: [field('P', '*[]*int32'), field('X', 'int32')] }),
    decl('t.Ints', 'struct', { fields: [field('I64', 'int64'), field('U', 'uint'), field('S', 'string')] }),
  ],
} satisfies Pick<ReleaseModel, 'types'>;

const structType = structTypesOf(model);
const resolver = new TypeResolver(model); // for the non-struct types reachesPointerElements is asked about

/** The compiled printer's bytes, checked against the reference printer too. */
function spewBytes(typeName: string, value: GoStruct): Uint8Array {
  const type = structType(typeName);
  const sink = new BufferSink();
  compileSpewEncoder(type)(value, sink);
  expect(new TextDecoder().decode(sink.bytes())).toBe(spewReference(type, value));
  return sink.bytes();
}
const spew = (typeName: string, value: GoStruct): string => new TextDecoder().decode(spewBytes(typeName, value));

describe('spew skip-type flag after members that cannot leak it', () => {
  it('an empty struct clears the flag: the next field keeps its type', () => {
    expect(spew('t.EmptyFirst', { E: {}, After: 1, P: null })).toBe(
      '(t.EmptyFirst){E:(t.Empty){} After:(int32)1 P:([]*int32)<nil>}',
    );
  });

  it('a struct whose fields cannot leak ends with the flag clear', () => {
    expect(spew('t.InnerFirst', { I: { Name: 'x' }, After: 1, P: [null] })).toBe(
      '(t.InnerFirst){I:(t.Inner){Name:(string)x} After:(int32)1 P:([]*int32)[<nil>]}',
    );
  });

  it('an empty slice or map of pointers clears the flag; a nil element left last leaks it', () => {
    expect(spew('t.Collections', { S: [], After: 1, M: makeGoMap([]), Tail: 2 })).toBe(
      '(t.Collections){S:([]*int32)[] After:(int32)1 M:(map[string]*int32)map[] Tail:(int32)2}',
    );
    expect(spew('t.Collections', { S: [null], After: 1, M: makeGoMap([['k', null]]), Tail: 2 })).toBe(
      '(t.Collections){S:([]*int32)[<nil>] After:1 M:(map[string]*int32)map[k:<nil>] Tail:2}',
    );
  });

  it('a map is enough to leak, and so is a pointer to a slice of pointers', () => {
    expect(spew('t.MapOnly', { M: makeGoMap([['k', null]]), X: 1 })).toBe(
      '(t.MapOnly){M:(map[string]*string)map[k:<nil>] X:1}',
    );
    expect(spew('t.MapOnly', { M: makeGoMap([['k', 'v']]), X: 1 })).toBe(
      '(t.MapOnly){M:(map[string]*string)map[k:<*>v] X:(int32)1}',
    );
    expect(spew('t.PtrToSlice', { P: [null], X: 1 })).toBe('(t.PtrToSlice){P:(*[]*int32)[<nil>] X:1}');
    expect(spew('t.PtrToSlice', { P: [3], X: 1 })).toBe('(t.PtrToSlice){P:(*[]*int32)[<*>3] X:(int32)1}');
  });
});

describe('spew pointers', () => {
  it('prints a bare pointer chain with one star per indirection', () => {
    expect(spew('t.Chains', { PP: [5, -6], After: 1 })).toBe('(t.Chains){PP:([]**int32)[<**>5 <**>-6] After:(int32)1}');
    expect(spew('t.Chains', { PP: [5, null], After: 1 })).toBe('(t.Chains){PP:([]**int32)[<**>5 <nil>] After:1}');
  });

  it('compiles one printer per type graph', () => {
    expect(compileSpewEncoder(structType('t.Node'))).toBe(compileSpewEncoder(structType('t.Node')));
  });
});

describe('reachesPointerElements (where the skip-type flag can leak)', () => {
  const reaches = (typeString: string): boolean => reachesPointerElements(resolver.resolve(typeString), new Set());

  it('is false for scalars, pointer chains, slices and maps of non-pointers, and structs of those', () => {
    for (const t of ['int32', 'string', 'bool', 'uint', '*int32', '**int32', '[]string', 'map[string]string']) {
      expect(reaches(t), t).toBe(false);
    }
    expect(reaches('t.Empty')).toBe(false);
    expect(reaches('t.Inner')).toBe(false);
    expect(reaches('[]t.Inner')).toBe(false);
  });

  it('is false for a recursive struct and for a struct reaching one type twice', () => {
    expect(reaches('t.Node')).toBe(false);
    expect(reaches('*t.Node')).toBe(false);
    expect(reaches('t.Twice')).toBe(false);
  });

  it('is true for a pointer held in a slice or map, however deep', () => {
    for (const t of [
      '[]*int32',
      'map[string]*string',
      '[]**int32',
      '*[]*int32',
      '[][]*int32',
      't.MapOnly',
      't.Chains',
    ]) {
      expect(reaches(t), t).toBe(true);
    }
  });
});

describe('spew scalars', () => {
  it('prints int64 and uint in full decimal beyond 2^53', () => {
    const row = (I64: bigint, U: bigint): string => spew('t.Ints', { I64, U, S: '' });
    expect(row(-9007199254740993n, 9007199254740993n)).toBe(
      '(t.Ints){I64:(int64)-9007199254740993 U:(uint)9007199254740993 S:(string)}',
    );
    expect(row(-9007199254740991n, 9007199254740991n)).toBe(
      '(t.Ints){I64:(int64)-9007199254740991 U:(uint)9007199254740991 S:(string)}',
    );
    expect(row(-1234567890123456789n, 18446744073709551615n)).toBe(
      '(t.Ints){I64:(int64)-1234567890123456789 U:(uint)18446744073709551615 S:(string)}',
    );
    expect(row(-9n, 0n)).toBe('(t.Ints){I64:(int64)-9 U:(uint)0 S:(string)}');
  });

  it('writes strings as raw UTF-8 across the 1-, 2-, 3- and 4-byte boundaries', () => {
    const s = UTF8_BOUNDARY_TEXT;
    const bytes = spewBytes('t.Ints', { I64: 0n, U: 0n, S: s });
    const head = new TextEncoder().encode('(t.Ints){I64:(int64)0 U:(uint)0 S:(string)');
    expect([...bytes]).toEqual([...head, ...UTF8_BOUNDARY_BYTES, 0x7d]);
  });
});
