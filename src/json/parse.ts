/**
 * A strict JSON parser (RFC 8259) that keeps numbers as {@link JsonNumber} source text and builds
 * null-prototype objects, so `__proto__` and `constructor` keys are ordinary data. Errors are
 * typed (`INVALID_JSON`) with the offending line and column.
 */
import { lineColumnOf } from './line-index.js';
import { DecodeError } from '../errors.js';
import { JSON_NUMBER_SYNTAX, JsonNumber } from './number.js';

/**
 * A value {@link parseJson} returns: numbers are {@link JsonNumber}, objects have a null prototype.
 *
 * @example
 * ```ts
 * import { parseJson, JsonNumber, type JsonValue } from 'kubelet-hash';
 *
 * const value: JsonValue = parseJson('[1.50, "x", null]');
 * Array.isArray(value) && value[0] instanceof JsonNumber && value[0].text; // → '1.50'
 * ```
 *
 * @group Hashing
 */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

const escapedMembers = new WeakMap<object, Map<string, string>>();

/**
 * For an object {@link parseJson} returned: the raw text (between the quotes, escapes intact) of
 * its string members that were written with escapes. Go hands `Quantity.UnmarshalJSON` exactly
 * that text, so `"1\u0030"` is no quantity there even though it reads "10".
 */
export function escapedStringMembers(obj: object): ReadonlyMap<string, string> | undefined {
  return escapedMembers.get(obj);
}

/**
 * Nesting beyond this is refused rather than risking a stack overflow on hostile input: the one
 * limit of every manifest reader, JSON and YAML alike (a value inside more enclosing arrays,
 * objects, sequences or mappings than this is refused with `TOO_DEEP`).
 */
export const MAX_JSON_DEPTH = 512;

/** The one `TOO_DEEP` error of the manifest readers; `detail` says where (line and column). */
export function tooDeep(detail: string): DecodeError {
  return new DecodeError('TOO_DEEP', [], `a document nested at most ${MAX_JSON_DEPTH} levels`, detail);
}

const NUMBER_RE = new RegExp(JSON_NUMBER_SYNTAX, 'y');

/**
 * Parses strict JSON (RFC 8259) without losing number spellings. Throws {@link DecodeError}
 * `INVALID_JSON` (with line and column) for bad syntax, for a key repeated in one object (Go would
 * merge repeated objects, clients send the last, the apiserver's strict validation refuses them: no
 * single answer) and for raw unpaired surrogates (text that never came from UTF-8), and
 * `TOO_DEEP` beyond 512 levels.
 *
 * @example
 * ```ts
 * import { parseJson, hashContainer, DecodeError } from 'kubelet-hash';
 *
 * const limits = parseJson('{"cpu": 1E3}') as { cpu: { text: string } };
 * limits.cpu.text; // → '1E3'
 * // A Quantity written as a JSON number keeps its spelling, so pass the container as text:
 * hashContainer('{"name":"a","image":"b","resources":{"limits":{"cpu":1E3}}}', { kubeletVersion: '1.29' }); // → '40495519'
 * try {
 *   parseJson('{"name": "a", "name": "b"}');
 * } catch (e) {
 *   e instanceof DecodeError && e.code; // → 'INVALID_JSON'
 * }
 * ```
 *
 * @group Hashing
 */
export function parseJson(text: string): JsonValue {
  const p = new Parser(text);
  p.skipWs();
  const v = p.value(0);
  p.skipWs();
  if (p.pos < text.length) p.fail('end of input');
  return v;
}

/**
 * One value of a JSON text stream and where it sits in the text (UTF-16 offsets).
 *
 * @example
 * ```ts
 * import { parseJsonStream, type JsonStreamValue } from 'kubelet-hash';
 * const [first]: JsonStreamValue[] = parseJsonStream('  {"a": 1}');
 * [first!.start, first!.end]; // → [2, 10]
 * ```
 *
 * @group Hashing
 */
export interface JsonStreamValue {
  /** The parsed value, as {@link parseJson} returns it. */
  value: JsonValue;
  /** Offset of its first character. */
  start: number;
  /** Offset just past its last character. */
  end: number;
}

/**
 * Parses a stream of JSON values separated by whitespace (NDJSON, or several pretty-printed
 * documents one after another, as kubectl reads them), with the same rules as {@link parseJson}.
 * An empty or all-whitespace text has no values.
 *
 * @example
 * ```ts
 * import { parseJsonStream } from 'kubelet-hash';
 * parseJsonStream('{"a":1}\n{"a":2}\n').map((v) => v.start); // → [0, 8]
 * parseJsonStream('  \n'); // → []
 * ```
 *
 * @group Hashing
 */
export function parseJsonStream(text: string): JsonStreamValue[] {
  const p = new Parser(text);
  const out: JsonStreamValue[] = [];
  p.skipWs();
  while (p.pos < text.length) {
    const start = p.pos;
    const value = p.value(0);
    out.push({ value, start, end: p.pos });
    p.skipWs();
  }
  return out;
}

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(expected: string): never {
    const { line, column: col } = lineColumnOf(this.s, this.pos);
    const found = this.pos < this.s.length ? JSON.stringify(this.s[this.pos]) : 'end of input';
    throw new DecodeError('INVALID_JSON', [], expected, `found ${found} at line ${line}, column ${col}`);
  }

  skipWs(): void {
    const s = this.s;
    let i = this.pos;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.pos = i;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_JSON_DEPTH) {
      const { line, column } = lineColumnOf(this.s, this.pos);
      throw tooDeep(`nested more than ${MAX_JSON_DEPTH} levels at line ${line}, column ${column}`);
    }
    const c = this.s[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        return this.number();
    }
  }

  private literal<T>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.pos)) this.fail('a JSON value');
    this.pos += word.length;
    return v;
  }

  private number(): JsonNumber {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.s);
    if (!m) this.fail('a JSON value');
    this.pos += m[0].length;
    return new JsonNumber(m[0]);
  }

  private object(depth: number): { [key: string]: JsonValue } {
    const out = Object.create(null) as { [key: string]: JsonValue };
    this.pos++;
    this.skipWs();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail('an object key string');
      const keyAt = this.pos;
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.pos = keyAt;
        this.fail(`object keys that appear once (${JSON.stringify(key)} is repeated)`);
      }
      this.skipWs();
      if (this.s[this.pos] !== ':') this.fail("':'");
      this.pos++;
      this.skipWs();
      out[key] = this.value(depth + 1);
      if (this.lastEscapedRaw !== null && typeof out[key] === 'string') {
        // Quantity.UnmarshalJSON parses the raw text between the quotes, escapes intact.
        let raws = escapedMembers.get(out);
        if (!raws) escapedMembers.set(out, (raws = new Map<string, string>()));
        raws.set(key, this.lastEscapedRaw);
      }
      this.skipWs();
      const c = this.s[this.pos++];
      if (c === '}') return out;
      if (c !== ',') {
        this.pos--;
        this.fail("',' or '}'");
      }
      this.skipWs();
    }
  }

  private array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.skipWs();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.skipWs();
      const c = this.s[this.pos++];
      if (c === ']') return out;
      if (c !== ',') {
        this.pos--;
        this.fail("',' or ']'");
      }
      this.skipWs();
    }
  }

  /** The raw text between the quotes of the last string read, when it contained escapes; else null. */
  lastEscapedRaw: string | null = null;

  private string(): string {
    const s = this.s;
    let i = ++this.pos;
    const rawStart = i;
    let escaped = false;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= s.length) {
        this.pos = i;
        this.fail('a closing quote');
      }
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.pos = i;
        this.fail('no raw control characters in a string');
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        // A raw surrogate must be half of a pair: a lone one cannot have come from UTF-8 text.
        const lo = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(lo >= 0xdc00 && lo <= 0xdfff)) {
          this.pos = i;
          this.fail('text that is valid Unicode (found an unpaired surrogate)');
        }
        i += 2;
        continue;
      }
      if (c !== 0x5c) {
        i++;
        continue;
      }
      escaped = true;
      out += s.slice(start, i);
      const e = s[i + 1];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.pos = i;
            this.fail('four hex digits after \\u');
          }
          out += String.fromCharCode(parseInt(hex, 16)); // lone surrogates are kept; the decoder maps them to U+FFFD like Go
          i += 4;
          break;
        }
        default:
          this.pos = i;
          this.fail('a valid escape sequence');
      }
      i += 2;
      start = i;
    }
    out += s.slice(start, i);
    this.lastEscapedRaw = escaped ? s.slice(rawStart, i) : null;
    this.pos = i + 1;
    return out;
  }
}
