/** A structural diff of two JSON pre-images (json and name-image algorithms). */
import type { JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { JsonNumber } from '../json/number.js';

export interface JsonDifference {
  path: JsonPathSegment[];
  /** `a`/`b`: the value is only on that side; `value`: both sides have different values. */
  kind: 'only-a' | 'only-b' | 'value';
  a?: unknown;
  b?: unknown;
}

export interface JsonDiffResult {
  differences: JsonDifference[];
  /** Objects whose shared keys come in a different order (struct field order changed). */
  reordered: JsonPathSegment[][];
}

export function diffJson(a: unknown, b: unknown): JsonDiffResult {
  const out: JsonDiffResult = { differences: [], reordered: [] };
  walk(a, b, [], out);
  return out;
}

function leafEqual(a: unknown, b: unknown): boolean {
  if (a instanceof JsonNumber && b instanceof JsonNumber) return a.text === b.text;
  return a === b;
}

function walk(a: unknown, b: unknown, path: JsonPathSegment[], out: JsonDiffResult): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    const setB = new Set(kb);
    const setA = new Set(ka);
    for (const k of ka) {
      if (setB.has(k)) walk(a[k], b[k], [...path, k], out);
      else out.differences.push({ path: [...path, k], kind: 'only-a', a: a[k] });
    }
    for (const k of kb) if (!setA.has(k)) out.differences.push({ path: [...path, k], kind: 'only-b', b: b[k] });
    const sharedA = ka.filter((k) => setB.has(k));
    const sharedB = kb.filter((k) => setA.has(k));
    if (sharedA.some((k, i) => k !== sharedB[i])) out.reordered.push(path);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (i >= a.length) out.differences.push({ path: [...path, i], kind: 'only-b', b: b[i] });
      else if (i >= b.length) out.differences.push({ path: [...path, i], kind: 'only-a', a: a[i] });
      else walk(a[i], b[i], [...path, i], out);
    }
    return;
  }
  if (!leafEqual(a, b)) out.differences.push({ path, kind: 'value', a, b });
}

/** Paths of strings containing BS (0x08) or FF (0x0c), whose escaping changed with Go 1.22. */
export function stringsWithBsFf(
  v: unknown,
  path: JsonPathSegment[] = [],
  out: JsonPathSegment[][] = [],
): JsonPathSegment[][] {
  if (typeof v === 'string') {
    if (/[\b\f]/.test(v)) out.push(path);
  } else if (Array.isArray(v)) v.forEach((x, i) => stringsWithBsFf(x, [...path, i], out));
  else if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      if (/[\b\f]/.test(k)) out.push([...path, k]);
      stringsWithBsFf(v[k], [...path, k], out);
    }
  }
  return out;
}
