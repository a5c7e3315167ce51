/**
 * Field-level differences between two decoded containers of the same release (what the kubelet
 * holds after decoding), as jq-style paths of the JSON the user wrote.
 */
import { formatJsonPath, type JsonPathSegment } from '../errors.js';
import type { GoMap, GoValue } from './value.js';
import { INT_OR_STRING_TYPE, QUANTITY_TYPE, type GoType } from '../models/gotype.js';

/** Paths where `a` and `b` (both decoded with `type`) differ; a whole subtree counts once. */
export function diffGoValues(type: GoType, a: GoValue, b: GoValue): string[] {
  return diffGoValuePaths(type, a, b).map(formatJsonPath);
}

/** The same differences as path segments (JSON member names and list indexes). */
export function diffGoValuePaths(type: GoType, a: GoValue, b: GoValue): JsonPathSegment[][] {
  const out: JsonPathSegment[][] = [];
  walk(type, a, b, [], out);
  return out;
}

function walk(type: GoType, a: GoValue, b: GoValue, path: JsonPathSegment[], out: JsonPathSegment[][]): void {
  if (a === b) return;
  switch (type.kind) {
    case 'ptr':
      if (a === null || b === null) out.push(path);
      else walk(type.elem, a, b, path, out);
      return;
    case 'slice': {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
        out.push(path);
        return;
      }
      for (let i = 0; i < a.length; i++) walk(type.elem, a[i] as GoValue, b[i] as GoValue, [...path, i], out);
      return;
    }
    case 'map': {
      if (a === null || b === null) {
        out.push(path);
        return;
      }
      const ma = new Map(a as GoMap);
      const mb = new Map(b as GoMap);
      for (const k of new Set([...ma.keys(), ...mb.keys()])) {
        if (!ma.has(k) || !mb.has(k)) out.push([...path, k]);
        else walk(type.elem, ma.get(k) as GoValue, mb.get(k) as GoValue, [...path, k], out);
      }
      return;
    }
    case 'struct': {
      // Quantities and IntOrString are single values to the user, whatever their Go internals.
      if (type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE) {
        if (!deepEqual(a, b)) out.push(path);
        return;
      }
      const oa = a as Readonly<Record<string, GoValue>>;
      const ob = b as Readonly<Record<string, GoValue>>;
      for (const f of type.fields) {
        if (!(f.goName in oa) && !(f.goName in ob)) continue; // name-image decodes only two fields
        walk(
          f.type,
          oa[f.goName] ?? null,
          ob[f.goName] ?? null,
          f.inline ? path : [...path, f.jsonName || f.goName],
          out,
        );
      }
      return;
    }
    default:
      if (a !== b) out.push(path);
  }
}

/** Deep equality of JSON-like values (objects by their own keys; numbers kept as source text by their text). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
