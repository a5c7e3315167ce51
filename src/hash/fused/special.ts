/**
 * The two API types with their own JSON handling (Quantity, IntOrString) are rendered by the tree
 * pipeline itself, once per distinct input value, and their fragment (already in the form FNV
 * consumes) is memoised in a bounded cache: canonicalising a quantity is the costly part, and a
 * node has few distinct ones. A value the tree path refuses is memoised as "fall back".
 */
import { decoderFor } from '../../decode/decode.js';
import { compileGoJsonEncoder } from '../../encode/gojson.js';
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import { BufferSink } from '../../encode/sink.js';
import { compileSpewEncoder } from '../../encode/spew.js';
import type { GoStruct } from '../../go/value.js';
import type { GoType, StructType } from '../../models/gotype.js';
import { expandJsonBytes, fallback, feedFolded, fold } from './fnv.js';

/** Entries per memo; the cache is emptied when full so memory stays bounded whatever the input. */
const MEMO_CAPACITY = 256;

/** Feeds the fragment of one input value (string, number, null/absent); anything else falls back. */
export type FragmentFeeder = (h: number, json: unknown) => number;

/** A fragment renderer: the bytes FNV consumes for this input value, or null when the tree path would throw. */
type Render = (json: unknown) => Uint8Array | null;

/** What a {@link memoisedByValue} function answers for an input that is no string, number or null/absent. */
const NOT_A_SCALAR = Symbol('not a scalar');

/**
 * `compute` of one input value (string, number, null/absent), memoised per value in bounded maps
 * (emptied when full); anything else is {@link NOT_A_SCALAR}, not computed. `T` holds no
 * undefined, so a map's undefined is a miss: one lookup per hit, on the hash's hot path.
 */
function memoisedByValue<T extends object | boolean | null>(
  compute: (json: string | number | null) => T,
): (json: unknown) => T | typeof NOT_A_SCALAR {
  const strings = new Map<string, T>();
  const numbers = new Map<number, T>();
  let absent: { value: T } | undefined;
  const lookup = <K extends string | number>(map: Map<K, T>, key: K): T => {
    const hit = map.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    if (map.size >= MEMO_CAPACITY) map.clear();
    map.set(key, value);
    return value;
  };
  return (json) => {
    if (typeof json === 'string') return lookup(strings, json);
    if (typeof json === 'number') return lookup(numbers, json);
    if (json === null || json === undefined) return (absent ??= { value: compute(null) }).value;
    return NOT_A_SCALAR;
  };
}

function memoisedFeeder(render: Render): FragmentFeeder {
  // Fragments are kept folded (one step each, see fnv.ts): 1 KiB per distinct value.
  const fragment = memoisedByValue((json) => {
    const bytes = render(json);
    return bytes === null ? null : fold(bytes);
  });
  return (h, json) => {
    const frag = fragment(json);
    if (frag === null || frag === NOT_A_SCALAR) return fallback();
    return feedFolded(h, frag);
  };
}

/**
 * Whether the tree path decodes this input value of `type` (a string, number or null/absent;
 * anything else: no), memoised as {@link memoisedFeeder} memoises fragments: what the 1.31+ check
 * asks of a Quantity, without building the fragment it does not hash.
 */
export function memoisedAccepts(type: GoType): (json: unknown) => boolean {
  const accepts = memoisedByValue((json) => decodeOrNull(type, json) !== null);
  return (json) => accepts(json) === true;
}

/** A one-field wrapper struct, so the era's own compiled encoder renders a value of `type`. */
function wrapper(type: GoType): StructType {
  return {
    kind: 'struct',
    name: 'fused.Wrapper',
    jsonCustomMarshal: false,
    fields: [{ goName: 'F', type, jsonName: 'F', omitempty: false, embedded: false, exported: true, inline: false }],
  };
}

function decodeOrNull(type: GoType, json: unknown): GoStruct | null {
  try {
    return { F: decoderFor(type)(json, []) };
  } catch {
    return null; // the tree path will throw the same error with its path
  }
}

/** Strips the wrapper's constant text around the value (checked, so a format change cannot slip by). */
function between(bytes: Uint8Array, prefix: string, suffix: string): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  if (!text.startsWith(prefix) || !text.endsWith(suffix)) throw new Error(`unexpected wrapper rendering ${text}`);
  return bytes.subarray(Buffer.byteLength(prefix), bytes.length - Buffer.byteLength(suffix));
}

/** go-spew's body of a `type` value (what follows its `(type)` annotation). */
export function spewFeeder(type: GoType): FragmentFeeder {
  const encode = compileSpewEncoder(wrapper(type));
  return memoisedFeeder((json) => {
    const value = decodeOrNull(type, json);
    if (value === null) return null;
    const buf = new BufferSink();
    encode(value, buf);
    return between(buf.bytes(), `(fused.Wrapper){F:(${type.name})`, '}').slice();
  });
}

/** encoding/json's bytes of a `type` value, in the spew `[]uint8` form of a non-first element. */
export function jsonFeeder(type: GoType, mode: JsonEscapeMode): FragmentFeeder {
  const encode = compileGoJsonEncoder(wrapper(type), mode);
  return memoisedFeeder((json) => {
    const value = decodeOrNull(type, json);
    if (value === null) return null;
    const buf = new BufferSink();
    encode(value, buf);
    return expandJsonBytes(between(buf.bytes(), '{"F":', '}'));
  });
}

/** The JSON of a type's zero value (for the zeroed `Resources` of HashContainerWithoutResources). */
export function zeroValueJson(type: StructType, mode: JsonEscapeMode): Uint8Array {
  const value = decodeOrNull(type, undefined);
  if (value === null) throw new Error(`${type.name} has no zero value to encode`);
  const buf = new BufferSink();
  compileGoJsonEncoder(wrapper(type), mode)(value, buf);
  return expandJsonBytes(between(buf.bytes(), '{"F":', '}'));
}
