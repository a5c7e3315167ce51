/** Shape checks on caller-provided JSON-like input. */
import { JsonNumber } from '../json/number.js';

/** A JSON object: a plain or null-prototype object (not an array, Map, Date, JsonNumber…). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof JsonNumber) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
