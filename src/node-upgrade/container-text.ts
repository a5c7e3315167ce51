/**
 * An API container as the JSON text a plan carries, so that apply can hash it again: keys sorted,
 * and numbers as their source text ({@link JsonNumber}: `1E3` and `1000` are different quantities
 * to the kubelet, and an int64 beyond 2^53 must not be rounded), bigints as their digits.
 */
import { JsonNumber } from '../json/number.js';

export function containerText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // A double the API gave as a number: JSON.stringify writes the shortest text that reads back to it.
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
  }
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => containerText(v)).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const members = Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${containerText(obj[k])}`);
    return `{${members.join(',')}}`;
  }
  // Functions and symbols are no JSON: the hashers refused them already.
  return 'null';
}
