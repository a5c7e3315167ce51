/**
 * JSON → Go value tree, per release model: what the kubelet holds after the apiserver served the
 * pod. Go's encoding/json Unmarshal rules (unknown keys dropped, `null` leaves a value at its zero,
 * int ranges enforced, exact-case keys as the apiserver matches them) plus the effects of one
 * Marshal→Unmarshal round trip: empty slices and maps become nil (every one is `omitempty`) and
 * quantities are re-parsed from their canonical text. Decoders are compiled once per Go type.
 * A JS object stands for the text JSON.stringify would send for it (see input.ts); what that text
 * would not show faithfully (toJSON, rounded doubles) is refused rather than guessed.
 */
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { MAX_INT32, MAX_INT64, MIN_INT32, MIN_INT64 } from '../go/ints.js';
import { goStringFromJson } from '../go/strings.js';
import { makeGoMap, compareGoStrings, type GoStruct, type GoValue, type IntOrStringValue } from '../go/value.js';
import { JsonNumber } from '../json/number.js';
import { escapedStringMembers } from '../json/parse.js';
import {
  INT_OR_STRING_TYPE,
  QUANTITY_TYPE,
  type GoType,
  type MapType,
  type ScalarType,
  type StructType,
} from '../models/gotype.js';
import { roundTripQuantity, unmarshalQuantity } from '../quantity/quantity.js';
import { describeObject, hasToJson, isJsonNumberText, isPlainObject, memberOf } from './input.js';
import { badNumberText, quantityTokenOf } from './quantity-token.js';

/**
 * Decodes one JSON value at `path` (a shared stack; copied only when an error is thrown). `raw` is
 * the value's text between the quotes when {@link parseJson} saw it written with escapes.
 */
type DecodeFn = (json: unknown, path: JsonPathSegment[], raw?: string) => GoValue;

const compiled = new WeakMap<GoType, DecodeFn>();

/**
 * Decodes a container (an object from `JSON.parse`, our `parseJson`, or built in code) into the Go
 * value tree of `root`, one release's `v1.Container`.
 */
export function decodeContainerTree(input: unknown, root: StructType): GoStruct {
  if (!isPlainObject(input)) throw notAContainer(input);
  if (hasToJson(input)) throw toJsonError([], 'a container object');
  return decoderFor(root)(input, []) as GoStruct;
}

export function decoderFor(type: GoType): DecodeFn {
  let fn = compiled.get(type);
  if (!fn) {
    fn = compile(type);
    compiled.set(type, fn);
  }
  return fn;
}

function compile(type: GoType): DecodeFn {
  switch (type.kind) {
    case 'string':
      return decodeString;
    case 'bool':
      return decodeBool;
    case 'int32':
      return decodeInt32;
    case 'int':
    case 'int64':
      return decodeInt64;
    case 'uint':
      return unsupported(type);
    case 'ptr': {
      const elem = lazy(type.elem);
      return (json, path) => (json === null || json === undefined ? null : elem()(json, path));
    }
    case 'slice': {
      const elem = lazy(type.elem);
      return (json, path) => {
        if (json === null || json === undefined) return null;
        if (!Array.isArray(json)) throw typeError(path, `an array (${type.name})`, json);
        if (hasToJson(json)) throw toJsonError(path, `an array (${type.name})`);
        if (json.length === 0) return null; // []: omitted by Marshal, so nil after the round trip
        const out = new Array<GoValue>(json.length);
        const dec = elem();
        for (let i = 0; i < json.length; i++) {
          path.push(i);
          out[i] = dec(json[i], path); // a hole or undefined is what JSON.stringify writes: null
          path.pop();
        }
        return out;
      };
    }
    case 'map':
      return compileMap(type);
    case 'struct':
      if (type.name === QUANTITY_TYPE) return decodeQuantity;
      if (type.name === INT_OR_STRING_TYPE) return decodeIntOrString;
      if (type.jsonCustomMarshal) return unsupported(type);
      return compileStruct(type);
  }
}

/** Defers compiling a child until first use (keeps compile order irrelevant). */
function lazy(type: GoType): () => DecodeFn {
  let fn: DecodeFn | undefined;
  return () => (fn ??= decoderFor(type));
}

function unsupported(type: GoType): DecodeFn {
  return (_json, path) => {
    throw new DecodeError('INVALID_TYPE', path, `no JSON decoding for Go type ${type.name}`);
  };
}

// --- scalars ---------------------------------------------------------------------------------

/** A Go string field: JSON string (surrogates repaired) or null/absent for "". */
function decodeString(json: unknown, path: JsonPathSegment[]): string {
  if (typeof json === 'string') return goStringFromJson(json);
  if (json === null || json === undefined) return '';
  throw typeError(path, 'a string', json);
}

function decodeBool(json: unknown, path: JsonPathSegment[]): boolean {
  if (typeof json === 'boolean') return json;
  if (json === null || json === undefined) return false;
  throw typeError(path, 'a boolean', json);
}

function decodeInt32(json: unknown, path: JsonPathSegment[]): number {
  if (typeof json === 'number' && Number.isInteger(json) && json >= -2147483648 && json <= 2147483647) {
    return json === 0 ? 0 : json; // -0 is 0 in Go
  }
  if (json === null || json === undefined) return 0;
  return Number(exactInteger(json, path, MIN_INT32, MAX_INT32, 'an int32'));
}

function decodeInt64(json: unknown, path: JsonPathSegment[]): bigint {
  if (json === null || json === undefined) return 0n;
  return exactInteger(json, path, MIN_INT64, MAX_INT64, 'an int64');
}

/** Go's strconv.ParseInt on a JSON number's text: integers only, no exponent, range-checked. */
function exactInteger(json: unknown, path: JsonPathSegment[], min: bigint, max: bigint, what: string): bigint {
  let value: bigint;
  if (typeof json === 'bigint') value = json;
  else if (json instanceof JsonNumber) {
    if (!isJsonNumberText(json.text)) throw badNumberText(json.text, path);
    if (!/^-?\d+$/.test(json.text)) {
      throw new DecodeError(
        'NOT_AN_INTEGER',
        path,
        `${what} (an integer without fraction or exponent)`,
        `found ${json.text}`,
      );
    }
    value = BigInt(json.text);
  } else if (typeof json === 'number') {
    if (!Number.isInteger(json)) {
      throw new DecodeError('NOT_AN_INTEGER', path, `${what} (an integer)`, `found ${json}`);
    }
    if (!Number.isSafeInteger(json)) {
      // A double this large has already lost digits; hashing it would silently hash another value.
      throw new DecodeError(
        'UNSAFE_INTEGER',
        path,
        `${what} given exactly: a bigint, or the container as JSON text`,
        `the JS number ${json} is beyond 2^53 and may have been rounded`,
      );
    }
    value = BigInt(json);
  } else throw typeError(path, what, json);
  if (value < min || value > max) {
    throw new DecodeError('INT_OUT_OF_RANGE', path, `${what} in [${min}, ${max}]`, `found ${value}`);
  }
  return value;
}

// --- API special types -----------------------------------------------------------------------

/** Quantity.UnmarshalJSON, then the round trip (null gives the zero Quantity, which comes back as "0"). */
function decodeQuantity(json: unknown, path: JsonPathSegment[], raw?: string): GoValue {
  const token = quantityTokenOf(json, path, raw);
  if (token === null) throw typeError(path, 'a quantity string such as "500m" or "1Gi", or a number', json);
  return roundTripQuantity(unmarshalQuantity(token, path));
}

/** IntOrString.UnmarshalJSON: a JSON string is Type 1 (even "8080"); anything else decodes as int32. */
function decodeIntOrString(json: unknown, path: JsonPathSegment[]): IntOrStringValue {
  if (typeof json === 'string') return { Type: 1n, IntVal: 0, StrVal: goStringFromJson(json) };
  if (typeof json === 'boolean' || (typeof json === 'object' && json !== null && !(json instanceof JsonNumber))) {
    throw typeError(path, 'a port number or name (int or string)', json);
  }
  return { Type: 0n, IntVal: decodeInt32(json, path), StrVal: '' };
}

// --- composites ------------------------------------------------------------------------------

function compileMap(type: MapType): DecodeFn {
  const key = type.key as ScalarType;
  if (key.kind !== 'string') return unsupported(type);
  const elem = lazy(type.elem);
  return (json, path) => {
    if (json === null || json === undefined) return null;
    if (!isPlainObject(json)) throw typeError(path, `an object (${type.name})`, json);
    if (hasToJson(json)) throw toJsonError(path, `an object (${type.name})`);
    const dec = elem();
    const raws = escapedStringMembers(json);
    const byKey = new Map<string, GoValue>();
    for (const k of Object.keys(json)) {
      const value = json[k];
      if (value === undefined) continue; // JSON.stringify leaves the member out
      path.push(k);
      byKey.set(goStringFromJson(k), dec(value, path, raws?.get(k))); // keys equal after U+FFFD repair: the later wins, as in Go
      path.pop();
    }
    if (byKey.size === 0) return null; // {}: omitted by Marshal, so nil after the round trip
    const entries = [...byKey.entries()].sort((a, b) => compareGoStrings(a[0], b[0]));
    return makeGoMap(entries);
  };
}

/** One struct field as the decoder sees it: where its JSON comes from and how to decode it. */
interface FieldPlan {
  goName: string;
  /** JSON key, or null for an embedded struct whose keys are promoted into this object. */
  key: string | null;
  decode: () => DecodeFn;
  /** Embedded struct: decode from the same JSON object. */
  inline: boolean;
}

function compileStruct(type: StructType): DecodeFn {
  const plans: FieldPlan[] = type.fields.map((f) => ({
    goName: f.goName,
    key: f.inline ? null : f.jsonName || f.goName,
    decode: lazy(f.type),
    inline: f.inline,
  }));
  const ownKeys = new Set(plans.filter((p) => !p.inline).map((p) => p.key));
  return (json, path) => {
    if (json === null || json === undefined)
      json = EMPTY; // null leaves the zero value
    else if (!isPlainObject(json)) throw typeError(path, `an object (${type.name})`, json);
    else if (hasToJson(json)) throw toJsonError(path, `an object (${type.name})`);
    const obj = json as Record<string, unknown>;
    const raws = escapedStringMembers(obj);
    const out: Record<string, GoValue> = {};
    for (const p of plans) {
      if (p.inline) {
        out[p.goName] = p.decode()(promoted(obj, ownKeys), path);
        continue;
      }
      const key = p.key!;
      const value = memberOf(obj, key);
      if (value === undefined) {
        out[p.goName] = p.decode()(undefined, path);
        continue;
      }
      path.push(key);
      out[p.goName] = p.decode()(value, path, raws?.get(key));
      path.pop();
    }
    return out;
  };
}

const EMPTY = Object.freeze(Object.create(null) as Record<string, unknown>);

/** The keys an embedded struct may take: all but those the outer struct claims (Go's dominance rule). */
function promoted(obj: Record<string, unknown>, ownKeys: ReadonlySet<string | null>): Record<string, unknown> {
  if (ownKeys.size === 0) return obj;
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(obj)) if (!ownKeys.has(k)) out[k] = obj[k];
  return out;
}

// --- errors ----------------------------------------------------------------------------------

function typeError(path: JsonPathSegment[], expected: string, found: unknown): DecodeError {
  return new DecodeError('INVALID_TYPE', path, expected, describe(found));
}

function describe(v: unknown): string {
  if (v === null) return 'found null';
  if (v instanceof JsonNumber) return `found number ${v.text}`;
  if (typeof v === 'object') return describeObject(v);
  if (typeof v === 'string') return `found string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    return `found ${typeof v} ${v.toString()}`;
  if (typeof v === 'function' || typeof v === 'symbol') return `found ${typeof v} ${v.toString()}`;
  return 'found undefined';
}

/** An object or array whose toJSON would make JSON.stringify send something else. */
function toJsonError(path: JsonPathSegment[], expected: string): DecodeError {
  return new DecodeError(
    'INVALID_TYPE',
    path,
    `${expected} as plain data`,
    'found a toJSON method: JSON.stringify would send what it returns',
  );
}

/** The error for a container that is not a JSON object. */
function notAContainer(input: unknown): DecodeError {
  return new DecodeError('INVALID_TYPE', [], 'a container object', describe(input));
}
