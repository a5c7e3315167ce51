/**
 * Shape checks on caller-provided JSON-like input. A JS object stands for the JSON text
 * `JSON.stringify` would send for it, so these checks follow what JSON.stringify reads: own
 * enumerable properties only, `undefined` members left out, `toJSON` honoured (we refuse it).
 */
import { JSON_NUMBER_SYNTAX, JsonNumber } from '../json/number.js';

/** A JSON object: a plain or null-prototype object (not an array, Map, Date, JsonNumber…). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof JsonNumber) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether JSON.stringify would replace this object or array by what its `toJSON` returns; the
 * decoder refuses those rather than hash something other than what a client would send.
 */
export function hasToJson(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

const hasEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * The member `key` as JSON.stringify would send it: `undefined` when it is missing, inherited or
 * non-enumerable (JSON.stringify skips all three, and an `undefined` value, in objects).
 */
export function memberOf(obj: Record<string, unknown>, key: string): unknown {
  return hasEnumerable.call(obj, key) ? obj[key] : undefined;
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
