/**
 * Which struct types a decoded container actually reaches, and where. go-spew prints every field of
 * every reached struct (nil and zero included), so for the legacy algorithm a field added to a
 * reached type changes the hash and one added to an unreached type does not.
 */
import { formatJsonPath, type JsonPathSegment } from '../errors.js';
import type { GoMap, GoValue } from '../go/value.js';
import type { GoType } from '../models/gotype.js';

const MAX_PATHS = 3;

/** Struct type name → up to a few jq-style paths where the value reaches it. */
export function reachedStructs(value: GoValue, type: GoType, out = new Map<string, string[]>()): Map<string, string[]> {
  walk(value, type, [], out);
  return out;
}

function walk(value: GoValue, type: GoType, path: JsonPathSegment[], out: Map<string, string[]>): void {
  switch (type.kind) {
    case 'ptr':
      if (value !== null) walk(value, type.elem, path, out);
      return;
    case 'slice':
      if (Array.isArray(value))
        value.forEach((v, i) => {
          walk(v as GoValue, type.elem, [...path, i], out);
        });
      return;
    case 'map':
      if (value !== null) for (const [k, v] of value as GoMap) walk(v, type.elem, [...path, k], out);
      return;
    case 'struct': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
      const paths = out.get(type.name) ?? [];
      if (paths.length < MAX_PATHS) paths.push(formatJsonPath(path));
      out.set(type.name, paths);
      const obj = value as Readonly<Record<string, GoValue>>;
      for (const f of type.fields) {
        if (!(f.goName in obj)) continue;
        walk(obj[f.goName] as GoValue, f.type, f.inline ? path : [...path, f.jsonName || f.goName], out);
      }
      return;
    }
    default:
      return;
  }
}
