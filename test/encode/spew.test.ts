import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { compileSpewEncoder } from '../../src/encode/spew.js';
import { BufferSink, Fnv32aSink } from '../../src/encode/sink.js';
import { compareGoStrings, makeGoMap, type GoStruct, type GoValue } from '../../src/go/value.js';
import { resolveRoot, type GoType, type StructType } from '../../src/models/gotype.js';
import type { DeclKind, FieldDecl, ReleaseModel, TypeDecl } from '../../src/models/model.js';
import { spewReference } from '../support/spew-reference.js';
import { zeroValue } from '../support/zero-value.js';
import { structTypesOf } from '../support/struct-types.js';

function field(goName: string, goType: string, opts: { embedded?: boolean } = {}): FieldDecl {
  return {
    goName,
    goType,
    jsonName: '',
    omitempty: false,
    exported: /^[A-Z]/.test(goName),
    jsonTag: '',
    ...(opts.embedded ? { embedded: true } : {}),
  };
}
function decl(name: string, kind: DeclKind, rest: Partial<TypeDecl> = {}): TypeDecl {
  return { name, pkgPath: 'example.com/t', kind, ...rest };
}

const tinyModel = {
  types: [
    decl('t.Inner', 'struct', { fields: [field('Name', 'string'), field('n', 'int32')] }),
    decl('t.Named', 'string', { underlying: 'string' }),
    decl('t.Count', 'int32', { underlying: 'int32' }),
    decl('t.Labels', 'map', { underlying: 'map[t.Named]t.Inner', key: 't.Named', elem: 't.Inner' }),
    decl('t.Outer', 'struct', {
      fields: [
        field('Name', 'string'),
        field('Flag', 'bool'),
        field('I32', 'int32'),
        field('I64', 'int64'),
        field('U', 'uint'),
        field('Count', 't.Count'),
        field('Ptr', '*int64'),
        field('PtrStruct', '*t.Inner'),
        field('Strs', '[]string'),
        field('Inners', '[]t.Inner'),
        field('Labels', 't.Labels'),
        field('Plain', 'map[string]string'),
        field('Inner', 't.Inner', { embedded: true }),
        field('private', 'string'),
      ],
    }),
    decl('t.Leaky', 'struct', {
      fields: [
        field('Ptrs', '[]*int32'),
        field('After', 'int32'),
        field('PtrMap', 'map[string]*string'),
        field('Tail', '*bool'),
        field('Last', 'string'),
      ],
    }),
    decl('t.Nested', 'struct', { fields: [field('L', 't.Leaky'), field('Next', 'string')] }),
    decl('t.Node', 'struct', { fields: [field('Val', 'int32'), field('Next', '*t.Node')] }),
    decl('t.Chain', 'struct', { fields: [field('PP', '**int32'), field('X', 'int32')] }),
    decl('t.TailLeak', 'struct', { fields: [field('S', 'string'), field('P', '[]*int32')] }),
    decl('t.Wrap', 'struct', { fields: [field('T', 't.TailLeak'), field('After', 'int32'), field('Q', '*int32')] }),
    decl('t.Empty', 'struct', { fields: [] }),
    decl('t.HasEmpty', 'struct', { fields: [field('E', 't.Empty'), field('P', '*t.Empty')] }),
  ],
} satisfies Pick<ReleaseModel, 'types'>;

const structType = structTypesOf(tinyModel);

/** Prints with the compiled encoder, checks the reference printer agrees, returns the text. */
function spew(typeName: string, value: GoStruct): string {
  const type = structType(typeName);
  const sink = new BufferSink();
  compileSpewEncoder(type)(value, sink);
  const text = new TextDecoder().decode(sink.bytes());
  expect(text).toBe(spewReference(type, value));
  return text;
}

function outer(overrides: Record<string, GoValue>): GoStruct {
  return { ...(zeroValue(structType('t.Outer')) as GoStruct), ...overrides };
}

const ZERO_OUTER =
  '(t.Outer){Name:(string) Flag:(bool)false I32:(int32)0 I64:(int64)0 U:(uint)0 Count:(t.Count)0 ' +
  'Ptr:(*int64)<nil> PtrStruct:(*t.Inner)<nil> Strs:([]string)<nil> Inners:([]t.Inner)<nil> ' +
  'Labels:(t.Labels)<nil> Plain:(map[string]string)<nil> Inner:(t.Inner){Name:(string) n:(int32)0} private:(string)}';

describe('spew %#v printer: rules', () => {
  it('prints every field in declaration order with its type, zero values included (unexported and embedded too)', () => {
    expect(spew('t.Outer', outer({}))).toBe(ZERO_OUTER);
  });

  it('writes strings raw: no quotes, no escaping, UTF-8 bytes', () => {
    const name = 'a"b\\c\n\0\u2028é😀';
    const type = structType('t.Inner');
    const sink = new BufferSink();
    compileSpewEncoder(type)({ Name: name, n: 0 }, sink);
    expect(sink.bytes()).toEqual(new TextEncoder().encode(`(t.Inner){Name:(string)${name} n:(int32)0}`));
  });

  it('prints bools and integers in decimal, number or bigint, across the 64-bit ranges', () => {
    const text = spew(
      't.Outer',
      outer({ Flag: true, I32: -2147483648, I64: -9223372036854775808n, U: 18446744073709551615n, Count: 2147483647 }),
    );
    expect(text).toContain(
      'Flag:(bool)true I32:(int32)-2147483648 I64:(int64)-9223372036854775808 U:(uint)18446744073709551615 Count:(t.Count)2147483647 ',
    );
    expect(spew('t.Outer', outer({ I64: 9007199254740993n, U: 1000000000000000n, I32: 10 }))).toContain(
      'I32:(int32)10 I64:(int64)9007199254740993 U:(uint)1000000000000000 ',
    );
    // an int-kind field holding a JS number (hand-built trees) prints the same digits
    expect(spew('t.Outer', outer({ I64: 1000, U: 7 }))).toContain('I64:(int64)1000 U:(uint)7 ');
  });

  it('prints a non-nil pointer as (*T) then the pointee without its own annotation', () => {
    const text = spew('t.Outer', outer({ Ptr: 1000n, PtrStruct: { Name: 'x', n: 3 } }));
    expect(text).toContain('Ptr:(*int64)1000 PtrStruct:(*t.Inner){Name:(string)x n:(int32)3} ');
  });

  it('distinguishes nil and empty slices, and prints elements bare', () => {
    expect(spew('t.Outer', outer({ Strs: [] }))).toContain(' Strs:([]string)[] ');
    expect(spew('t.Outer', outer({ Strs: ['a', '', 'b c'] }))).toContain(' Strs:([]string)[a  b c] ');
    expect(
      spew(
        't.Outer',
        outer({
          Inners: [
            { Name: 'p', n: 1 },
            { Name: 'q', n: 2 },
          ],
        }),
      ),
    ).toContain(' Inners:([]t.Inner)[{Name:(string)p n:(int32)1} {Name:(string)q n:(int32)2}] ');
  });

  it('distinguishes nil and empty maps, and prints keys and values bare in the given (sorted) order', () => {
    expect(spew('t.Outer', outer({ Labels: makeGoMap([]) }))).toContain(' Labels:(t.Labels)map[] ');
    const labels = makeGoMap([
      ['A', { Name: 'x', n: 1 }],
      ['b', { Name: 'y', n: 2 }],
    ]);
    const plain = makeGoMap([
      ['k', 'v'],
      ['k2', ''],
    ]);
    expect(spew('t.Outer', outer({ Labels: labels, Plain: plain }))).toContain(
      ' Labels:(t.Labels)map[A:{Name:(string)x n:(int32)1} b:{Name:(string)y n:(int32)2}] Plain:(map[string]string)map[k:v k2:] ',
    );
  });

  it('prints an embedded struct under its type name', () => {
    expect(spew('t.Outer', outer({ Inner: { Name: 'emb', n: -1 }, private: 'p' }))).toMatch(
      / Inner:\(t\.Inner\)\{Name:\(string\)emb n:\(int32\)-1\} private:\(string\)p\}$/,
    );
  });

  it('follows a recursive struct through its pointer', () => {
    const list = { Val: 1, Next: { Val: 2, Next: null } };
    expect(spew('t.Node', list)).toBe('(t.Node){Val:(int32)1 Next:(*t.Node){Val:(int32)2 Next:(*t.Node)<nil>}}');
  });

  it('prints one annotation for a pointer chain', () => {
    expect(spew('t.Chain', { PP: 5, X: 1 })).toBe('(t.Chain){PP:(**int32)5 X:(int32)1}');
    expect(spew('t.Chain', { PP: null, X: 1 })).toBe('(t.Chain){PP:(**int32)<nil> X:(int32)1}');
  });

  it('prints empty structs as {}', () => {
    expect(spew('t.HasEmpty', { E: {}, P: {} })).toBe('(t.HasEmpty){E:(t.Empty){} P:(*t.Empty){}}');
  });

  describe('pointers as slice elements and map values (not in kubelet types, but spew rules)', () => {
    const zeroLeaky = (): Record<string, GoValue> => ({ Ptrs: null, After: 0, PtrMap: null, Tail: null, Last: '' });

    it('prints a non-nil element pointer as <*>value and keeps the next field annotated', () => {
      expect(spew('t.Leaky', { ...zeroLeaky(), Ptrs: [7, 8], PtrMap: makeGoMap([['k', 'v']]) })).toBe(
        '(t.Leaky){Ptrs:([]*int32)[<*>7 <*>8] After:(int32)0 PtrMap:(map[string]*string)map[k:<*>v] Tail:(*bool)<nil> Last:(string)}',
      );
    });

    it('prints a nil element pointer as <nil>, which leaves the following field without its type', () => {
      expect(spew('t.Leaky', { ...zeroLeaky(), Ptrs: [7, null] })).toBe(
        '(t.Leaky){Ptrs:([]*int32)[<*>7 <nil>] After:0 PtrMap:(map[string]*string)<nil> Tail:(*bool)<nil> Last:(string)}',
      );
      // a nil element that is not last: the next element resets the flag
      expect(spew('t.Leaky', { ...zeroLeaky(), Ptrs: [null, 7] })).toContain(
        'Ptrs:([]*int32)[<nil> <*>7] After:(int32)0 ',
      );
    });

    it('keeps leaking through following nil pointer fields and out of the enclosing struct', () => {
      const leaky = { ...zeroLeaky(), PtrMap: makeGoMap([['k', null]]) };
      expect(spew('t.Leaky', leaky)).toBe(
        '(t.Leaky){Ptrs:([]*int32)<nil> After:(int32)0 PtrMap:(map[string]*string)map[k:<nil>] Tail:<nil> Last:}',
      );
      expect(spew('t.Nested', { L: { ...leaky, Tail: true }, Next: 'n' })).toBe(
        '(t.Nested){L:(t.Leaky){Ptrs:([]*int32)<nil> After:(int32)0 PtrMap:(map[string]*string)map[k:<nil>] Tail:<*>true Last:(string)} Next:(string)n}',
      );
      const last = { ...zeroLeaky(), Last: 'z', Ptrs: [null] };
      expect(spew('t.Nested', { L: { ...last, Tail: null }, Next: 'n' })).toBe(
        '(t.Nested){L:(t.Leaky){Ptrs:([]*int32)[<nil>] After:0 PtrMap:(map[string]*string)<nil> Tail:(*bool)<nil> Last:(string)z} Next:(string)n}',
      );
      // a struct whose last field leaves the flag set passes it on to its parent's next field
      expect(spew('t.Wrap', { T: { S: 's', P: [null] }, After: 3, Q: null })).toBe(
        '(t.Wrap){T:(t.TailLeak){S:(string)s P:([]*int32)[<nil>]} After:3 Q:(*int32)<nil>}',
      );
      expect(spew('t.Wrap', { T: { S: 's', P: [1] }, After: 3, Q: 4 })).toBe(
        '(t.Wrap){T:(t.TailLeak){S:(string)s P:([]*int32)[<*>1]} After:(int32)3 Q:(*int32)4}',
      );
    });
  });
});

describe('spew %#v printer: kubelet types (v1.15 model)', () => {
  const model = JSON.parse(
    readFileSync(new URL('../../fixtures/kube-models/v1.15.json', import.meta.url), 'utf8'),
  ) as ReleaseModel;
  // Compiled inside the tests (not while collecting them), so coverage is attributed to tests.
  let compiled: { container: ReturnType<typeof resolveRoot>; print: ReturnType<typeof compileSpewEncoder> } | undefined;
  const kit = () => {
    if (compiled) return compiled;
    const container = resolveRoot(model);
    return (compiled = { container, print: compileSpewEncoder(container) });
  };
  const text = (v: GoStruct): string => {
    const sink = new BufferSink();
    kit().print(v, sink);
    const out = new TextDecoder().decode(sink.bytes());
    expect(out).toBe(spewReference(kit().container, v));
    return out;
  };

  it('prints a zero container exactly like the oracle minimal-name row of 1.15 (name only)', () => {
    const c = { ...(zeroValue(kit().container) as GoStruct), Name: 'c' };
    const expected =
      '(v1.Container){Name:(string)c Image:(string) Command:([]string)<nil> Args:([]string)<nil> WorkingDir:(string) ' +
      'Ports:([]v1.ContainerPort)<nil> EnvFrom:([]v1.EnvFromSource)<nil> Env:([]v1.EnvVar)<nil> ' +
      'Resources:(v1.ResourceRequirements){Limits:(v1.ResourceList)<nil> Requests:(v1.ResourceList)<nil>} ' +
      'VolumeMounts:([]v1.VolumeMount)<nil> VolumeDevices:([]v1.VolumeDevice)<nil> LivenessProbe:(*v1.Probe)<nil> ' +
      'ReadinessProbe:(*v1.Probe)<nil> Lifecycle:(*v1.Lifecycle)<nil> TerminationMessagePath:(string) ' +
      'TerminationMessagePolicy:(v1.TerminationMessagePolicy) ImagePullPolicy:(v1.PullPolicy) ' +
      'SecurityContext:(*v1.SecurityContext)<nil> Stdin:(bool)false StdinOnce:(bool)false TTY:(bool)false}';
    expect(text(c)).toBe(expected);
    const fnv = new Fnv32aSink();
    kit().print(c, fnv);
    const row = readFileSync(new URL('../../fixtures/oracle/expected.ndjson', import.meta.url), 'utf8')
      .split('\n')
      .find((l) => l.includes('"case":"minimal-name","version":"1.15"'));
    expect(row && (JSON.parse(row) as { hash: string }).hash).toBe(fnv.sum32().toString(16));
  });

  it('prints Quantity internals, IntOrString and big.nat words as ordinary structs', () => {
    const quantity = (value: bigint, scale: number, s: string, dec: GoValue = null): GoValue => ({
      i: { value, scale },
      d: { Dec: dec },
      s,
      Format: 'DecimalSI',
    });
    const c = zeroValue(kit().container) as GoStruct;
    const resources = {
      Limits: makeGoMap([
        ['cpu', quantity(500n, -3, '500m')],
        [
          'memory',
          quantity(0n, 0, '', { unscaled: { neg: false, abs: [11711269222060115968n, 66926059427n] }, scale: 9 }),
        ],
      ]),
      Requests: null,
    };
    const probe = {
      ...(zeroValue(
        (kit().container.fields.find((f) => f.goName === 'LivenessProbe')!.type as { elem: StructType }).elem,
      ) as GoStruct),
    };
    const handler = { ...(probe['Handler'] as GoStruct) };
    handler['HTTPGet'] = {
      Path: '/',
      Port: { Type: 1n, IntVal: 0, StrVal: 'http' },
      Host: '',
      Scheme: 'HTTP',
      HTTPHeaders: null,
    };
    const out = text({ ...c, Resources: resources, LivenessProbe: { ...probe, Handler: handler } });
    expect(out).toContain(
      'Resources:(v1.ResourceRequirements){Limits:(v1.ResourceList)map[' +
        'cpu:{i:(resource.int64Amount){value:(int64)500 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)500m Format:(resource.Format)DecimalSI} ' +
        'memory:{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec){unscaled:(big.Int){neg:(bool)false abs:(big.nat)[11711269222060115968 66926059427]} scale:(inf.Scale)9}} s:(string) Format:(resource.Format)DecimalSI}' +
        '] Requests:(v1.ResourceList)<nil>}',
    );
    expect(out).toContain(
      'LivenessProbe:(*v1.Probe){Handler:(v1.Handler){Exec:(*v1.ExecAction)<nil> HTTPGet:(*v1.HTTPGetAction){Path:(string)/ ' +
        'Port:(intstr.IntOrString){Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)http} Host:(string) Scheme:(v1.URIScheme)HTTP HTTPHeaders:([]v1.HTTPHeader)<nil>} ' +
        'TCPSocket:(*v1.TCPSocketAction)<nil>} InitialDelaySeconds:(int32)0 ',
    );
  });
});

describe('spew %#v printer: compiled == reference on random values', () => {
  /** Random value trees for a type (recursion cut off by depth: pointers become nil). */
  function arbValue(type: GoType, depth: number): fc.Arbitrary<GoValue> {
    switch (type.kind) {
      case 'string':
        return fc.string({ unit: 'grapheme', maxLength: 4 });
      case 'bool':
        return fc.boolean();
      case 'int32':
        return fc.integer({ min: -2147483648, max: 2147483647 });
      case 'int':
      case 'int64':
        return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
      case 'uint':
        return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
      case 'ptr':
        return depth > 3 ? fc.constant(null) : fc.option(arbValue(type.elem, depth + 1), { nil: null });
      case 'slice':
        return fc.option(fc.array(arbValue(type.elem, depth + 1), { maxLength: 3 }), { nil: null });
      case 'map':
        return fc.option(
          fc
            .uniqueArray(fc.tuple(fc.string({ maxLength: 3 }), arbValue(type.elem, depth + 1)), {
              maxLength: 3,
              selector: ([k]) => k,
            })
            .map((entries) => makeGoMap(entries.sort(([a], [b]) => compareGoStrings(a, b)))),
          { nil: null },
        );
      case 'struct':
        return fc.record(Object.fromEntries(type.fields.map((f) => [f.goName, arbValue(f.type, depth + 1)])));
    }
  }

  for (const name of ['t.Outer', 't.Leaky', 't.Nested', 't.Wrap', 't.Node', 't.Chain', 't.HasEmpty']) {
    test.prop([arbValue(structType(name), 0)], { numRuns: 200 })(name, (value) => {
      spew(name, value as GoStruct); // asserts compiled text == reference text
    });
  }
});
