/**
 * A stable text key for a container input, so identical specs (every pod of a DaemonSet) are
 * hashed once. Object keys are sorted; numbers keep their source text, since `1E3` and `1000`
 * are different quantities to the kubelet (a generic stable stringify would call
 * `JsonNumber.toJSON` and merge them).
 */
import { JsonNumber } from '../json/number.js';

export function stableKey(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(v: unknown, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'number':
      out.push(Object.is(v, -0) ? '0' : String(v));
      return;
    case 'bigint':
      out.push(`${v}n`); // never equal to a JS number's text, so a bigint and a rounded double cannot share a key
      return;
  }
  if (v instanceof JsonNumber) {
    out.push(`#${v.text}`);
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(',');
      write(v[i], out);
    }
    out.push(']');
    return;
  }
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    out.push('{');
    keys.forEach((k, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write(obj[k], out);
    });
    out.push('}');
    return;
  }
  // Functions and symbols are not JSON; give them a key that never matches real data.
  out.push(`!${typeof v}`);
}
