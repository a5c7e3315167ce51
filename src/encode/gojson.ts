/**
 * Go's `encoding/json.Marshal` over the Go value tree, compiled once per type graph: struct fields
 * in declaration order (embedded structs inlined in place), `omitempty` (never omits structs),
 * nil pointer/slice/map as `null`, maps with sorted keys, and the two API types with their own
 * MarshalJSON (Quantity → its String(), IntOrString → number or string).
 */
import type { GoMap, GoStruct, GoValue, IntOrStringValue } from '../go/value.js';
import { INT_OR_STRING_TYPE, QUANTITY_TYPE, type GoField, type GoType, type StructType } from '../models/gotype.js';
import { quantityString, type QuantityValue } from '../quantity/quantity.js';
import { writeGoJsonString } from './gojson-string.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import type { ByteSink } from './sink.js';
import { utf8 } from './utf8.js';

type EncodeFn = (v: GoValue, sink: ByteSink) => void;
export type GoJsonEncoder = (value: GoStruct, sink: ByteSink) => void;

const NULL = utf8('null');
const TRUE = utf8('true');
const FALSE = utf8('false');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Compiles json.Marshal for one root struct type under one Go toolchain's escaping. */
export function compileGoJsonEncoder(root: StructType, mode: JsonEscapeMode): GoJsonEncoder {
  const compiler = new Compiler(mode);
  const enc = compiler.encoder(root);
  return (value, sink) => enc(value, sink);
}

class Compiler {
  private readonly cache = new Map<GoType, EncodeFn>();
  constructor(private readonly mode: JsonEscapeMode) {}

  encoder(type: GoType): EncodeFn {
    let fn = this.cache.get(type);
    if (!fn) {
      // Indirection first, so a recursive type graph would not loop while compiling.
      this.cache.set(type, (v, s) => {
        real(v, s);
      });
      const real = this.build(type);
      this.cache.set(type, real);
      fn = real;
    }
    return fn;
  }

  private build(type: GoType): EncodeFn {
    const mode = this.mode;
    switch (type.kind) {
      case 'string':
        return (v, s) => writeGoJsonString(s, v as string, mode);
      case 'bool':
        return (v, s) => s.writeBytes(v ? TRUE : FALSE);
      case 'int32':
      case 'int':
      case 'int64':
      case 'uint':
        return (v, s) => writeAscii(s, (v as number | bigint).toString());
      case 'ptr': {
        const elem = this.encoder(type.elem);
        return (v, s) => (v === null ? s.writeBytes(NULL) : elem(v, s)); // nil pointer: null
      }
      case 'slice': {
        const elem = this.encoder(type.elem);
        return (v, s) => {
          if (v === null) {
            s.writeBytes(NULL); // nil slice: null
            return;
          }
          const arr = v as readonly GoValue[];
          s.writeByte(OPEN_BRACKET);
          for (let i = 0; i < arr.length; i++) {
            if (i > 0) s.writeByte(COMMA);
            elem(arr[i]!, s);
          }
          s.writeByte(CLOSE_BRACKET);
        };
      }
      case 'map': {
        const elem = this.encoder(type.elem);
        return (v, s) => {
          if (v === null) {
            s.writeBytes(NULL); // nil map: null
            return;
          }
          const entries = v as GoMap;
          s.writeByte(OPEN_BRACE);
          for (let i = 0; i < entries.length; i++) {
            const [k, val] = entries[i]!;
            if (i > 0) s.writeByte(COMMA);
            writeGoJsonString(s, k, mode); // keys already in Go's sorted order
            s.writeByte(COLON);
            elem(val, s);
          }
          s.writeByte(CLOSE_BRACE);
        };
      }
      case 'struct':
        if (type.name === QUANTITY_TYPE) {
          // A resource.Quantity node holds a QuantityValue (decodeQuantity builds it).
          return (v, s) => writeGoJsonString(s, quantityString(v as QuantityValue), mode);
        }
        if (type.name === INT_OR_STRING_TYPE) {
          return (v, s) => {
            // An intstr.IntOrString node holds an IntOrStringValue (decodeIntOrString builds it).
            const ios = v as IntOrStringValue;
            if (ios.Type === 1n) writeGoJsonString(s, ios.StrVal, mode);
            else writeAscii(s, String(ios.IntVal));
          };
        }
        return this.struct(type);
    }
  }

  /** `{` fields `}`; each field writes its own leading comma once something was written. */
  private struct(type: StructType): EncodeFn {
    const writers = this.fieldWriters(type);
    return (v, s) => {
      s.writeByte(OPEN_BRACE);
      const obj = v as GoStruct;
      let wrote = false;
      for (const w of writers) wrote = w(obj, s, wrote);
      s.writeByte(CLOSE_BRACE);
    };
  }

  /** Writers for one struct's members; an embedded struct contributes its own members inline. */
  private fieldWriters(type: StructType): FieldWriter[] {
    const out: FieldWriter[] = [];
    for (const f of type.fields) {
      if (!f.exported) continue; // encoding/json skips unexported fields
      if (f.inline) {
        const inner = this.fieldWriters(f.type);
        const name = f.goName;
        out.push((obj, s, wrote) => {
          const sub = obj[name] as GoStruct;
          for (const w of inner) wrote = w(sub, s, wrote);
          return wrote;
        });
        continue;
      }
      out.push(this.fieldWriter(f));
    }
    return out;
  }

  private fieldWriter(f: GoField): FieldWriter {
    const key = utf8(JSON.stringify(f.jsonName || f.goName) + ':');
    const enc = this.encoder(f.type);
    const name = f.goName;
    const skip = f.omitempty ? emptinessTest(f.type) : null;
    return (obj, s, wrote) => {
      const v = obj[name]!;
      if (skip && skip(v)) return wrote; // omitempty
      if (wrote) s.writeByte(COMMA);
      s.writeBytes(key);
      enc(v, s);
      return true;
    };
  }
}

type FieldWriter = (obj: GoStruct, sink: ByteSink, wrote: boolean) => boolean;

/** encoding/json's isEmptyValue for `omitempty`: structs are never empty. */
function emptinessTest(type: GoType): ((v: GoValue) => boolean) | null {
  switch (type.kind) {
    case 'string':
      return (v) => v === '';
    case 'bool':
      return (v) => v === false;
    case 'int32':
      return (v) => v === 0;
    case 'int':
    case 'int64':
    case 'uint':
      return (v) => v === 0n;
    case 'ptr':
      return (v) => v === null;
    case 'slice':
    case 'map':
      return (v) => v === null || (v as readonly unknown[]).length === 0;
    case 'struct':
      return null;
  }
}

function writeAscii(s: ByteSink, text: string): void {
  for (let i = 0; i < text.length; i++) s.writeByte(text.charCodeAt(i));
}
