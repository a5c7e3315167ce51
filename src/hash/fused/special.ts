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
import { expandJsonBytes, fallback, feedFolded, fold, type Folded } from './fnv.js';

/** Entries per memo; the cache is emptied when full so memory stays bounded whatever the input. */
const MEMO_CAPACITY = 256;

/** Feeds the fragment of one input value (string, number, null/absent); anything else falls back. */
export type FragmentFeeder = (h: number, json: unknown) => number;

/** A fragment renderer: the bytes FNV consumes for this input value, or null when the tree path would throw. */
type Render = (json: unknown) => Uint8Array | null;

export function memoisedFeeder(render: Render): FragmentFeeder {
  // Fragments are kept folded (one step each, see fnv.ts): 1 KiB per distinct value.
  const folded = (json: unknown): Folded | null => {
    const bytes = render(json);
    return bytes === null ? null : fold(bytes);
  };
  const strings = new Map<string, Folded | null>();
  const numbers = new Map<number, Folded | null>();
  let absent: Folded | null | undefined;
  const lookup = <K>(map: Map<K, Folded | null>, key: K): Folded | null => {
    let frag = map.get(key);
    if (frag === undefined) {
      frag = folded(key);
      if (map.size >= MEMO_CAPACITY) map.clear();
      map.set(key, frag);
    }
    return frag;
  };
  return (h, json) => {
    let frag: Folded | null;
    if (typeof json === 'string') frag = lookup(strings, json);
    else if (typeof json === 'number') frag = lookup(numbers, json);
    else if (json === null || json === undefined) frag = absent === undefined ? (absent = folded(null)) : absent;
    else return fallback();
    if (frag === null) return fallback();
    return feedFolded(h, frag);
  };
}

/**
 * Whether the tree path decodes this input value of `type` (a string, number or null/absent;
 * anything else: no), memoised as {@link memoisedFeeder} memoises fragments: what the 1.31+ check
 * asks of a Quantity, without building the fragment it does not hash.
 */
export function memoisedAccepts(type: GoType): (json: unknown) => boolean {
  const strings = new Map<string, boolean>();
  const numbers = new Map<number, boolean>();
  const absent = decodeOrNull(type, null) !== null;
  const lookup = <K>(map: Map<K, boolean>, key: K): boolean => {
    let ok = map.get(key);
    if (ok === undefined) {
      ok = decodeOrNull(type, key) !== null;
      if (map.size >= MEMO_CAPACITY) map.clear();
      map.set(key, ok);
    }
    return ok;
  };
  return (json) => {
    if (typeof json === 'string') return lookup(strings, json);
    if (typeof json === 'number') return lookup(numbers, json);
    return json == null && absent;
  };
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
