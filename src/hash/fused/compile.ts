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
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import { reachesPointerElements } from '../../encode/spew.js';
import { escapedStringMembers } from '../../json/parse.js';
import { INT_OR_STRING_TYPE, QUANTITY_TYPE, type GoType, type StructType } from '../../models/gotype.js';
import * as fnv from './fnv.js';
import { jsonFeeder, memoisedAccepts, spewFeeder, zeroValueJson, type FragmentFeeder } from './special.js';
import * as tapeKinds from './tape.js';
import { isLongInt64, keyHash, sortedMembers, tape } from './tape.js';
import type { TopLevelSpans } from './text.js';
import { utf8Slice, utf8Text } from './utf8-text.js';

/**
 * A tape kind as the generated code spells it: the number bound from tape.ts, its name beside it
 * (a literal, so V8 compares against a constant; the comment is for whoever reads the source).
 */
const KIND = Object.fromEntries(
  (['T_NULL', 'T_FALSE', 'T_TRUE', 'T_NUMBER', 'T_STRING', 'T_ESCAPED_STRING', 'T_ARRAY', 'T_OBJECT'] as const).map(
    (name) => [name, `${tapeKinds[name]} /* ${name} */`],
  ),
) as Record<
  'T_NULL' | 'T_FALSE' | 'T_TRUE' | 'T_NUMBER' | 'T_STRING' | 'T_ESCAPED_STRING' | 'T_ARRAY' | 'T_OBJECT',
  string
>;

/** The FNV-1a 32 prime as the generated code spells it (bound from fnv.ts). */
const PRIME = `${fnv.FNV_PRIME} /* FNV_PRIME */`;

/** Hashes one container input; throws {@link fnv.FALLBACK} when the tree path must decide. */
export type FusedFn = (container: unknown) => number;

/**
 * Hashes the container JSON text its scan just read (valid text, as UTF-8 in {@link utf8Text}): from
 * the {@link tape} the scan filled, or (1.31+) from the root members it found; throws
 * {@link fnv.FALLBACK} like {@link FusedFn}.
 */
export type FusedTextFn = (spans: TopLevelSpans) => number;

/** The hashers of one release and escape mode: object input, and text input through the tape. */
export interface CompiledFused {
  hash: FusedFn;
  withoutResources: FusedFn | null;
  text: FusedTextFn;
  textWithoutResources: FusedTextFn | null;
  /** The generated JavaScript, as compiled (for debugging: see `npm run dump:fused`). */
  source: string;
}

/**
 * What the generated walk computes: a legacy or JSON-era hash, or (`check`) nothing but whether the
 * release's decoder accepts the input, which 1.31+ runs before hashing name and image (the kubelet
 * decodes the whole container, so a malformed field anywhere is refused at every release). The check
 * is a walk of its own: per member a plain load and one `typeof` (or tape kind) test, no bytes, no
 * key sorting, no allocation (a Quantity's verdict is memoised, as the hash memoises its fragment);
 * an absent or null struct, slice or map has nothing to check. A check that returns has found the
 * input decodable; one that throws {@link fnv.FALLBACK} leaves it to the tree path's full decode,
 * which a check may do more often than needed (see `checkMembers`) but never less.
 */
export type FusedEra =
  | { algorithm: 'legacy' }
  | { algorithm: 'json'; escapes: JsonEscapeMode; withoutResources: boolean }
  | { algorithm: 'check' };

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
function isJsonObject(v: unknown): v is Record<string, unknown> {
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
/** Whether `o` is a JSON object (as {@link isJsonObject}), its prototype left in `p`. */
const IS_JSON_OBJECT =
  'typeof o === "object" && o !== null && ((p = getProto(o)) === OP || p === null ? !isArray(o) && ots.call(o) === "[object Object]" : isPlainObject(o)) && typeof o.toJSON !== "function"';
/** A struct function's first statement: its object (EMPTY stands for null or absent) must be a JSON object. */
const OBJECT_CHECK = `if (o !== EMPTY && !(${IS_JSON_OBJECT})) fallback();`;
/** The check's {@link OBJECT_CHECK}, for a present value (absent and null are not checked). */
const CHECK_OBJECT = `if (!(${IS_JSON_OBJECT})) fallback();`;
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
  isJsonObject,
  hasToJson,
  hasRaws,
  mapKeys,
  EMPTY,
  getProto,
  objectToString,
  tape,
  sortedMembers,
  isLongInt64,
  utf8Text,
  utf8Slice,
};

/** One field as read from its JSON object: `key` undefined when an embedding struct claims it. */
interface FieldSlot {
  goName: string;
  key: string | undefined;
  type: GoType;
  omitempty: boolean;
  exported: boolean;
}

/** `label` names the release and escape mode in the source's `//# sourceURL` (debuggers and stack traces show it). */
export function compileFused(root: StructType, era: FusedEra, label = 'release'): CompiledFused {
  return new Generator(root, era, label).build();
}

class Generator {
  private readonly consts: unknown[] = [];
  private readonly constIndex = new Map<unknown, number>();
  private readonly fns: string[] = [];
  private readonly named = new Map<string, string>();
  private readonly names = new Set<string>();
  private readonly feeders = new Map<GoType, string>();
  private readonly acceptors = new Map<GoType, string>();
  /** Constant fragments folded into one step each (see fnv.ts), by content; their tables share one array. */
  private readonly folds = new Map<string, number>();
  private readonly foldBytes: Uint8Array[] = [];
  private readonly json: boolean;
  /** Check only: the decoder's tests, none of the hash's bytes (see {@link FusedEra}). */
  private readonly check: boolean;
  private readonly escapes: JsonEscapeMode;

  constructor(
    private readonly root: StructType,
    private readonly era: FusedEra,
    private readonly label: string,
  ) {
    this.json = era.algorithm !== 'legacy';
    this.check = era.algorithm === 'check';
    this.escapes = era.algorithm === 'json' ? era.escapes : 'pre-go1.22';
    if (!this.json && reachesPointerElements(root, new Set())) throw new NotFusable('spew skip-type flag can leak');
  }

  build(): CompiledFused {
    const withoutResources = this.era.algorithm === 'json' && this.era.withoutResources;
    const main = this.rootFn(false);
    const wr = withoutResources ? this.rootFn(true) : null;
    const text = this.tapeRootFn(false);
    const textWr = withoutResources ? this.tapeRootFn(true) : null;
    const source = [
      'const {feed, fallback, jsonByte, jsonRaw, spewString, spewDecimal, jsonDecimal, pe, isPlainObject, isJsonObject, hasToJson, hasRaws, mapKeys, EMPTY, getProto} = rt;',
      'const OP = Object.prototype, ots = rt.objectToString, isArray = Array.isArray;',
      `const jstr = rt.JSON_STRING[${JSON.stringify(this.escapes)}];`,
      `const jbytes = rt.JSON_BYTES[${JSON.stringify(this.escapes)}];`,
      'const T = rt.foldTables;',
      TAPE_PRELUDE,
      ...this.fns,
      `return { hash: ${main}, withoutResources: ${wr ?? 'null'}, text: ${text}, textWithoutResources: ${textWr ?? 'null'} };`,
      `//# sourceURL=kubelet-hash/fused/${this.label}.js`,
    ].join('\n');
    // Code generation is the point of this module; where an environment refuses it, the release keeps the tree path.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const made = new Function('rt', 'K', source) as (rt: unknown, k: unknown[]) => Omit<CompiledFused, 'source'>;
    const foldTables = new Int32Array(this.foldBytes.length * 256);
    this.foldBytes.forEach((bytes, i) => fnv.writeFoldTable(bytes, foldTables, i * 256));
    return { ...made({ ...RUNTIME, foldTables }, this.consts), source };
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
    return this.constBytes(this.json ? fnv.expandJsonBytes(utf8(s)) : utf8(s), s);
  }

  /** One statement feeding constant bytes: a step per byte when short, else one folded step. */
  private constBytes(bytes: Uint8Array, text = new TextDecoder().decode(bytes)): string {
    if (bytes.length === 0) return ';';
    if (bytes.length <= INLINE_BYTES)
      return `{ ${Array.from(bytes, (b) => `h = Math.imul(h ^ ${b}, ${PRIME});`).join(' ')} }`;
    const key = bytes.join(',');
    let i = this.folds.get(key);
    if (i === undefined) {
      i = this.foldBytes.length;
      this.foldBytes.push(bytes);
      this.folds.set(key, i);
    }
    // The folded fragment's text beside its step (JSON eras: the text whose `[]uint8` form is folded).
    return `h = (Math.imul(h, ${fnv.primePower(bytes.length)}) + T[${i * 256} + (h & 255)]) | 0; /* ${fragmentComment(text)} */`;
  }

  private fn(key: string, make: (name: string) => string): string {
    let name = this.named.get(key);
    if (!name) {
      name = functionName(key, this.names);
      this.names.add(name);
      this.named.set(key, name);
      this.fns.push(make(name));
    }
    return name;
  }

  private rootFn(withoutResources: boolean): string {
    return this.fn(`root/${withoutResources}`, (name) => this.rootSource(name, OBJECTS, withoutResources, 'o'));
  }

  /** The root of text input: it binds the text and the tape's arrays, then walks from the root node 0. */
  private tapeRootFn(withoutResources: boolean): string {
    return this.fn(`tape-root/${withoutResources}`, (name) => this.rootSource(name, TAPE, withoutResources, '0'));
  }

  private rootSource(name: string, input: InputForm, withoutResources: boolean, root: string): string {
    if (this.check)
      return `function ${name}(${input === TAPE ? '' : 'o'}) {
  ${input === TAPE ? TAPE_BIND : ''}
  ${this.checkMembers(this.root, input)}(${root});
  return 0;
}`;
    // The state after the constant head is known: start from it.
    const start = fnv.feed(fnv.FNV_OFFSET, utf8(this.json ? '([]uint8)[123' : `(${this.root.name})`));
    const body = this.json
      ? this.jsonMembers(this.root, new Set(), withoutResources, input)
      : this.spewStruct(this.root, new Set(), input);
    const tail = this.json ? this.constBytes(utf8(' 125]')) : '';
    return `function ${name}(${input === TAPE ? '' : 'o'}) {
  ${input === TAPE ? TAPE_BIND : ''}
  let h = ${start};
  h = ${body}(${root}, h);
  ${tail}
  return h >>> 0;
}`;
  }

  /** The fields of `type` with the key each is read from; embedded structs stay one slot each. */
  private slots(type: StructType, excluded: ReadonlySet<string>): { slot: FieldSlot; embedded: StructType | null }[] {
    return type.fields.map((f) => {
      const key = f.jsonName || f.goName;
      return {
        slot: {
          goName: f.goName,
          key: f.inline || excluded.has(key) ? undefined : key,
          type: f.type,
          omitempty: f.omitempty,
          exported: f.exported,
        },
        embedded: f.inline ? f.type : null,
      };
    });
  }

  /** Keys an embedded struct of `type` may not take: the outer struct's own, plus what was already excluded. */
  private innerExcluded(type: StructType, excluded: ReadonlySet<string>): Set<string> {
    const out = new Set(excluded);
    for (const f of type.fields) if (!f.inline) out.add(f.jsonName || f.goName);
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

  private spewStruct(type: StructType, excluded: ReadonlySet<string>, input: InputForm = OBJECTS): string {
    return this.fn(`${input}spew/${type.name}/${[...excluded].join(',')}`, (name) => {
      const slots = this.slots(type, excluded);
      const lines: string[] =
        input === TAPE
          ? [TAPE_OBJECT_CHECK, tapeLookup(slots.map(({ slot, embedded }) => (embedded ? undefined : slot.key)))]
          : [OBJECT_CHECK, this.rawsGuard(type.fields.map((f) => f.type))];
      if (type.fields.length === 0) lines.push(this.text('{}'));
      slots.forEach(({ slot, embedded }, i) => {
        lines.push(this.text(`${i === 0 ? '{' : ' '}${slot.goName}:${spewHead(slot.type)}`));
        if (embedded) lines.push(`h = ${this.spewStruct(embedded, this.innerExcluded(type, excluded), input)}(o, h);`);
        else if (input === TAPE) lines.push(`v = s${i};`, this.tapeValue(slot.type));
        else lines.push(this.read(slot), this.value(slot.type));
      });
      if (type.fields.length > 0) lines.push(`h = Math.imul(h ^ 125, ${PRIME});`);
      return `function ${name}(o, h) {\n  let v, p;\n  ${lines.filter(Boolean).join('\n  ')}\n  return h;\n}`;
    });
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

  /** The check's memoised test of a Quantity (or any special type) value: whether the tree path decodes it. */
  private acceptor(type: GoType): string {
    let ref = this.acceptors.get(type);
    if (!ref) {
      ref = this.k(memoisedAccepts(type));
      this.acceptors.set(type, ref);
    }
    return ref;
  }

  // --- encoding/json (JSON eras), bytes in go-spew's []uint8 form -------------------------------

  /** The members of a struct (no braces), embedded structs inlined; `wr` zeroes the root's Resources. */
  private jsonMembers(
    type: StructType,
    excluded: ReadonlySet<string>,
    wr: boolean,
    input: InputForm = OBJECTS,
  ): string {
    return this.fn(`${input}json/${type.name}/${[...excluded].join(',')}/${wr}`, (name) => {
      const flat = this.flatSlots(type, excluded);
      const tapeInput = input === TAPE;
      const lines: string[] = tapeInput
        ? [TAPE_OBJECT_CHECK, tapeLookup(flat.map((slot) => slot.key))]
        : [OBJECT_CHECK, this.rawsGuard(flat.map((s) => s.type))];
      const valueOf = (t: GoType): string => (tapeInput ? this.tapeValue(t) : this.value(t));
      let wrote: boolean | 'runtime' = false;
      for (const [i, slot] of flat.entries()) {
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
          ? `{ const h0 = h; ${valueOf(slot.type)} h = h0; ${this.constBytes(zeroValueJson(slot.type as StructType, this.escapes))} }`
          : valueOf(slot.type);
        const empty = slot.omitempty ? (tapeInput ? tapeEmptyTest(slot.type) : emptyTest(slot.type)) : null;
        lines.push(tapeInput ? `v = s${i};` : slot.read);
        if (slot.omitempty && slot.type.kind === 'map' && slot.type.key.kind === 'string' && !zeroed) {
          // The member's keys decide both omitempty (none defined) and the order they are written in.
          lines.push(
            tapeInput
              ? `if (v >= 0 && KD[v] === ${KIND.T_OBJECT}) { if (FI[v] >= 0) { ${pre} h = ${this.tapeMap(slot.type)}(v, h); } } else if (!(${TAPE_ABSENT})) fallback();`
              : `{ const ks = v == null ? null : mapKeys(v); if (ks !== null) { ${pre} h = ${this.objectMap(slot.type)}(v, ks, h); } }`,
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
      return `function ${name}(o, h) {\n  let v, p, w = false;\n  ${lines.filter(Boolean).join('\n  ')}\n  return h;\n}`;
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

  /**
   * Statements writing the value `v` of `type`: go-spew's text (after its annotation) for legacy
   * releases, encoding/json's bytes in `[]uint8` form for the JSON eras.
   */
  private value(type: GoType): string {
    const json = this.json;
    const nil = this.text(json ? 'null' : '<nil>');
    const zero = (): string => (json ? this.text('0') : `h = Math.imul(h ^ 48, ${PRIME});`);
    const decimal = json ? 'jsonDecimal' : 'spewDecimal';
    switch (type.kind) {
      case 'string':
        // go-spew writes nothing for "", encoding/json writes its quotes.
        return json
          ? `if (typeof v === "string") h = jstr(h, v); else if (v == null) ${this.text('""')} else fallback();`
          : 'if (typeof v === "string") h = spewString(h, v); else if (v != null) fallback();';
      case 'bool':
        return `if (v === true) ${this.text('true')} else if (v === false || v == null) ${this.text('false')} else fallback();`;
      case 'int32':
        return `if (v == null) ${zero()} else if (${INT32('v')}) h = ${decimal}(h, v); else fallback();`;
      case 'int':
      case 'int64':
        return `if (v == null) ${zero()} else if (Number.isSafeInteger(v)) h = ${decimal}(h, v); else fallback();`;
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return `if (v == null) ${nil} else { ${this.value(target(type))} }`;
      case 'slice': {
        const fn = this.fn(
          `${json ? 'json' : 'spew'}/${type.name}`,
          (name) => `function ${name}(a, h) {
  h = ${this.byte(91)};
  for (let i = 0; i < a.length; i++) {
    if (i > 0) h = ${this.byte(json ? 44 : 32)};
    const v = a[i];
    ${this.value(type.elem)}
  }
  return ${this.byte(93)};
}`,
        );
        return `if (v == null) ${nil} else if (!Array.isArray(v) || hasToJson(v)) fallback(); else if (v.length === 0) ${nil} else h = ${fn}(v, h);`;
      }
      case 'map': {
        if (type.key.kind !== 'string') return 'fallback();';
        return `if (v == null) ${nil} else { const ks = mapKeys(v); if (ks === null) ${nil} else h = ${this.objectMap(type)}(v, ks, h); }`;
      }
      case 'struct': {
        if (type.name === QUANTITY_TYPE || (type.name === INT_OR_STRING_TYPE && !json))
          return `h = ${this.feeder(type)}(h, v);`;
        if (type.name === INT_OR_STRING_TYPE) {
          // IntOrString.MarshalJSON: a string as a string, anything else decoded as an int32.
          return `if (typeof v === "string") h = jstr(h, v); else if (v == null) ${this.text('0')} else if (${INT32('v')}) h = jsonDecimal(h, v); else fallback();`;
        }
        if (type.jsonCustomMarshal) return 'fallback();';
        if (!json) return `h = ${this.spewStruct(type, new Set())}(v == null ? EMPTY : v, h);`;
        const fn = this.jsonMembers(type, new Set(), false);
        return `h = jsonByte(h, 123); h = ${fn}(v == null ? EMPTY : v, h); h = jsonByte(h, 125);`;
      }
    }
  }

  /** One byte of the era's output form as an expression of `h`: a JSON byte in `[]uint8` form, or raw go-spew text. */
  private byte(b: number): string {
    return this.json ? `jsonByte(h, ${b})` : `Math.imul(h ^ ${b}, ${PRIME})`;
  }

  /** A map whose sorted, defined keys are known: `{"k":v,…}`, or go-spew's `map[k:v …]`. */
  private objectMap(type: Extract<GoType, { kind: 'map' }>): string {
    const json = this.json;
    return this.fn(
      `${json ? 'json' : 'spew'}/${type.name}`,
      (name) => `function ${name}(o, ks, h) {
  ${this.rawsGuard([type.elem])}
  ${json ? 'h = jsonByte(h, 123);' : this.text('map[')}
  for (let i = 0; i < ks.length; i++) {
    if (i > 0) h = ${this.byte(json ? 44 : 32)};
    const k = ks[i];
    h = ${json ? 'jstr' : 'spewString'}(h, k);
    h = ${this.byte(58)};
    const v = o[k];
    ${this.value(type.elem)}
  }
  return ${this.byte(json ? 125 : 93)};
}`,
    );
  }

  // --- the check (1.31+): the decoder's tests on every member, nothing fed ---------------------

  /**
   * A struct's members (embedded structs' in place), each read by a plain load and checked. Unlike
   * the hash, the check does not ask whether a member is own and enumerable (a runtime call per
   * member, most of the check's cost): every type accepts an absent member, so a member the decoder
   * would not see (inherited, non-enumerable) can only make the check fall back, never pass a
   * container the decoder refuses.
   */
  private checkMembers(type: StructType, input: InputForm): string {
    return this.fn(`${input}check/${type.name}`, (name) => {
      const flat = this.flatSlots(type, new Set());
      const tapeInput = input === TAPE;
      const lines: string[] = tapeInput
        ? [`if (KD[o] !== ${KIND.T_OBJECT}) fallback();`, tapeCheckLookup(flat.map((slot) => slot.key))]
        : [CHECK_OBJECT, this.checkRawsGuard(flat.map((slot) => slot.type))];
      for (const [i, slot] of flat.entries()) {
        if (!slot.exported) throw new NotFusable(`unexported field ${type.name}.${slot.goName}`);
        lines.push(
          tapeInput ? `v = s${i};` : slot.key === undefined ? 'v = undefined;' : `v = o[${JSON.stringify(slot.key)}];`,
          tapeInput ? this.tapeCheck(slot.type) : this.checkValue(slot.type),
        );
      }
      return `function ${name}(o) {\n  let v, p;\n  ${lines.filter(Boolean).join('\n  ')}\n}`;
    });
  }

  /** {@link rawsGuard} after {@link CHECK_OBJECT}, which left the prototype in `p`: only null-prototype objects can carry raws. */
  private checkRawsGuard(types: readonly GoType[]): string {
    return this.rawsGuard(types) && 'if (p === null && hasRaws(o)) fallback();';
  }

  /** Statements checking the value `v` of `type` as the decoder would (the hash's tests, in {@link value}). */
  private checkValue(type: GoType): string {
    switch (type.kind) {
      case 'string':
        return 'if (typeof v !== "string" && v != null) fallback();';
      case 'bool':
        return 'if (typeof v !== "boolean" && v != null) fallback();';
      case 'int32':
        return `if (v != null && !(${INT32('v')})) fallback();`;
      case 'int':
      case 'int64':
        return 'if (v != null && !Number.isSafeInteger(v)) fallback();';
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return this.checkValue(target(type));
      case 'slice': {
        const fn = this.fn(
          `check/${type.name}`,
          (name) => `function ${name}(a) {
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    ${this.checkValue(type.elem)}
  }
}`,
        );
        return `if (v != null) { if (!isArray(v) || typeof v.toJSON === "function") fallback(); ${fn}(v); }`;
      }
      case 'map': {
        if (type.key.kind !== 'string') return 'fallback();';
        // for-in also meets inherited enumerable members, and undefined values: as above, they can
        // only make the check fall back (the decoder reads own keys and skips undefined).
        const fn = this.fn(
          `check/${type.name}`,
          (name) => `function ${name}(o) {
  let p;
  ${CHECK_OBJECT}
  ${this.checkRawsGuard([type.elem])}
  for (const k in o) {
    const v = o[k];
    ${this.checkValue(type.elem)}
  }
}`,
        );
        return `if (v != null) ${fn}(v);`;
      }
      case 'struct': {
        // The parse is the costly part of a Quantity: memoised, as the hash's fragments are.
        if (type.name === QUANTITY_TYPE) return `if (!${this.acceptor(type)}(v)) fallback();`;
        if (type.name === INT_OR_STRING_TYPE)
          return `if (typeof v !== "string" && v != null && !(${INT32('v')})) fallback();`;
        if (type.jsonCustomMarshal) return 'fallback();';
        return `if (v != null) ${this.checkMembers(type, OBJECTS)}(v);`;
      }
    }
  }

  /** {@link checkValue} on tape node `v` (-1 when absent). */
  private tapeCheck(type: GoType): string {
    const present = `v >= 0 && KD[v] !== ${KIND.T_NULL}`;
    switch (type.kind) {
      case 'string':
        return `if (${present} && KD[v] !== ${KIND.T_STRING} && KD[v] !== ${KIND.T_ESCAPED_STRING}) fallback();`;
      case 'bool':
        return `if (${present} && KD[v] !== ${KIND.T_FALSE} && KD[v] !== ${KIND.T_TRUE}) fallback();`;
      case 'int32':
      case 'int':
      case 'int64': {
        // An int64 beyond 2^53 is read from its text (LI); int32 never is.
        const fits = type.kind === 'int32' ? INT32('NM[v]') : '(Number.isSafeInteger(NM[v]) || LI(B, v))';
        return `if (${present} && !(KD[v] === ${KIND.T_NUMBER} && ${fits})) fallback();`;
      }
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return this.tapeCheck(target(type));
      case 'slice':
      case 'map': {
        if (type.kind === 'map' && type.key.kind !== 'string') return 'fallback();';
        // On the tape an array's elements and an object's member values are the same child chain.
        const fn = this.fn(
          `tape-check/${type.name}`,
          (name) => `function ${name}(p) {
  for (let c = FI[p]; c >= 0; c = NX[c]) {
    const v = c;
    ${this.tapeCheck(type.elem)}
  }
}`,
        );
        const kind = type.kind === 'slice' ? KIND.T_ARRAY : KIND.T_OBJECT;
        return `if (${present}) { if (KD[v] !== ${kind}) fallback(); ${fn}(v); }`;
      }
      case 'struct': {
        if (type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE || type.jsonCustomMarshal) {
          // As the tape hash reads them: the JS value of the node, an escaped quantity left to the tree path.
          const raw =
            type.name === QUANTITY_TYPE ? `if (v >= 0 && KD[v] === ${KIND.T_ESCAPED_STRING}) fallback(); ` : '';
          return `${raw}{ const m = MAT(v); { const v = m; ${this.checkValue(type)} } }`;
        }
        return `if (${present}) ${this.checkMembers(type, TAPE)}(v);`;
      }
    }
  }

  // --- the same two walks over a text scan's tape (node `v`, -1 when absent) ------------------

  /**
   * The statements hashing node `v` of `type`: the object walk's rules (`value`) read
   * from the tape. The two encodings differ only in the bytes around values, chosen here by era.
   */
  private tapeValue(type: GoType): string {
    const json = this.json;
    const nil = this.text(json ? 'null' : '<nil>');
    const absent = TAPE_ABSENT;
    const [plain, whole, decimal] = json ? ['jbytes', 'jstr', 'jsonDecimal'] : ['feed', 'spewString', 'spewDecimal'];
    switch (type.kind) {
      case 'string':
        // go-spew writes nothing for "", encoding/json writes its quotes.
        return `if (${absent}) ${json ? this.text('""') : '{}'} else if (KD[v] === ${KIND.T_STRING}) h = ${plain}(h, B, ST[v] + 1, EN[v] - 1); else if (KD[v] === ${KIND.T_ESCAPED_STRING}) h = ${whole}(h, JSON.parse(utf8Slice(ST[v], EN[v]))); else fallback();`;
      case 'bool':
        return `if (v >= 0 && KD[v] === ${KIND.T_TRUE}) ${this.text('true')} else if (v < 0 || KD[v] <= ${KIND.T_FALSE}) ${this.text('false')} else fallback();`;
      case 'int32':
      case 'int':
      case 'int64': {
        const fits = type.kind === 'int32' ? INT32('NM[v]') : 'Number.isSafeInteger(NM[v])';
        // An int64 beyond 2^53: its text is the decimal Go writes (see isLongInt64), fed as it is.
        const long =
          type.kind === 'int32'
            ? ''
            : ` else if (KD[v] === ${KIND.T_NUMBER} && LI(B, v)) h = ${json ? 'jsonRaw' : 'feed'}(h, B, ST[v], EN[v]);`;
        return `if (${absent}) ${this.text('0')} else if (KD[v] === ${KIND.T_NUMBER} && ${fits}) h = ${decimal}(h, NM[v]);${long} else fallback();`;
      }
      case 'uint':
        return 'fallback();';
      case 'ptr':
        return `if (${absent}) ${nil} else { ${this.tapeValue(target(type))} }`;
      case 'slice': {
        const fn = this.fn(
          `tape/${type.name}`,
          (name) => `function ${name}(a, h) {
  h = ${this.byte(91)};
  for (let e = FI[a]; e >= 0; e = NX[e]) {
    if (e !== FI[a]) h = ${this.byte(json ? 44 : 32)};
    const v = e;
    ${this.tapeValue(type.elem)}
  }
  h = ${this.byte(93)};
  return h;
}`,
        );
        return `if (${absent}) ${nil} else if (KD[v] !== ${KIND.T_ARRAY}) fallback(); else if (FI[v] < 0) ${nil} else h = ${fn}(v, h);`;
      }
      case 'map':
        if (type.key.kind !== 'string') return 'fallback();';
        return `if (${absent}) ${nil} else if (KD[v] !== ${KIND.T_OBJECT}) fallback(); else if (FI[v] < 0) ${nil} else h = ${this.tapeMap(type)}(v, h);`;
      case 'struct': {
        if (type.name === QUANTITY_TYPE || type.name === INT_OR_STRING_TYPE || type.jsonCustomMarshal) {
          // Quantity.UnmarshalJSON parses the raw text between the quotes, escapes and all: an escaped
          // quantity string is the tree path's (it keeps the raw spelling), not JSON.parse's value.
          const raw =
            type.name === QUANTITY_TYPE ? `if (v >= 0 && KD[v] === ${KIND.T_ESCAPED_STRING}) fallback(); ` : '';
          return `${raw}{ const m = MAT(v); { const v = m; ${this.value(type)} } }`;
        }
        if (json)
          return `h = jsonByte(h, 123); h = ${this.jsonMembers(type, new Set(), false, TAPE)}(v, h); h = jsonByte(h, 125);`;
        return `h = ${this.spewStruct(type, new Set(), TAPE)}(v, h);`;
      }
    }
  }

  /** A map of an object node with at least one member: `{"k":v,…}` or go-spew's `map[k:v …]`, keys in Go order. */
  private tapeMap(type: Extract<GoType, { kind: 'map' }>): string {
    const json = this.json;
    return this.fn(
      `tape/${type.name}`,
      (name) => `function ${name}(o, h) {
  ${json ? 'h = jsonByte(h, 123);' : this.text('map[')}
  const ks = sortedMembers(B, o);
  for (let i = 0; i < ks.length; i++) {
    if (i > 0) h = ${this.byte(json ? 44 : 32)};
    const v = ks[i];
    h = ${json ? 'jbytes' : 'feed'}(h, B, KS[v], KS[v] + KL[v]);
    h = ${this.byte(58)};
    ${this.tapeValue(type.elem)}
  }
  return ${this.byte(json ? 125 : 93)};
}`,
    );
  }
}

// --- text input ------------------------------------------------------------------------------

/**
 * What the generated walk reads: JS objects (the caller's, or `JSON.parse`d), or the tape of a text
 * scan, where a value is a node number (-1 for an absent member) and its kind, span, number value
 * and children are read from the tape's arrays (see tape.ts). Also the prefix of generated names.
 */
type InputForm = '' | 'tape-';
const OBJECTS: InputForm = '';
const TAPE: InputForm = 'tape-';

/**
 * Shared by the generated functions of text input: the text's bytes and the tape's arrays of the current
 * call (bound by the root, since a longer text grows the arrays), and `MAT`, a node as the JS value
 * `JSON.parse` gives for its text: what the object walk reads for Quantity and IntOrString (few,
 * small values; a valid text's span is valid JSON on its own). A number that is not a short integer
 * reads as NaN, which no decoder accepts: the tree path, which keeps its text, decides it.
 */
const TAPE_PRELUDE = `let B, KD, ST, EN, NM, FI, NX, KS, KL, KH;
const TP = rt.tape, sortedMembers = rt.sortedMembers, U8 = rt.utf8Text, utf8Slice = rt.utf8Slice, LI = rt.isLongInt64;
function MAT(n) {
  if (n < 0) return undefined;
  switch (KD[n]) {
    case ${KIND.T_NULL}: return null;
    case ${KIND.T_FALSE}: return false;
    case ${KIND.T_TRUE}: return true;
    case ${KIND.T_NUMBER}: return NM[n];
    case ${KIND.T_STRING}: return utf8Slice(ST[n] + 1, EN[n] - 1);
    default: return JSON.parse(utf8Slice(ST[n], EN[n]));
  }
}`;
const TAPE_BIND =
  'B = U8.bytes; KD = TP.kind; ST = TP.start; EN = TP.end; NM = TP.num; FI = TP.first; NX = TP.next; KS = TP.keyStart; KL = TP.keyLen; KH = TP.keyHash;';

/** A tape node that is absent (-1) or null: what the object walk reads as `v == null`. */
const TAPE_ABSENT = `v < 0 || KD[v] === ${KIND.T_NULL}`;

/** A struct function's first statement on the tape: an object node, or null/absent (-1), else the tree decides. */
const TAPE_OBJECT_CHECK = `if (o >= 0 && KD[o] !== ${KIND.T_OBJECT}) { if (KD[o] === ${KIND.T_NULL}) o = -1; else fallback(); }`;

/**
 * Declares `s0…` (-1) and sets each to the member of object node `o` with that slot's key, found by
 * the key's hash, then its length and text: one pass over the members, however many fields the
 * struct has. Members no slot names are skipped, as the object walk never reads them.
 */
function tapeLookup(keys: readonly (string | undefined)[]): string {
  if (keys.length === 0) return '';
  const byHash = new Map<number, string[]>();
  keys.forEach((key, i) => {
    if (key === undefined) return;
    const test = `if (KL[c] === ${key.length} && ${sameKey(key)}) s${i} = c;`;
    const h = keyHash(key);
    byHash.set(h, [...(byHash.get(h) ?? []), test]);
  });
  const declare = `let ${keys.map((_, i) => `s${i} = -1`).join(', ')};`;
  if (byHash.size === 0) return declare;
  const cases = [...byHash].map(([h, tests]) => `case ${h}: ${tests.join(' ')} break;`);
  return `${declare}
  let k;
  if (o >= 0) for (let c = FI[o]; c >= 0; c = NX[c]) {
    switch (KH[c]) {
      ${cases.join('\n      ')}
    }
  }`;
}

/**
 * {@link tapeLookup} for the check, on an object node `o`: members by key length (dense, so the
 * switch is a jump table), then by key hash, the key's bytes not compared. A member whose length and
 * hash are a field's but whose bytes are not (a key the decoder ignores) is then checked as that
 * field, which can only make the check fall back; a second member for one field falls back, so a
 * field's own member (keys do not repeat on the tape) is never displaced.
 */
function tapeCheckLookup(keys: readonly (string | undefined)[]): string {
  if (keys.length === 0) return '';
  const byLength = new Map<number, string[]>();
  const taken = new Set<string>();
  keys.forEach((key, i) => {
    if (key === undefined) return;
    const h = keyHash(asciiKey(key));
    // No release has two such fields in one struct; one that did would need the bytes compared.
    if (taken.has(`${key.length}/${h}`)) throw new NotFusable(`fields with one key length and hash: ${key}`);
    taken.add(`${key.length}/${h}`);
    const test = `if (h === ${h}) { if (s${i} >= 0) fallback(); s${i} = c; }`;
    byLength.set(key.length, [...(byLength.get(key.length) ?? []), test]);
  });
  const declare = `let ${keys.map((_, i) => `s${i} = -1`).join(', ')};`;
  if (byLength.size === 0) return declare;
  const cases = [...byLength].map(([length, tests]) => `case ${length}: h = KH[c]; ${tests.join(' else ')} break;`);
  return `${declare}
  let h;
  for (let c = FI[o]; c >= 0; c = NX[c]) {
    switch (KL[c]) {
      ${cases.join('\n      ')}
    }
  }`;
}

/** A field name as the scanner hashes and compares it: its UTF-8 bytes, equal to its char codes only when ASCII. */
function asciiKey(key: string): string {
  if (!/^[\x20-\x7e]*$/.test(key)) throw new NotFusable(`field name ${key} is not ASCII`);
  return key;
}

/** Whether member `c`'s key bytes spell `key` (an ASCII field name; the length already checked), byte by byte. */
function sameKey(key: string): string {
  return `(k = KS[c], ${Array.from(asciiKey(key), (ch, j) => `B[k${j ? ` + ${j}` : ''}] === ${ch.charCodeAt(0)}`).join(' && ')})`;
}

/** {@link emptyTest} on a tape node. */
function tapeEmptyTest(type: GoType): string | null {
  switch (type.kind) {
    case 'string':
      return `v < 0 || KD[v] === ${KIND.T_NULL} || (KD[v] === ${KIND.T_STRING} && EN[v] - ST[v] === 2)`;
    case 'bool':
      return `v < 0 || KD[v] <= ${KIND.T_FALSE}`;
    case 'int32':
    case 'int':
    case 'int64':
      return `v < 0 || KD[v] === ${KIND.T_NULL} || (KD[v] === ${KIND.T_NUMBER} && NM[v] === 0)`;
    case 'uint':
      return null;
    case 'ptr':
      return `v < 0 || KD[v] === ${KIND.T_NULL}`;
    case 'slice':
      return `v < 0 || KD[v] === ${KIND.T_NULL} || (KD[v] === ${KIND.T_ARRAY} && FI[v] < 0)`;
    case 'map':
      return null;
    case 'struct':
      return null;
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

/** A fragment's text safe inside a block comment. */
function fragmentComment(text: string): string {
  return JSON.stringify(text).replace(/\*\//g, '*\\/');
}

/**
 * A generated function's name from its cache key: the walk (object or tape, spew or json) and the Go
 * type, `$` first so it never meets a prelude name: `$json_v1_Container`, `$tape_json_sliceOf_v1_EnvVar`.
 */
function functionName(key: string, taken: ReadonlySet<string>): string {
  const base =
    '$' +
    key
      .replace(/\/true$/, '/withoutResources')
      .replace(/\/false$/, '')
      .replace(/\[\]/g, 'sliceOf_')
      .replace(/\*/g, 'ptrTo_')
      .replace(/map\[([^\]]*)\]/g, 'mapOf_$1_to_')
      .replace(/[^A-Za-z0-9_$]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/_$/, '');
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}
