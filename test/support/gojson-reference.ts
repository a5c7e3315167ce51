/**
 * Reference encoder for the differential tests: Go's json.Marshal interpreted directly over a
 * GoType and a value tree, building a JS string. Written independently of the compiled encoder
 * (different escaping code, no pre-encoded fragments), so the two check each other.
 */
import type { GoMap, GoStruct, GoValue, IntOrStringValue } from '../../src/go/value.js';
import type { GoType, StructType } from '../../src/models/gotype.js';
import { quantityString, type QuantityValue } from '../../src/quantity/quantity.js';

export function goJsonReference(type: GoType, value: GoValue, go122: boolean): string {
  return encode(type, value, go122);
}

function quote(s: string, go122: boolean): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (go122 && ch === '\b') out += '\\b';
    else if (go122 && ch === '\f') out += '\\f';
    else if (cp < 0x20 || ch === '<' || ch === '>' || ch === '&' || cp === 0x2028 || cp === 0x2029) {
      out += '\\u' + cp.toString(16).padStart(4, '0');
    } else out += ch;
  }
  return out + '"';
}

function isEmpty(type: GoType, v: GoValue): boolean {
  switch (type.kind) {
    case 'string':
      return v === '';
    case 'bool':
      return v === false;
    case 'int32':
      return v === 0;
    case 'int':
    case 'int64':
    case 'uint':
      return v === 0n;
    case 'ptr':
      return v === null;
    case 'slice':
    case 'map':
      return v === null || (v as readonly unknown[]).length === 0;
    case 'struct':
      return false;
  }
}

/** The `"key":value` members of a struct, embedded structs inlined. */
function members(type: StructType, obj: GoStruct, go122: boolean): string[] {
  const out: string[] = [];
  for (const f of type.fields) {
    if (!f.exported) continue;
    const v = obj[f.goName]!;
    if (f.embedded && f.jsonName === '' && f.type.kind === 'struct') {
      out.push(...members(f.type, v as GoStruct, go122));
      continue;
    }
    if (f.omitempty && isEmpty(f.type, v)) continue;
    out.push(`${quote(f.jsonName || f.goName, go122)}:${encode(f.type, v, go122)}`);
  }
  return out;
}

function encode(type: GoType, v: GoValue, go122: boolean): string {
  switch (type.kind) {
    case 'string':
      return quote(v as string, go122);
    case 'bool':
      return v ? 'true' : 'false';
    case 'int32':
    case 'int':
    case 'int64':
    case 'uint':
      return (v as number | bigint).toString();
    case 'ptr':
      return v === null ? 'null' : encode(type.elem, v, go122);
    case 'slice':
      return v === null ? 'null' : `[${(v as GoValue[]).map((x) => encode(type.elem, x, go122)).join(',')}]`;
    case 'map':
      return v === null
        ? 'null'
        : `{${(v as GoMap).map(([k, x]) => `${quote(k, go122)}:${encode(type.elem, x, go122)}`).join(',')}}`;
    case 'struct': {
      if (type.name === 'resource.Quantity') return quote(quantityString(v as QuantityValue), go122);
      if (type.name === 'intstr.IntOrString') {
        const ios = v as IntOrStringValue;
        return ios.Type === 1n ? quote(ios.StrVal, go122) : ios.IntVal.toString();
      }
      return `{${members(type, v as GoStruct, go122).join(',')}}`;
    }
  }
}
