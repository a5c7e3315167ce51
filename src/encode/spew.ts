/**
 * The legacy-era (kubelet 1.8–1.15) container hash pre-image: go-spew 1.1.1's `%#v` rendering of
 * a `v1.Container` value with `DisableMethods` (no Stringer/error calls) and `SortKeys`.
 *
 * The type graph is compiled once into a tree of specialised closures. Each Go type compiles to
 *  - a constant `head`: its `(reflect type)` annotation, which the parent merges into its own
 *    constant fragments (`{Name:(string)`, ` Image:(string)`), and
 *  - a `body` that writes the value itself.
 *
 * spew decides whether a value gets its annotation with one mutable flag ("skip the next type"):
 * set before slice elements, map keys, map values and the pointee of an annotated pointer, and
 * cleared by every non-pointer value after its annotation point. A nil pointer printed bare
 * (`<nil>` as a slice element or map value) returns before clearing it, so the flag leaks into
 * whatever spew formats next (the following struct field then loses its annotation). Bodies
 * therefore return that flag; structs whose fields can leak it pick each next field's variant at
 * run time, all others use a fixed sequence. No v1.Container closure of 1.8–1.15 has a pointer
 * inside a slice or map, so the fixed path is the one the kubelet types take.
 */
import type { GoField, GoType, MapType, PointerType, ScalarType, SliceType, StructType } from '../models/gotype.js';
import type { GoMap, GoStruct, GoValue } from '../go/value.js';
import type { ByteSink } from './sink.js';
import { utf8, writeUtf8 } from './utf8.js';

export type SpewEncoder = (value: GoStruct, sink: ByteSink) => void;

/** Writes a value (after its head); returns spew's skip-next-type flag as the value leaves it. */
type Body = (value: GoValue, sink: ByteSink) => boolean;

interface Compiled {
  /** Constant text written before the body: `(type)` when annotated, empty when bare. */
  readonly head: string;
  readonly body: Body;
}

interface FieldPrinter {
  /** ` Name:` plus the field's head. */
  readonly prefix: Uint8Array;
  readonly body: Body;
}

/** Annotated: the value's own `(type)` is printed. Bare: elements, keys, values, pointees. */
type Mode = 'annotated' | 'bare';

const NIL = utf8('<nil>'); // nil pointer/slice/map value
const TRUE = utf8('true'); // bool
const FALSE = utf8('false'); // bool
const MAP_OPEN = utf8('map['); // map
const SPACE = 0x20; // separator between elements, entries and fields
const COLON = 0x3a; // map key:value
const OPEN_BRACKET = 0x5b; // slice [
const CLOSE_BRACKET = 0x5d; // slice ] and map ]
const CLOSE_BRACE = 0x7d; // struct }
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * Compiles the `%#v` printer for a release's resolved `v1.Container`. The kubelet formats the
 * struct value (`*container`), so the top level is `(v1.Container){…}`.
 */
export function compileSpewEncoder(root: StructType): SpewEncoder {
  const cached = compiledRoots.get(root);
  if (cached) return cached;
  const compiled = new SpewCompiler().compile(root, 'annotated');
  const head = utf8(compiled.head);
  const body = compiled.body;
  const encoder: SpewEncoder = (value, sink) => {
    sink.writeBytes(head); // type annotation: (v1.Container)
    body(value, sink);
  };
  compiledRoots.set(root, encoder);
  return encoder;
}

/** One printer per resolved type graph, however often a release is asked for. */
const compiledRoots = new WeakMap<StructType, SpewEncoder>();

class SpewCompiler {
  private readonly memo = { annotated: new Map<GoType, Compiled>(), bare: new Map<GoType, Compiled>() };
  private readonly bodies = new Map<GoType, Body>();
  private readonly leaks = new Map<GoType, boolean>();

  compile(type: GoType, mode: Mode): Compiled {
    const hit = this.memo[mode].get(type);
    if (hit) return hit;
    const made: Compiled =
      type.kind === 'ptr'
        ? this.pointer(type, mode)
        : { head: mode === 'annotated' ? `(${type.name})` : '', body: this.valueBody(type) }; // type annotation: (T)
    this.memo[mode].set(type, made);
    return made;
  }

  /** Non-pointer bodies do not depend on the mode: the flag only decides the head. */
  private valueBody(type: Exclude<GoType, PointerType>): Body {
    const hit = this.bodies.get(type);
    if (hit) return hit;
    if (type.kind === 'struct') {
      // A self-referential struct reaches itself while its fields compile: hand out a forwarder.
      this.bodies.set(type, (v, s) => impl(v, s));
      const impl = this.struct(type);
      this.bodies.set(type, impl);
      return impl;
    }
    const made = type.kind === 'slice' ? this.slice(type) : type.kind === 'map' ? this.map(type) : scalar(type);
    this.bodies.set(type, made);
    return made;
  }

  private struct(type: StructType): Body {
    const fields = type.fields;
    const names = fields.map((f) => f.goName);
    if (fields.length === 0) {
      const empty = utf8('{}'); // struct with no fields
      return (_v, sink) => {
        sink.writeBytes(empty);
        return false;
      };
    }
    if (!fields.some((f) => this.mayLeak(f.type))) {
      // Fixed sequence: every field annotated; `{Name:(T)` / ` Name:(T)` pre-encoded.
      const prefixes = fields.map((f, i) => fieldPrefix(f, i, this.compile(f.type, 'annotated').head));
      const bodies = fields.map((f) => this.compile(f.type, 'annotated').body);
      const n = fields.length;
      return (v, sink) => {
        const obj = v as GoStruct;
        for (let i = 0; i < n; i++) {
          sink.writeBytes(prefixes[i]!); // struct field: {Name:(type) or  Name:(type)
          bodies[i]!(obj[names[i]!]!, sink);
        }
        sink.writeByte(CLOSE_BRACE); // struct: }
        return false;
      };
    }
    // Some field can leave the flag set: the field after it is then printed without its type.
    const annotated = fields.map((f, i): FieldPrinter => {
      const c = this.compile(f.type, 'annotated');
      return { prefix: fieldPrefix(f, i, c.head), body: c.body };
    });
    const bare = fields.map((f, i): FieldPrinter => {
      const c = this.compile(f.type, 'bare');
      return { prefix: fieldPrefix(f, i, c.head), body: c.body };
    });
    return (v, sink) => {
      const obj = v as GoStruct;
      let skipType = false;
      for (let i = 0; i < names.length; i++) {
        const f: FieldPrinter = skipType ? bare[i]! : annotated[i]!; // leaked flag: field type not printed
        sink.writeBytes(f.prefix);
        skipType = f.body(obj[names[i]!]!, sink);
      }
      sink.writeByte(CLOSE_BRACE); // struct: }
      return skipType;
    };
  }

  private slice(type: SliceType): Body {
    const elem = this.compile(type.elem, 'bare'); // slice elements: no type annotation
    const elemBody = elem.body;
    return (v, sink) => {
      if (v === null) {
        sink.writeBytes(NIL); // nil slice: <nil>
        return false;
      }
      const arr = v as readonly GoValue[];
      let skipType = false;
      sink.writeByte(OPEN_BRACKET); // slice: [a b c]
      for (let i = 0; i < arr.length; i++) {
        if (i > 0) sink.writeByte(SPACE);
        skipType = elemBody(arr[i]!, sink);
      }
      sink.writeByte(CLOSE_BRACKET);
      return skipType;
    };
  }

  private map(type: MapType): Body {
    const keyBody = this.compile(type.key, 'bare').body; // map keys: no type annotation
    const valueBody = this.compile(type.elem, 'bare').body; // map values: no type annotation
    return (v, sink) => {
      if (v === null) {
        sink.writeBytes(NIL); // nil map: <nil>
        return false;
      }
      const entries = v as GoMap; // already in Go string order, as SortKeys prints them
      let skipType = false;
      sink.writeBytes(MAP_OPEN); // map: map[k1:v1 k2:v2]
      for (let i = 0; i < entries.length; i++) {
        const [key, value] = entries[i]!;
        if (i > 0) sink.writeByte(SPACE);
        keyBody(key, sink);
        sink.writeByte(COLON);
        skipType = valueBody(value, sink);
      }
      sink.writeByte(CLOSE_BRACKET);
      return skipType;
    };
  }

  /**
   * Annotated: `(*T)` then the pointee bare, or `(*T)<nil>`. Bare: `<*>` then the pointee, or
   * `<nil>` alone, which leaves the flag set. spew follows a pointer chain (`**T`) to its first
   * non-pointer and prints one `(**T)` / `<**>` for the whole chain; the value tree holds a
   * pointer as its pointee, so a nil in the middle of a chain reads as a nil outer pointer.
   */
  private pointer(type: PointerType, mode: Mode): Compiled {
    let depth = 1;
    let target: GoType = type.elem;
    while (target.kind === 'ptr') {
      depth++;
      target = target.elem;
    }
    const targetBody = this.compile(target, 'bare').body; // pointee: its type was already printed
    if (mode === 'annotated') {
      return {
        head: `(${type.name})`, // pointer type: (*T)
        body: (v, sink) => {
          if (v === null) {
            sink.writeBytes(NIL); // nil pointer: (*T)<nil>
            return false;
          }
          return targetBody(v, sink);
        },
      };
    }
    const stars = utf8(`<${'*'.repeat(depth)}>`); // bare pointer: <*>
    return {
      head: '',
      body: (v, sink) => {
        if (v === null) {
          sink.writeBytes(NIL); // bare nil pointer: <nil>, and the flag stays set
          return true;
        }
        sink.writeBytes(stars);
        return targetBody(v, sink);
      },
    };
  }

  /**
   * Can printing a value of this type leave spew's skip-type flag set? Only a bare nil pointer
   * does that, and bare pointers are slice elements or map values, so (conservatively) a type
   * can leak when it reaches a slice or map of pointers.
   */
  private mayLeak(type: GoType): boolean {
    let hit = this.leaks.get(type);
    if (hit === undefined) {
      hit = reachesPointerElements(type, new Set());
      this.leaks.set(type, hit);
    }
    return hit;
  }
}

/** Whether a value of `type` can reach a pointer held as a slice or map element (where go-spew's skip-type flag leaks). */
export function reachesPointerElements(type: GoType, seen: Set<GoType>): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  switch (type.kind) {
    case 'ptr':
      return reachesPointerElements(type.elem, seen);
    case 'slice':
    case 'map':
      return type.elem.kind === 'ptr' || reachesPointerElements(type.elem, seen);
    case 'struct':
      return type.fields.some((f) => reachesPointerElements(f.type, seen));
    default:
      return false;
  }
}

function scalar(type: ScalarType): Body {
  switch (type.kind) {
    case 'string':
      return (v, sink) => {
        writeUtf8(sink, v as string); // string: raw UTF-8, no quotes, no escapes
        return false;
      };
    case 'bool':
      return (v, sink) => {
        sink.writeBytes(v === true ? TRUE : FALSE); // bool: true / false
        return false;
      };
    default:
      return (v, sink) => {
        writeInteger(sink, v as number | bigint); // int kinds: base-10 digits
        return false;
      };
  }
}

/** `{Name:` for the first field, ` Name:` after; the field's head (its annotation) appended. */
function fieldPrefix(field: GoField, index: number, head: string): Uint8Array {
  return utf8(`${index === 0 ? '{' : ' '}${field.goName}:${head}`);
}

/** Decimal digits without building a string when the value fits a double exactly. */
function writeInteger(sink: ByteSink, v: number | bigint): void {
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MIN_SAFE_INTEGER) && v < BigInt(Number.MAX_SAFE_INTEGER)) v = Number(v);
    else {
      writeUtf8(sink, v.toString());
      return;
    }
  }
  if (v < 0) {
    sink.writeByte(MINUS);
    v = -v;
  }
  if (v < 10) {
    sink.writeByte(ZERO + v);
    return;
  }
  let div = 1;
  while (div * 10 <= v) div *= 10;
  while (div >= 1) {
    const d = Math.floor(v / div);
    sink.writeByte(ZERO + d);
    v -= d * div;
    div /= 10;
  }
}
