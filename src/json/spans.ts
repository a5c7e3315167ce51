/**
 * A JSON scanner that remembers where every value sits in the source text, so a caller can
 * replace one string value's characters and leave every other character of the document as it
 * was (re-serialising would lose the writer's whitespace, key order and escapes).
 *
 * Offsets are UTF-16 code-unit indices into the scanned JS string (what `slice` takes).
 */
import { lineColumnOf } from './line-index.js';
import { RecordError } from '../errors.js';
import type { JsonPathSegment } from '../errors.js';

/** `[start, end)` of a value in the source text; a string's span includes its quotes. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

interface JsonObjectNode extends Span {
  readonly type: 'object';
  readonly members: readonly JsonMember[];
}
interface JsonArrayNode extends Span {
  readonly type: 'array';
  readonly items: readonly JsonNode[];
}
interface JsonStringNode extends Span {
  readonly type: 'string';
  readonly value: string;
}
interface JsonNumberNode extends Span {
  readonly type: 'number';
  readonly raw: string;
}
interface JsonBooleanNode extends Span {
  readonly type: 'boolean';
  readonly value: boolean;
}
interface JsonNullNode extends Span {
  readonly type: 'null';
}
export type JsonNode =
  JsonObjectNode | JsonArrayNode | JsonStringNode | JsonNumberNode | JsonBooleanNode | JsonNullNode;

export interface JsonMember {
  readonly key: string;
  readonly keySpan: Span;
  readonly value: JsonNode;
}

/** Deeper nesting than any real runtime record; stops hostile input before the JS stack does. */
const MAX_DEPTH = 512;

/** Describes an offset as line:column for error messages (1-based, like editors). */
function where(text: string, offset: number): string {
  const { line, column } = lineColumnOf(text, offset);
  return `offset ${offset}, line ${line}, column ${column}`;
}

/** What a check-only scan returns for every value but strings: it builds no tree (a null at no position). */
const CHECKED: JsonNullNode = Object.freeze({ type: 'null', start: -1, end: -1 });

class Scanner {
  pos = 0;
  private readonly path: JsonPathSegment[] = [];

  /** `build` false: check the syntax only (same errors, same paths), keeping nothing. */
  constructor(
    private readonly text: string,
    private readonly basePath: readonly JsonPathSegment[],
    private readonly build = true,
  ) {}

  scanDocument(): JsonNode {
    this.skipWhitespace();
    const node = this.scanValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('end of the document after the top-level value');
    return node;
  }

  private fail(expected: string): never {
    const found = this.pos >= this.text.length ? 'end of text' : JSON.stringify(this.text[this.pos]);
    throw new RecordError(
      'INVALID_RECORD',
      [...this.basePath, ...this.path],
      `well-formed JSON: ${expected}`,
      `found ${found} at ${where(this.text, this.pos)}`,
    );
  }

  skipWhitespace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      // JSON whitespace is exactly space, tab, LF, CR.
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  scanValue(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.fail(`nesting at most ${MAX_DEPTH} levels deep`);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.scanObject(depth);
      case '[':
        return this.scanArray(depth);
      case '"':
        return this.scanString();
      case 't':
        return this.scanLiteral('true', (start, end) => ({ type: 'boolean', value: true, start, end }));
      case 'f':
        return this.scanLiteral('false', (start, end) => ({ type: 'boolean', value: false, start, end }));
      case 'n':
        return this.scanLiteral('null', (start, end) => ({ type: 'null', start, end }));
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.scanNumber();
        return this.fail('a value');
    }
  }

  private scanLiteral(
    word: string,
    node: (start: number, end: number) => JsonBooleanNode | JsonNullNode,
  ): JsonBooleanNode | JsonNullNode {
    const start = this.pos;
    if (!this.text.startsWith(word, start)) this.fail(`the literal ${word}`);
    this.pos += word.length;
    if (!this.build) return CHECKED;
    return node(start, this.pos);
  }

  private scanNumber(): JsonNumberNode | JsonNullNode {
    const start = this.pos;
    const m = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    m.lastIndex = start;
    const found = m.exec(this.text);
    if (!found) this.fail('a number');
    this.pos = start + found[0].length;
    if (!this.build) return CHECKED;
    return { type: 'number', raw: found[0], start, end: this.pos };
  }

  private scanString(): JsonStringNode {
    const start = this.pos;
    const value = decodeString(this.text, start, this.failAt, undefined);
    this.pos = value.end;
    return { type: 'string', value: value.value, start, end: value.end };
  }

  private readonly failAt = (offset: number, expected: string): never => {
    this.pos = offset;
    return this.fail(expected);
  };

  private scanObject(depth: number): JsonObjectNode | JsonNullNode {
    const start = this.pos;
    this.pos++; // '{'
    const members: JsonMember[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { type: 'object', members, start, end: this.pos };
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('a member name in double quotes');
      const key = this.scanString();
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail(`':' after member name ${JSON.stringify(key.value)}`);
      this.pos++;
      this.skipWhitespace();
      this.path.push(key.value);
      const value = this.scanValue(depth + 1);
      this.path.pop();
      if (this.build) members.push({ key: key.value, keySpan: { start: key.start, end: key.end }, value });
      this.skipWhitespace();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return this.build ? { type: 'object', members, start, end: this.pos } : CHECKED;
      }
      this.fail("',' or '}' in an object");
    }
  }

  private scanArray(depth: number): JsonArrayNode | JsonNullNode {
    const start = this.pos;
    this.pos++; // '['
    const items: JsonNode[] = [];
    let count = 0;
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { type: 'array', items, start, end: this.pos };
    }
    for (;;) {
      this.skipWhitespace();
      this.path.push(count++);
      const item = this.scanValue(depth + 1);
      if (this.build) items.push(item);
      this.path.pop();
      this.skipWhitespace();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return this.build ? { type: 'array', items, start, end: this.pos } : CHECKED;
      }
      this.fail("',' or ']' in an array");
    }
  }
}

/** A decoded JSON string and, per decoded code unit, where it came from in the source text. */
export interface DecodedString {
  readonly value: string;
  /** Offset just past the closing quote. */
  readonly end: number;
  /**
   * `sourceOffsets[i]` is where decoded code unit `i` starts in the source (the backslash of an
   * escape); `sourceOffsets[value.length]` is the closing quote. Lets a span found inside the
   * decoded text (a JSON document kept in a string) be mapped back to source offsets.
   */
  readonly sourceOffsets: readonly number[];
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * Decodes the JSON string literal whose opening quote is at `start`. `fail(offset, expected)`
 * must throw; it is called with the offset of the offending character.
 */
export function decodeJsonString(
  text: string,
  start: number,
  fail: (offset: number, expected: string) => never,
): DecodedString {
  const sourceOffsets: number[] = [];
  const { value, end } = decodeString(text, start, fail, sourceOffsets);
  return { value, end, sourceOffsets };
}

/**
 * {@link decodeJsonString} without the offsets unless `offsets` is given. A run without escapes
 * is one slice of the source (a node-wide record is mostly such runs).
 */
function decodeString(
  text: string,
  start: number,
  fail: (offset: number, expected: string) => never,
  offsets: number[] | undefined,
): { value: string; end: number } {
  if (text.charCodeAt(start) !== 0x22) fail(start, 'a string');
  let pos = start + 1;
  let value = '';
  for (;;) {
    // The plain run up to the next quote, backslash or control character.
    const run = pos;
    let c = text.charCodeAt(pos);
    while (c >= 0x20 && c !== 0x22 && c !== 0x5c) c = text.charCodeAt(++pos);
    if (pos > run) {
      value += text.slice(run, pos);
      if (offsets) for (let i = run; i < pos; i++) offsets.push(i);
    }
    if (pos >= text.length) fail(pos, "a closing '\"' for the string");
    if (c === 0x22) {
      offsets?.push(pos);
      return { value, end: pos + 1 };
    }
    if (c < 0x20) fail(pos, 'no raw control character inside a string (escape it)');
    const escStart = pos;
    const e = text[pos + 1];
    if (e === undefined) fail(pos + 1, 'an escape character after \\');
    const short = SHORT_ESCAPES[e];
    if (short !== undefined) {
      value += short;
      offsets?.push(escStart);
      pos += 2;
      continue;
    }
    if (e !== 'u') fail(pos + 1, 'one of " \\ / b f n r t u after \\');
    const hex = text.slice(pos + 2, pos + 6);
    if (!/^[0-9A-Fa-f]{4}$/.test(hex)) fail(pos + 2, 'four hex digits after \\u');
    value += String.fromCharCode(parseInt(hex, 16));
    offsets?.push(escStart);
    pos += 6;
  }
}

/**
 * Scans `text` as one JSON document. Syntax errors throw {@link RecordError} (code
 * `INVALID_RECORD`) whose path is where in the document the error was met, prefixed by
 * `basePath` (used when the document is itself kept inside a string of an outer record).
 */
export function scanJson(text: string, basePath: readonly JsonPathSegment[] = []): JsonNode {
  return new Scanner(text, basePath).scanDocument();
}

/** Checks `text` as one JSON document: the errors of {@link scanJson}, and no tree kept. */
export function checkJson(text: string): void {
  new Scanner(text, [], false).scanDocument();
}

/**
 * Calls `each` with the tree of every element of the top-level array in `text`, one at a time
 * (spans are offsets in `text`), so a large array never has its whole tree in memory. `text` must
 * have passed {@link checkJson} and be an array; returns how many elements it has.
 */
export function forEachArrayElement(text: string, each: (element: JsonNode, index: number) => void): number {
  const s = new Scanner(text, []);
  s.skipWhitespace();
  s.pos++; // '['
  let count = 0;
  for (;;) {
    s.skipWhitespace();
    if (text.charCodeAt(s.pos) === 0x5d) return count; // only for `[]`: a ',' is always followed by a value
    each(s.scanValue(1), count++);
    s.skipWhitespace();
    if (text.charCodeAt(s.pos++) === 0x5d) return count;
  }
}

/** The last member named `key` (JSON.parse and Go's encoding/json both let the last one win). */
export function findMember(node: JsonNode | undefined, key: string): JsonMember | undefined {
  if (node?.type !== 'object') return undefined;
  for (let i = node.members.length - 1; i >= 0; i--) {
    const m = node.members[i];
    if (m !== undefined && m.key === key) return m;
  }
  return undefined;
}

/** Follows object keys and array indices; `undefined` when any step is missing or of the wrong kind. */
export function nodeAt(node: JsonNode | undefined, path: readonly JsonPathSegment[]): JsonNode | undefined {
  let cur = node;
  for (const seg of path) {
    if (cur === undefined) return undefined;
    if (typeof seg === 'number') cur = cur.type === 'array' ? cur.items[seg] : undefined;
    else cur = findMember(cur, seg)?.value;
  }
  return cur;
}

/** The plain JS value of a node (what JSON.parse would give), with `__proto__` kept as an own key. */
export function toPlainValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const m of node.members) {
        const value = toPlainValue(m.value);
        // Assignment makes the same own data member, except for "__proto__", whose setter would set the prototype.
        if (m.key !== '__proto__') out[m.key] = value;
        else Object.defineProperty(out, m.key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return node.items.map(toPlainValue);
    case 'string':
      return node.value;
    case 'number':
      return Number(node.raw);
    case 'boolean':
      return node.value;
    case 'null':
      return null;
  }
}
