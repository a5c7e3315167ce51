/**
 * Fields the container sets that one release's types do not have: that kubelet's decoder drops them
 * (encoding/json ignores unknown keys), so the two releases hash different values. The input is
 * walked against both releases' types at once.
 */
import type { JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { deref, type GoField, type GoType, type StructType } from '../models/gotype.js';

export interface DroppedField {
  /** 'a' or 'b': the side whose release drops the field. */
  droppedBy: 'a' | 'b';
  path: JsonPathSegment[];
  /** The struct and field in the release that knows it. */
  type: string;
  field: string;
}

interface Lookup {
  field: GoField;
  owner: StructType;
}

/** The field a JSON key decodes into: own fields first, then those promoted from inline embedded structs. */
export function lookupJsonKey(type: StructType, key: string): Lookup | null {
  for (const f of type.fields) {
    if (!f.inline && (f.jsonName || f.goName) === key) return { field: f, owner: type };
  }
  for (const f of type.fields) {
    if (f.inline) {
      const hit = lookupJsonKey(f.type, key);
      if (hit) return hit;
    }
  }
  return null;
}

/** Whether a JSON value gives the field a non-zero Go value (`[]` and `{}` maps decode to nil). */
function setsValue(json: unknown, type: GoType): boolean {
  if (json === null || json === undefined) return false;
  if (type.kind === 'slice') return !Array.isArray(json) || json.length > 0;
  if (type.kind === 'map') return !isPlainObject(json) || Object.keys(json).length > 0;
  return true;
}

export function droppedFields(input: unknown, a: StructType, b: StructType): DroppedField[] {
  const out: DroppedField[] = [];
  walk(input, a, b, [], out);
  return out;
}

function walk(json: unknown, ta: GoType | null, tb: GoType | null, path: JsonPathSegment[], out: DroppedField[]): void {
  ta = deref(ta);
  tb = deref(tb);
  if (!ta || !tb) return;
  if (ta.kind === 'slice' && tb.kind === 'slice' && Array.isArray(json)) {
    json.forEach((v, i) => {
      walk(v, ta.elem, tb.elem, [...path, i], out);
    });
    return;
  }
  if (ta.kind === 'map' && tb.kind === 'map' && isPlainObject(json)) {
    for (const k of Object.keys(json)) walk(json[k], ta.elem, tb.elem, [...path, k], out);
    return;
  }
  if (
    ta.kind !== 'struct' ||
    tb.kind !== 'struct' ||
    !isPlainObject(json) ||
    ta.jsonCustomMarshal ||
    tb.jsonCustomMarshal
  )
    return;
  for (const key of Object.keys(json)) {
    const fa = lookupJsonKey(ta, key);
    const fb = lookupJsonKey(tb, key);
    const p = [...path, key];
    if (fa && fb) walk(json[key], fa.field.type, fb.field.type, p, out);
    else if (fa && setsValue(json[key], fa.field.type))
      out.push({ droppedBy: 'b', path: p, type: fa.owner.name, field: fa.field.goName });
    else if (fb && setsValue(json[key], fb.field.type))
      out.push({ droppedBy: 'a', path: p, type: fb.owner.name, field: fb.field.goName });
  }
}
