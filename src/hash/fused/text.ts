/**
 * A strict pre-scan of container JSON text. It accepts only text that our own parser (`parseJson`)
 * accepts *and* that `JSON.parse` reads into the same values for decoding: every number a short
 * integer (its JS value prints back as its source text), string escapes only in the short forms
 * JSON.stringify also writes (so the raw spelling a Quantity sees is the one it would be given for
 * the parsed string), no raw surrogates, no repeated keys, no deep nesting. Anything else is
 * "not plain" and goes to the strict parser, which gives today's result or today's typed error.
 */

const MAX_DEPTH = 500; // below parseJson's limit: deeper text is left to it
const MAX_INT_DIGITS = 15; // every integer of up to 15 digits is exact as a double

/** Where the top-level `name` and `image` members are (start and end of the value's text), if present. */
export interface TopLevelSpans {
  nameStart: number;
  nameEnd: number;
  imageStart: number;
  imageEnd: number;
}

/**
 * Scans `text`; true when it is plain (see above) and its root is an object. With `spans`, also
 * records where the root's `name` and `image` values are (-1 when absent).
 */
export function scanPlainJson(text: string, spans?: TopLevelSpans): boolean {
  const s = new Scanner(text, spans);
  try {
    s.ws();
    if (text.charCodeAt(s.pos) !== 0x7b) return false;
    s.value(0);
    s.ws();
    return s.pos === text.length;
  } catch (err) {
    if (err === NOT_PLAIN) return false;
    throw err;
  }
}

const NOT_PLAIN = Symbol('not plain JSON');

function notPlain(): never {
  throw NOT_PLAIN;
}

class Scanner {
  pos = 0;
  /** Key spans of the objects being scanned, one flat list; `keyBase` marks where each object's keys start. */
  private readonly keyStarts: number[] = [];
  private readonly keyEnds: number[] = [];

  constructor(
    private readonly s: string,
    private readonly spans: TopLevelSpans | undefined,
  ) {
    if (spans) spans.nameStart = spans.nameEnd = spans.imageStart = spans.imageEnd = -1;
  }

  ws(): void {
    const s = this.s;
    let i = this.pos;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.pos = i;
  }

  value(depth: number): void {
    if (depth > MAX_DEPTH) notPlain();
    const c = this.s.charCodeAt(this.pos);
    if (c === 0x7b) this.object(depth);
    else if (c === 0x5b) this.array(depth);
    else if (c === 0x22) this.string();
    else if (c === 0x74) this.word('true');
    else if (c === 0x66) this.word('false');
    else if (c === 0x6e) this.word('null');
    else this.number();
  }

  private word(w: string): void {
    if (!this.s.startsWith(w, this.pos)) notPlain();
    this.pos += w.length;
  }

  /** `-?(0|[1-9][0-9]{0,14})`, not `-0`, not followed by a fraction, exponent or more digits. */
  private number(): void {
    const s = this.s;
    let i = this.pos;
    if (s.charCodeAt(i) === 0x2d) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) {
      if (i > this.pos) notPlain(); // -0
      i++;
    } else if (first >= 0x31 && first <= 0x39) {
      const start = i;
      i++;
      while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
      if (i - start > MAX_INT_DIGITS) notPlain();
    } else notPlain();
    const next = s.charCodeAt(i);
    if (next === 0x2e || next === 0x65 || next === 0x45 || (next >= 0x30 && next <= 0x39)) notPlain();
    this.pos = i;
  }

  /** A string with only short escapes; returns whether it had any (keys with escapes are not plain). */
  string(): boolean {
    const s = this.s;
    let i = this.pos + 1;
    let escaped = false;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c !== c || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) notPlain(); // end of text, control, surrogate
      if (c === 0x5c) {
        const e = s.charCodeAt(i + 1);
        // \" \\ \b \f \n \r \t: JSON.stringify spells them the same way; \/ and \u it does not.
        if (e !== 0x22 && e !== 0x5c && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) notPlain();
        escaped = true;
        i += 2;
      } else i++;
    }
    this.pos = i + 1;
    return escaped;
  }

  private object(depth: number): void {
    const s = this.s;
    const base = this.keyStarts.length;
    this.pos++;
    this.ws();
    if (s.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return;
    }
    for (;;) {
      if (s.charCodeAt(this.pos) !== 0x22) notPlain();
      const keyStart = this.pos + 1;
      if (this.string()) notPlain();
      const keyEnd = this.pos - 1;
      this.checkUnique(base, keyStart, keyEnd);
      this.ws();
      if (s.charCodeAt(this.pos) !== 0x3a) notPlain();
      this.pos++;
      this.ws();
      const valueStart = this.pos;
      this.value(depth + 1);
      if (depth === 0 && this.spans) this.noteTopLevel(keyStart, keyEnd, valueStart);
      this.ws();
      const c = s.charCodeAt(this.pos++);
      if (c === 0x7d) break;
      if (c !== 0x2c) notPlain();
      this.ws();
    }
    this.keyStarts.length = base;
    this.keyEnds.length = base;
  }

  private checkUnique(base: number, start: number, end: number): void {
    const s = this.s;
    const len = end - start;
    const starts = this.keyStarts;
    const ends = this.keyEnds;
    for (let k = base; k < starts.length; k++) {
      const o = starts[k]!;
      if (ends[k]! - o !== len) continue;
      let same = true;
      for (let j = 0; j < len; j++) {
        if (s.charCodeAt(o + j) !== s.charCodeAt(start + j)) {
          same = false;
          break;
        }
      }
      if (same) notPlain(); // repeated key: parseJson refuses it
    }
    starts.push(start);
    ends.push(end);
  }

  private noteTopLevel(keyStart: number, keyEnd: number, valueStart: number): void {
    const spans = this.spans!;
    const len = keyEnd - keyStart;
    if (len === 4 && this.s.startsWith('name', keyStart)) {
      spans.nameStart = valueStart;
      spans.nameEnd = this.pos;
    } else if (len === 5 && this.s.startsWith('image', keyStart)) {
      spans.imageStart = valueStart;
      spans.imageEnd = this.pos;
    }
  }

  private array(depth: number): void {
    const s = this.s;
    this.pos++;
    this.ws();
    if (s.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      this.value(depth + 1);
      this.ws();
      const c = s.charCodeAt(this.pos++);
      if (c === 0x5d) return;
      if (c !== 0x2c) notPlain();
      this.ws();
    }
  }
}
