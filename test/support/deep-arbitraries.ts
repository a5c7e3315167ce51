/**
 * fast-check generators driven by a release model: a container whose every field of every
 * reachable struct may appear (lifecycle handlers, envFrom, valueFrom with resourceFieldRef divisor,
 * every probe handler kind including grpc, security contexts…), with Go's integer extremes and
 * negatives, quantities spelled by a generator, and Unicode (astral, control characters, the
 * characters encoding/json escapes, unpaired surrogates). Values are what a client may send as a JS
 * object: int64 as a number when it is safe, else a bigint.
 */
import fc from 'fast-check';
import type { GoType, StructType } from '../../src/models/gotype.js';
import { INT_OR_STRING_TYPE, QUANTITY_TYPE } from '../../src/models/gotype.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Strings: mostly short words, sometimes anything a JS string can hold. */
const goStringArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '<',
          '>',
          '&',
          '\u2028',
          '\u2029',
          '\b',
          '\f',
          '\n',
          '\t',
          '\u0000',
          '\u007f',
          '"',
          '\\',
          '\ud800',
          '\udfff',
          '😀',
          'é',
        ),
        {
          maxLength: 5,
        },
      )
      .map((parts) => parts.join('')),
  },
);

const int32Arb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(INT32_MIN, INT32_MAX, 0, -1, 1),
  fc.integer({ min: INT32_MIN, max: INT32_MAX }),
);

const int64Arb: fc.Arbitrary<number | bigint> = fc.oneof(
  fc.constantFrom<number | bigint>(
    INT64_MIN,
    INT64_MAX,
    0,
    -1,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    2n ** 53n,
  ),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.integer(),
);

const SUFFIXES = [
  '',
  'm',
  'u',
  'n',
  'k',
  'M',
  'G',
  'T',
  'P',
  'E',
  'Ki',
  'Mi',
  'Gi',
  'Ti',
  'Pi',
  'Ei',
  'e3',
  'E3',
  'e-3',
  'e+2',
  'e0',
];

/** Quantity spellings ParseQuantity accepts: sign, digits, fraction, every suffix kind. */
const quantitySpellingArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', '', '', '-', '+'),
    fc.oneof(
      fc.constantFrom('0', '1', '1000', '1024', '1023', '999', '9223372036854775807'),
      fc.bigInt({ min: 0n, max: 10n ** 22n }).map(String),
    ),
    fc.oneof(
      fc.constant(''),
      fc.constantFrom('.5', '.0', '.', '.001', '.9990234375'),
      fc.nat({ max: 999999 }).map((n) => `.${n}`),
    ),
    fc.constantFrom(...SUFFIXES),
  )
  .map(([sign, whole, fraction, suffix]) => `${sign}${whole}${fraction}${suffix}`);

/** A quantity as a client may send it: usually a string, sometimes a JSON number. */
const quantityArb: fc.Arbitrary<string | number> = fc.oneof(
  { weight: 6, arbitrary: quantitySpellingArb },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 0.5, 1000, 1e3, 1024) },
);

const RESOURCE_NAMES = fc.oneof(
  fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'example.com/gpu'),
  goStringArb,
);

/** A JSON-like value for `type`, as a client would write it, or undefined for "leave it out". */
function valueArb(type: GoType, depth = 0): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case 'string':
      return goStringArb;
    case 'bool':
      return fc.boolean();
    case 'int32':
      return int32Arb;
    case 'int':
    case 'int64':
      return int64Arb;
    case 'uint':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case 'ptr':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 4, arbitrary: valueArb(type.elem, depth) },
      );
    case 'slice':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 4, arbitrary: fc.array(valueArb(type.elem, depth + 1), { maxLength: depth > 2 ? 1 : 2 }) },
      );
    case 'map': {
      const keys = type.name === 'v1.ResourceList' ? RESOURCE_NAMES : goStringArb;
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 4, arbitrary: fc.dictionary(keys, valueArb(type.elem, depth + 1), { maxKeys: 3 }) },
      );
    }
    case 'struct':
      if (type.name === QUANTITY_TYPE) return quantityArb;
      if (type.name === INT_OR_STRING_TYPE) return fc.oneof(int32Arb, goStringArb);
      return structArb(type, depth);
  }
}

/** The JSON members of a struct: embedded structs' fields inline, every member optional. */
function members(type: StructType, depth: number): Record<string, fc.Arbitrary<unknown>> {
  const out: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of type.fields) {
    if (!f.exported) continue;
    if (f.inline) Object.assign(out, members(f.type, depth));
    else out[f.jsonName || f.goName] = valueArb(f.type, depth + 1);
  }
  return out;
}

function structArb(type: StructType, depth: number): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(members(type, depth), { requiredKeys: [] });
}

/** A container of `root`'s release: `name` always set, every other field maybe. */
export function deepContainerArb(root: StructType): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(goStringArb, structArb(root, 0)).map(([name, rest]) => ({ ...rest, name }));
}

/** The struct that declares each JSON member of `type` (promoted members of embedded structs included). */
function memberOwners(type: StructType): Map<string, { owner: StructType; type: GoType }> {
  const out = new Map<string, { owner: StructType; type: GoType }>();
  for (const f of type.fields) {
    if (!f.exported) continue;
    if (f.inline) {
      for (const [k, v] of memberOwners(f.type)) out.set(k, v);
    } else out.set(f.jsonName || f.goName, { owner: type, type: f.type });
  }
  return out;
}

/** The `Struct.member` paths present in a generated `value` of `type`. */
export function pathsIn(type: GoType, value: unknown, out = new Set<string>()): Set<string> {
  if (value === null || value === undefined) return out;
  if (type.kind === 'ptr') return pathsIn(type.elem, value, out);
  if (type.kind === 'slice') {
    for (const x of value as unknown[]) pathsIn(type.elem, x, out);
    return out;
  }
  if (type.kind === 'map') {
    for (const x of Object.values(value)) pathsIn(type.elem, x, out);
    return out;
  }
  if (type.kind !== 'struct' || type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE) return out;
  const owners = memberOwners(type);
  for (const [key, v] of Object.entries(value)) {
    const m = owners.get(key);
    if (!m) continue;
    out.add(`${m.owner.name}.${key}`);
    pathsIn(m.type, v, out);
  }
  return out;
}

/** Every `Struct.member` JSON path a container of `root` can have (what {@link deepContainerArb} must reach). */
export function memberPaths(root: StructType): Set<string> {
  const out = new Set<string>();
  const walk = (type: GoType): void => {
    if (type.kind === 'ptr' || type.kind === 'slice' || type.kind === 'map') {
      walk(type.elem);
      return;
    }
    if (type.kind !== 'struct' || type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE) return;
    for (const f of type.fields) {
      if (!f.exported) continue;
      if (f.inline) {
        walk(f.type);
        continue;
      }
      const path = `${type.name}.${f.jsonName || f.goName}`;
      if (out.has(path)) continue;
      out.add(path);
      walk(f.type);
    }
  };
  walk(root);
  return out;
}
