/**
 * A stable text key for a container input, so identical specs (every pod of a DaemonSet) are
 * hashed once. Object keys are sorted; numbers keep their source text, since `1E3` and `1000`
 * are different quantities to the kubelet (a generic stable stringify would call
 * `JsonNumber.toJSON` and merge them). Built by string concatenation (V8 ropes) with an in-place
 * insertion sort of each object's keys: this runs once per container of a node.
 */
import { JsonNumber } from './number.js';

export function stableKey(value: unknown): string {
  return write(value);
}

function write(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Object.is(v, -0) ? '0' : String(v);
    case 'bigint':
      return `${v}n`; // never equal to a JS number's text, so a bigint and a rounded double cannot share a key
  }
  if (v instanceof JsonNumber) return `#${v.text}`;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + write(v[i]);
    return out + ']';
  }
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const keys = sortedKeys(Object.keys(obj));
    let out = '{';
    let first = true;
    for (const k of keys) {
      const member = obj[k];
      if (member === undefined) continue;
      out += (first ? '' : ',') + JSON.stringify(k) + ':' + write(member);
      first = false;
    }
    return out + '}';
  }
  // Functions and symbols are not JSON; give them a key that never matches real data.
  return `!${typeof v}`;
}

/** Sorts in place in UTF-16 code unit order (what `Array.prototype.sort` does): objects here are small. */
function sortedKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i;
    while (j > 0 && keys[j - 1]! > k) {
      keys[j] = keys[j - 1]!;
      j--;
    }
    keys[j] = k;
  }
  return keys;
}
