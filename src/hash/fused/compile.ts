/**
 * Compiles a release's resolved `v1.Container` type graph (the same graph the decoder and encoders
 * use) into one JavaScript function that walks the caller's JSON-like input once and feeds FNV-1a
 * with the state in a local. Every struct becomes a generated function reading its members by
 * constant key (monomorphic property loads, not a loop over field descriptors); constant text
 * (go-spew annotations, JSON keys in `[]uint8` form) is pre-encoded. The generated code follows the
 * decoder's rules (own enumerable members, null and absent as zero, `[]`/`{}` as nil, int ranges)
 * and throws {@link FALLBACK} for anything else, so the value-tree path decides those inputs.
 */
import { hasToJson, isPlainObject } from '../../decode/input.js';
import type { JsonEscapeMode } from '../../encode/gojson-string.js';
import { reachesPointerElements } from '../../encode/spew.js';
import { escapedStringMembers } from '../../json/parse.js';
import { INT_OR_STRING_TYPE, QUANTITY_TYPE, type GoType, type StructType } from '../../models/gotype.js';
import * as fnv from './fnv.js';
import { jsonFeeder, spewFeeder, zeroValueJson, type FragmentFeeder } from './special.js';

/** Hashes one container input; throws {@link fnv.FALLBACK} when the tree path must decide. */
export type FusedFn = (container: unknown) => number;

export type FusedEra =
  { algorithm: 'legacy' } | { algorithm: 'json'; escapes: JsonEscapeMode; withoutResources: boolean };

/** Thrown at compile time for a type graph this compiler does not cover: the release keeps the tree path. */
export class NotFusable extends Error {}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);
const getProto = Object.getPrototypeOf;
// eslint-disable-next-line @typescript-eslint/unbound-method -- always invoked with .call(value); captured once for the hot path
const objectToString = Object.prototype.toString;

/**
 * `isPlainObject(v) && !hasToJson(v)`, without the prototype-chain walk for the usual prototypes
 * (Object.prototype and null, which the walk would pass). As a source expression too, so that each
 * generated struct function has its own inline caches for the members it probes.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const p: unknown = getProto(v);
  if (
    p === Object.prototype || p === null
      ? Array.isArray(v) || objectToString.call(v) !== '[object Object]'
      : !isPlainObject(v)
  )
    return false;
  return typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}
/** A struct function's first statement: its object (EMPTY stands for null or absent) must be a JSON object. */
const OBJECT_CHECK =
  'if (o !== EMPTY && !(typeof o === "object" && o !== null && ((p = getProto(o)) === OP || p === null ? !isArray(o) && ots.call(o) === "[object Object]" : isPlainObject(o)) && typeof o.toJSON !== "function")) fallback();';
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * Keys of a JSON object as the decoder sees them: own enumerable members that are defined, in Go
 * string order; null when there are none (nil after the round trip). Invalid input falls back.
 */
function mapKeys(m: unknown): string[] | null {
  if (!isJsonObject(m)) fnv.fallback();
  const keys: string[] = [];
  for (const k in m) {
    if (m[k] === undefined || !Object.prototype.propertyIsEnumerable.call(m, k)) continue;
    for (let j = 0; j < k.length; j++) {
      const c = k.charCodeAt(j);
      if (c >= 0xd800 && c <= 0xdfff) fnv.fallback(); // Go order and U+FFFD repair: tree path
    }
    // Insertion sort: maps here are small, and UTF-16 order is UTF-8 byte order without surrogates.
    let i = keys.length;
    keys.push(k);
    while (i > 0 && keys[i - 1]! > k) {
      keys[i] = keys[i - 1]!;
      i--;
    }
    keys[i] = k;
  }
  return keys.length === 0 ? null : keys;
}

/** The raw-spelling guard: only our parser's (null-prototype) objects can carry escaped Quantity text. */
function hasRaws(o: object): boolean {
  return Object.getPrototypeOf(o) === null && escapedStringMembers(o) !== undefined;
}

const RUNTIME = {
  ...fnv,
  // eslint-disable-next-line @typescript-eslint/unbound-method -- always invoked with .call(obj, key); captured once for the hot path
  pe: Object.prototype.propertyIsEnumerable,
  isPlainObject,
  hasToJson,
  hasRaws,
  mapKeys,
  EMPTY,
  getProto,
  objectToString,
};

/** One field as read from its JSON object: `key` undefined when an embedding struct claims it. */
interface FieldSlot {
  goName: string;
  key: string | undefined;
  type: GoType;
  omitempty: boolean;
  exported: boolean;
}

export function compileFused(root: StructType, era: FusedEra): { hash: FusedFn; withoutResources: FusedFn | null } {
  return new Generator(root, era).build();
}

class Generator {
  private readonly consts: unknown[] = [];
  private readonly constIndex = new Map<unknown, number>();
  private readonly fns: string[] = [];
  private readonly named = new Map<string, string>();
  private readonly feeders = new Map<GoType, string>();
  /** Constant fragments folded into one step each (see fnv.ts), by content; their tables share one array. */
  private readonly folds = new Map<string, number>();
  private readonly foldBytes: Uint8Array[] = [];
  private readonly json: boolean;
  private readonly escapes: JsonEscapeMode;

  constructor(
    private readonly root: StructType,
    private readonly era: FusedEra,
  ) {
    this.json = era.algorithm === 'json';
    this.escapes = era.algorithm === 'json' ? era.escapes : 'pre-go1.22';
    if (!this.json && reachesPointerElements(root, new Set())) throw new NotFusable('spew skip-type flag can leak');
  }

  build(): { hash: FusedFn; withoutResources: FusedFn | null } {
    const main = this.rootFn(false);
    const wr = this.era.algorithm === 'json' && this.era.withoutResources ? this.rootFn(true) : null;
    const source = [
      'const {feed, fallback, jsonByte, spewString, spewDecimal, jsonDecimal, pe, isPlainObject, hasToJson, hasRaws, mapKeys, EMPTY, getProto} = rt;',
      'const OP = Object.prototype, ots = rt.objectToString, isArray = Array.isArray;',
      `const jstr = rt.JSON_STRING[${JSON.stringify(this.escapes)}];`,
      'const T = rt.foldTables;',
      ...this.fns,
      `return { hash: ${main}, withoutResources: ${wr ?? 'null'} };`,
    ].join('\n');
    // Code generation is the point of this module; where an environment refuses it, the release keeps the tree path.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const made = new Function('rt', 'K', source) as (
      rt: unknown,
      k: unknown[],
    ) => { hash: FusedFn; withoutResources: FusedFn | null };
    const foldTables = new Int32Array(this.foldBytes.length * 256);
    this.foldBytes.forEach((bytes, i) => fnv.writeFoldTable(bytes, foldTables, i * 256));
    return made({ ...RUNTIME, foldTables }, this.consts);
  }

  /** A constant as `K[i]` in the generated source. */
  private k(value: unknown): string {
    let i = this.constIndex.get(value);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(value);
      this.constIndex.set(value, i);
    }
    return `K[${i}]`;
  }

  /** Feeds constant text: go-spew text as is, JSON bytes in `[]uint8` form (each after a space). */
  private text(s: string): string {
    return this.constBytes(this.json ? fnv.expandJsonBytes(utf8(s)) : utf8(s));
  }

  /** One statement feeding constant bytes: a step per byte when short, else one folded step. */
  private constBytes(bytes: Uint8Array): string {
    if (bytes.length === 0) return ';';
    if (bytes.length <= INLINE_BYTES)
      return `{ ${Array.from(bytes, (b) => `h = Math.imul(h ^ ${b}, ${fnv.FNV_PRIME});`).join(' ')} }`;
    const key = bytes.join(',');
    let i = this.folds.get(key);
    if (i === undefined) {
      i = this.foldBytes.length;
      this.foldBytes.push(bytes);
      this.folds.set(key, i);
    }
    return `h = (Math.imul(h, ${fnv.primePower(bytes.length)}) + T[${i * 256} + (h & 255)]) | 0;`;
  }

  private fn(key: string, make: (name: string) => string): string {
    let name = this.named.get(key);
    if (!name) {
      name = `f${this.named.size}`;
      this.named.set(key, name);
      this.fns.push(make(name));
    }
    return name;
  }

  private rootFn(withoutResources: boolean): string {
    return this.fn(`root/${withoutResources}`, (name) => {
      // The state after the constant head is known: start from it.
      const start = fnv.feed(fnv.FNV_OFFSET, utf8(this.json ? '([]uint8)[123' : `(${this.root.name})`));
      const body = this.json
        ? this.jsonMembers(this.root, new Set(), withoutResources)
        : this.spewStruct(this.root, new Set());
      const tail = this.json ? this.constBytes(utf8(' 125]')) : '';
      return `function ${name}(o) {
  let h = ${start};
  h = ${body}(o, h);
  ${tail}
  return h >>> 0;
}`;
    });
  }

  /** The fields of `type` with the key each is read from; embedded structs stay one slot each. */
  private slots(type: StructType, excluded: ReadonlySet<string>): { slot: FieldSlot; embedded: StructType | null }[] {
    return type.fields.map((f) => {
      const inline = f.embedded && f.jsonName === '' && f.type.kind === 'struct';
      const key = f.jsonName || f.goName;
      return {
        slot: {
          goName: f.goName,
          key: inline || excluded.has(key) ? undefined : key,
          type: f.type,
          omitempty: f.omitempty,
          exported: f.exported,
        },
        embedded: inline ? f.type : null,
      };
    });
  }

  /** Keys an embedded struct of `type` may not take: the outer struct's own, plus what was already excluded. */
  private innerExcluded(type: StructType, excluded: ReadonlySet<string>): Set<string> {
    const out = new Set(excluded);
    for (const f of type.fields)
      if (!(f.embedded && f.jsonName === '' && f.type.kind === 'struct')) out.add(f.jsonName || f.goName);
    return out;
  }

  private read(slot: FieldSlot): string {
    if (slot.key === undefined) return 'v = undefined;';
    const key = JSON.stringify(slot.key);
    return `v = o[${key}]; if (v !== undefined && !pe.call(o, ${key})) v = undefined;`;
  }

  /** Whether the struct's own members include a Quantity, whose raw JSON spelling the parser may have kept. */
  private rawsGuard(types: readonly GoType[]): string {
    return types.some((t) => target(t).name === QUANTITY_TYPE) ? 'if (hasRaws(o)) fallback();' : '';
  }

  // --- go-spew (legacy) -------------------------------------------------------------------------

  private spewStruct(type: StructType, excluded: ReadonlySet<string>): string {
    return this.fn(`spew/${type.name}/${[...excluded].join(',')}`, (name) => {
      const lines: string[] = [this.rawsGuard(type.fields.map((f) => f.type))];
      if (type.fields.length === 0) lines.push(this.text('{}'));
      this.slots(type, excluded).forEach(({ slot, embedded }, i) => {
        lines.push(this.text(`${i === 0 ? '{' : ' '}${slot.goName}:${spewHead(slot.type)}`));
        if (embedded) lines.push(`h = ${this.spewStruct(embedded, this.innerExcluded(type, excluded))}(o, h);`);
        else lines.push(this.read(slot), this.spewValue(slot.type));
      });
      if (type.fields.length > 0) lines.push('h = Math.imul(h ^ 125, 16777619);');
      return `function ${name}(o, h) {\n  let v, p;\n  ${OBJECT_CHECK}\n  ${lines.filter(Boolean).join('\n  ')}\n  return h;\n}`;
    });
  }

  /** Statements writing the value `v` of `type` (after its annotation). */
  private spewValue(type: GoType): string {
    const nil = this.text('<nil>');
    switch (type.kind) {
      case 'string':
        return 'if (typeof v === "string") h = spewString(h, v); else if (v != null) fallback();';
      case 'bool':
        return `if (v === true) ${this.text('true')} else if (v === false || v == null) ${this.text('false')} else fallback();`;
      case 'int32':
        return `if (v == null) h = Math.imul(h ^ 48, 16777619); else if (${INT32('v')}) h = spewDecimal(h, v); else fallback();`;
      case 'int':
      case 'int64':
        return `if (v == null) h = Math.imul(h ^ 48, 16777619); else if (Number.isSafeInteger(v)) h = spewDecimal(h, v); else fallback();`;
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return `if (v == null) ${nil} else { ${this.spewValue(target(type))} }`;
      case 'slice': {
        const fn = this.fn(
          `spew/${type.name}`,
          (name) => `function ${name}(a, h) {
  h = Math.imul(h ^ 91, 16777619);
  for (let i = 0; i < a.length; i++) {
    if (i > 0) h = Math.imul(h ^ 32, 16777619);
    const v = a[i];
    ${this.spewValue(type.elem)}
  }
  return Math.imul(h ^ 93, 16777619);
}`,
        );
        return `if (v == null) ${nil} else if (!Array.isArray(v) || hasToJson(v)) fallback(); else if (v.length === 0) ${nil} else h = ${fn}(v, h);`;
      }
      case 'map': {
        if (type.key.kind !== 'string') return 'fallback();';
        const fn = this.fn(
          `spew/${type.name}`,
          (name) => `function ${name}(o, ks, h) {
  ${this.rawsGuard([type.elem])}
  ${this.text('map[')}
  for (let i = 0; i < ks.length; i++) {
    if (i > 0) h = Math.imul(h ^ 32, 16777619);
    const k = ks[i];
    h = spewString(h, k);
    h = Math.imul(h ^ 58, 16777619);
    const v = o[k];
    ${this.spewValue(type.elem)}
  }
  return Math.imul(h ^ 93, 16777619);
}`,
        );
        return `if (v == null) ${nil} else { const ks = mapKeys(v); if (ks === null) ${nil} else h = ${fn}(v, ks, h); }`;
      }
      case 'struct': {
        if (type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE) return `h = ${this.feeder(type)}(h, v);`;
        if (type.jsonCustomMarshal) return 'fallback();';
        const fn = this.spewStruct(type, new Set());
        return `h = ${fn}(v == null ? EMPTY : v, h);`;
      }
    }
  }

  private feeder(type: GoType): string {
    let ref = this.feeders.get(type);
    if (!ref) {
      const f: FragmentFeeder = this.json ? jsonFeeder(type, this.escapes) : spewFeeder(type);
      ref = this.k(f);
      this.feeders.set(type, ref);
    }
    return ref;
  }

  // --- encoding/json (JSON eras), bytes in go-spew's []uint8 form -------------------------------

  /** The members of a struct (no braces), embedded structs inlined; `wr` zeroes the root's Resources. */
  private jsonMembers(type: StructType, excluded: ReadonlySet<string>, wr: boolean): string {
    return this.fn(`json/${type.name}/${[...excluded].join(',')}/${wr}`, (name) => {
      const lines: string[] = [];
      const flat = this.flatSlots(type, excluded);
      lines.push(this.rawsGuard(flat.map((s) => s.type)));
      let wrote: boolean | 'runtime' = false;
      for (const slot of flat) {
        if (!slot.exported) throw new NotFusable(`unexported field ${type.name}.${slot.goName}`);
        const key = JSON.stringify(slot.key ?? slot.goName);
        const prefix = (comma: boolean): string => this.text(`${comma ? ',' : ''}${key}:`);
        // Whether a member was already written (the comma) is known at compile time until the first omitempty field.
        const pre =
          wrote === 'runtime'
            ? `if (w) ${prefix(true)} else ${prefix(false)} w = true;`
            : prefix(wrote) + (wrote ? '' : ' w = true;');
        const zeroed = wr && type === this.root && slot.goName === 'Resources';
        if (zeroed && slot.type.kind !== 'struct') throw new NotFusable('Resources is not a struct');
        const value = zeroed
          ? `{ const h0 = h; ${this.jsonValue(slot.type)} h = h0; ${this.constBytes(zeroValueJson(slot.type as StructType, this.escapes))} }`
          : this.jsonValue(slot.type);
        const empty = slot.omitempty ? emptyTest(slot.type) : null;
        lines.push(slot.read);
        if (slot.omitempty && slot.type.kind === 'map' && slot.type.key.kind === 'string' && !zeroed) {
          // The member's keys decide both omitempty (none defined) and the order they are written in.
          lines.push(
            `{ const ks = v == null ? null : mapKeys(v); if (ks !== null) { ${pre} h = ${this.jsonMap(slot.type)}(v, ks, h); } }`,
          );
          wrote = wrote === true ? true : 'runtime';
        } else if (empty) {
          lines.push(`if (!(${empty})) { ${pre} ${value} }`);
          wrote = wrote === true ? true : 'runtime';
        } else {
          lines.push(pre, value);
          wrote = true;
        }
      }
      return `function ${name}(o, h) {\n  let v, p, w = false;\n  ${OBJECT_CHECK}\n  ${lines.filter(Boolean).join('\n  ')}\n  return h;\n}`;
    });
  }

  /** encoding/json's field list: embedded structs' fields in place, each with how it is read. */
  private flatSlots(type: StructType, excluded: ReadonlySet<string>): (FieldSlot & { read: string })[] {
    const out: (FieldSlot & { read: string })[] = [];
    for (const { slot, embedded } of this.slots(type, excluded)) {
      if (embedded) out.push(...this.flatSlots(embedded, this.innerExcluded(type, excluded)));
      else out.push({ ...slot, read: this.read(slot) });
    }
    return out;
  }

  /** `{"k":v,…}` of a map whose sorted, defined keys are known. */
  private jsonMap(type: Extract<GoType, { kind: 'map' }>): string {
    return this.fn(
      `json/${type.name}`,
      (name) => `function ${name}(o, ks, h) {
  ${this.rawsGuard([type.elem])}
  h = jsonByte(h, 123);
  for (let i = 0; i < ks.length; i++) {
    if (i > 0) h = jsonByte(h, 44);
    const k = ks[i];
    h = jstr(h, k);
    h = jsonByte(h, 58);
    const v = o[k];
    ${this.jsonValue(type.elem)}
  }
  return jsonByte(h, 125);
}`,
    );
  }

  private jsonValue(type: GoType): string {
    const nul = this.text('null');
    switch (type.kind) {
      case 'string':
        return `if (typeof v === "string") h = jstr(h, v); else if (v == null) ${this.text('""')} else fallback();`;
      case 'bool':
        return `if (v === true) ${this.text('true')} else if (v === false || v == null) ${this.text('false')} else fallback();`;
      case 'int32':
        return `if (v == null) ${this.text('0')} else if (${INT32('v')}) h = jsonDecimal(h, v); else fallback();`;
      case 'int':
      case 'int64':
        return `if (v == null) ${this.text('0')} else if (Number.isSafeInteger(v)) h = jsonDecimal(h, v); else fallback();`;
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return `if (v == null) ${nul} else { ${this.jsonValue(target(type))} }`;
      case 'slice': {
        const fn = this.fn(
          `json/${type.name}`,
          (name) => `function ${name}(a, h) {
  h = jsonByte(h, 91);
  for (let i = 0; i < a.length; i++) {
    if (i > 0) h = jsonByte(h, 44);
    const v = a[i];
    ${this.jsonValue(type.elem)}
  }
  return jsonByte(h, 93);
}`,
        );
        return `if (v == null) ${nul} else if (!Array.isArray(v) || hasToJson(v)) fallback(); else if (v.length === 0) ${nul} else h = ${fn}(v, h);`;
      }
      case 'map': {
        if (type.key.kind !== 'string') return 'fallback();';
        return `if (v == null) ${nul} else { const ks = mapKeys(v); if (ks === null) ${nul} else h = ${this.jsonMap(type)}(v, ks, h); }`;
      }
      case 'struct': {
        if (type.name === QUANTITY_TYPE) return `h = ${this.feeder(type)}(h, v);`;
        if (type.name === INT_OR_STRING_TYPE) {
          // IntOrString.MarshalJSON: a string as a string, anything else decoded as an int32.
          return `if (typeof v === "string") h = jstr(h, v); else if (v == null) ${this.text('0')} else if (${INT32('v')}) h = jsonDecimal(h, v); else fallback();`;
        }
        if (type.jsonCustomMarshal) return 'fallback();';
        const fn = this.jsonMembers(type, new Set(), false);
        return `h = jsonByte(h, 123); h = ${fn}(v == null ? EMPTY : v, h); h = jsonByte(h, 125);`;
      }
    }
  }
}

/** Constant fragments up to this length are fed a step per byte (immediates, no table load). */
const INLINE_BYTES = 2;

const INT32 = (v: string): string =>
  `typeof ${v} === "number" && Number.isInteger(${v}) && ${v} >= -2147483648 && ${v} <= 2147483647`;

/** encoding/json's isEmptyValue on the decoded value, as a test on the input (null when never empty). */
function emptyTest(type: GoType): string | null {
  switch (type.kind) {
    case 'string':
      return 'v == null || v === ""';
    case 'bool':
      return 'v == null || v === false';
    case 'int32':
    case 'int':
    case 'int64':
      return 'v == null || v === 0';
    case 'uint':
      return null;
    case 'ptr':
      return 'v == null';
    case 'slice':
      return 'v == null || (Array.isArray(v) && v.length === 0 && !hasToJson(v))';
    case 'map':
      return null; // handled with the keys (mapKeys), see jsonMembers
    case 'struct':
      return null;
  }
}

/** go-spew's annotation of a struct field's type: `(T)`, also for pointers. */
function spewHead(type: GoType): string {
  return `(${type.name})`;
}

/** The first non-pointer type of a pointer chain (the value tree holds a pointer as its pointee). */
function target(type: GoType): GoType {
  while (type.kind === 'ptr') type = type.elem;
  return type;
}
