/**
 * Shape checks on caller-provided JSON-like input. A JS object stands for the JSON text
 * `JSON.stringify` would send for it, so these checks follow what JSON.stringify reads: own
 * enumerable properties only, `undefined` members left out, `toJSON` honoured (we refuse it). Class
 * instances (client libraries' models) are objects like any other; exotic built-ins are not.
 */
import { JSON_NUMBER_SYNTAX, JsonNumber } from '../json/number.js';

/**
 * Built-ins whose data JSON.stringify would not send (it sends `{}` for a Map, a Set, a RegExp…):
 * an object with one of these on its prototype chain is a mistake, not a JSON object.
 */
let exoticPrototypes: ReadonlySet<object> | undefined;

function exotic(): ReadonlySet<object> {
  return (exoticPrototypes ??= new Set<object>([
    Map.prototype,
    Set.prototype,
    WeakMap.prototype,
    WeakSet.prototype,
    Date.prototype,
    RegExp.prototype,
    Error.prototype,
    Promise.prototype,
    Number.prototype,
    String.prototype,
    Boolean.prototype,
    Symbol.prototype,
    BigInt.prototype,
    ArrayBuffer.prototype,
    DataView.prototype,
    Object.getPrototypeOf(Uint8Array.prototype) as object,
    JsonNumber.prototype,
  ]));
}

/**
 * A JSON object as JSON.stringify would send it: any non-array object whose own enumerable
 * members are its data: plain and null-prototype objects, and class instances such as
 * `@kubernetes/client-node`'s `V1Container`. Refused: arrays, {@link JsonNumber}, and exotic
 * objects (Map, Set, Date, RegExp, boxed primitives, typed arrays, errors, promises, or objects from
 * another realm that claim such a tag), which JSON.stringify would turn into something else.
 * Objects with `toJSON` pass here; callers refuse them with {@link hasToJson}.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  // Internal-slot objects (Date, RegExp, boxed primitives, errors, arguments) and foreign-realm
  // built-ins report their own tag; class instances and plain objects report Object.
  if (Object.prototype.toString.call(v) !== '[object Object]') return false;
  const known = exotic();
  for (
    let proto = Object.getPrototypeOf(v) as object | null;
    proto !== null;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    if (known.has(proto)) return false;
  }
  return true;
}

/** How an object that is no JSON object looks, for error messages (`found a Map`). */
export function describeObject(v: object): string {
  if (Array.isArray(v)) return 'found an array';
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  const ctor = (Object.getPrototypeOf(v) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const name = tag !== 'Object' ? tag : typeof ctor === 'string' && ctor !== '' && ctor !== 'Object' ? ctor : 'object';
  return `found ${/^[AEIOU]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/**
 * Whether JSON.stringify would replace this object or array by what its `toJSON` returns; the
 * decoder refuses those rather than hash something other than what a client would send.
 */
export function hasToJson(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

// eslint-disable-next-line @typescript-eslint/unbound-method -- always invoked with .call(obj, key); captured once for the hot path
const hasEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * The member `key` as JSON.stringify would send it: `undefined` when it is missing, inherited or
 * non-enumerable (JSON.stringify skips all three, and an `undefined` value, in objects).
 */
export function memberOf(obj: object, key: string): unknown {
  return hasEnumerable.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** RFC 8259 number syntax: what Go's scanner accepts before any Unmarshal sees the number. */
const JSON_NUMBER = new RegExp(`^${JSON_NUMBER_SYNTAX}$`);

/**
 * Whether a {@link JsonNumber}'s text is a JSON number. Our parser only makes valid ones, but the
 * class is public: `new JsonNumber('007')` or `'1Gi'` must not reach Go semantics that never see them.
 */
export function isJsonNumberText(text: string): boolean {
  return JSON_NUMBER.test(text);
}
