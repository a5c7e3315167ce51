/**
 * FNV-1a 32 with the state in a local: every helper takes the running state `h` and returns it, so
 * the fused hashers never go through a sink object. Also the byte tables of the JSON eras, whose
 * kubelets hash go-spew's `([]uint8)[…]` text: each JSON byte after the first costs a space and its
 * decimal digits, looked up in 256-entry tables instead of formatted.
 */
import { jsonEscapeTable } from '../../encode/gojson-string.js';
import type { JsonEscapeMode } from '../../models/json-escapes.js';

export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/**
 * Thrown by a fused hasher when the input needs anything the value tree handles (an error to
 * report, a bigint, a JsonNumber, a lone surrogate): the caller then runs the decode→encode path.
 */
export const FALLBACK: unique symbol = Symbol('kubelet-hash fused fallback');

export function fallback(): never {
  // A symbol, not an Error: the hand-over is ordinary control flow and must not pay for a stack trace.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw FALLBACK;
}

/**
 * Feeds bytes `from` to `to` (all by default): constant fragments, and go-spew's raw strings straight
 * from the scanned text's UTF-8 bytes.
 */
export function feed(h: number, bytes: Uint8Array, from = 0, to = bytes.length): number {
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h;
}

/*
 * Folding constant bytes into one step. XOR with a byte changes only the low 8 bits, by an amount
 * e = ((h & 255) ^ c) - (h & 255) that depends only on those bits: h ^ c = h + e (mod 2^32). So one
 * FNV-1a step is h·P + e·P, and the low 8 bits of the result again depend only on the low 8 bits of
 * h. By induction, n constant bytes take h to h·P^n + T[h & 255] (mod 2^32), with T a 256-entry
 * table of the fragment. Same result as n steps, for the cost of one multiply, one load, one add.
 */

/** P^n mod 2^32: the multiplier of an n-byte fragment's folded step. */
export function primePower(n: number): number {
  let m = 1;
  for (let i = 0; i < n; i++) m = Math.imul(m, FNV_PRIME);
  return m;
}

/** Writes the folded table of `bytes` (see above) into `out` at `offset` (256 entries). */
export function writeFoldTable(bytes: Uint8Array, out: Int32Array, offset: number): void {
  const m = primePower(bytes.length);
  for (let x = 0; x < 256; x++) out[offset + x] = (feed(x, bytes) - Math.imul(x, m)) | 0;
}

/** A constant fragment folded into one step: `h·m + t[h & 255]` is `feed(h, bytes)`. */
export interface Folded {
  readonly m: number;
  readonly t: Int32Array;
}

export function fold(bytes: Uint8Array): Folded {
  const t = new Int32Array(256);
  writeFoldTable(bytes, t, 0);
  return { m: primePower(bytes.length), t };
}

/** Feeds a folded fragment. */
export function feedFolded(h: number, f: Folded): number {
  return (Math.imul(h, f.m) + f.t[h & 255]!) | 0;
}

// Decimal digits of 0..255 for go-spew's []uint8 rendering: first, second, third digit (0 = none).
const D1 = new Uint8Array(256);
const D2 = new Uint8Array(256);
const D3 = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const s = String(b);
  D1[b] = s.charCodeAt(0);
  D2[b] = s.length > 1 ? s.charCodeAt(1) : 0;
  D3[b] = s.length > 2 ? s.charCodeAt(2) : 0;
}

/** One JSON byte as go-spew prints a non-first `[]uint8` element: a space, then its decimal digits. */
export function jsonByte(h: number, b: number): number {
  h = Math.imul(h ^ 0x20, FNV_PRIME);
  h = Math.imul(h ^ D1[b]!, FNV_PRIME);
  if (b >= 10) {
    h = Math.imul(h ^ D2[b]!, FNV_PRIME);
    if (b >= 100) h = Math.imul(h ^ D3[b]!, FNV_PRIME);
  }
  return h;
}

/** The spew `[]uint8` text of JSON bytes that follow at least one other byte (each gets its space). */
export function expandJsonBytes(bytes: Uint8Array): Uint8Array {
  return new TextEncoder().encode(Array.from(bytes, (b) => ` ${b}`).join(''));
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A Go string as go-spew writes it: raw UTF-8. A lone surrogate (U+FFFD in Go) falls back. */
export function spewString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) h = Math.imul(h ^ c, FNV_PRIME);
    else if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV_PRIME);
    } else if (c < 0xd800 || c > 0xdfff) {
      h = Math.imul(h ^ (0xe0 | (c >> 12)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV_PRIME);
    } else {
      const lo = s.charCodeAt(i + 1);
      if (c > 0xdbff || !(lo >= 0xdc00 && lo <= 0xdfff)) fallback();
      const cp = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
      i++;
      h = Math.imul(h ^ (0xf0 | (cp >> 18)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((cp >> 12) & 0x3f)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((cp >> 6) & 0x3f)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | (cp & 0x3f)), FNV_PRIME);
    }
  }
  return h;
}

/** A safe integer in base 10, as go-spew and encoding/json both write it (-0 is 0). */
export function spewDecimal(h: number, v: number): number {
  const s = String(v);
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/** The same digits as JSON bytes in the spew `[]uint8` form. */
export function jsonDecimal(h: number, v: number): number {
  const s = String(v);
  for (let i = 0; i < s.length; i++) h = jsonByte(h, s.charCodeAt(i));
  return h;
}

/** Bytes that need no escaping (a number's digits) as JSON bytes in the spew `[]uint8` form. */
export function jsonRaw(h: number, b: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) h = jsonByte(h, b[i]!);
  return h;
}

/** Per Go toolchain: encoding/json's escape of each ASCII character, already in spew `[]uint8` form. */
const ESCAPES: Record<JsonEscapeMode, readonly (Uint8Array | null)[]> = {
  'go1.22': jsonEscapeTable('go1.22').map((esc) => esc && expandJsonBytes(esc)),
  'pre-go1.22': jsonEscapeTable('pre-go1.22').map((esc) => esc && expandJsonBytes(esc)),
};
const LINE_SEPARATOR = expandJsonBytes(utf8('\\u2028'));
const PARAGRAPH_SEPARATOR = expandJsonBytes(utf8('\\u2029'));

/** A JSON string writer for one toolchain: quotes, escapes and UTF-8, straight into FNV in spew form. */
export type JsonStringWriter = (h: number, s: string) => number;

function makeJsonString(mode: JsonEscapeMode): JsonStringWriter {
  const table = ESCAPES[mode];
  return (h, s) => {
    h = jsonByte(h, 0x22);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        const esc = table[c];
        if (esc === null) h = jsonByte(h, c);
        else h = feed(h, esc!);
      } else if (c < 0x800) {
        h = jsonByte(h, 0xc0 | (c >> 6));
        h = jsonByte(h, 0x80 | (c & 0x3f));
      } else if (c === 0x2028) h = feed(h, LINE_SEPARATOR);
      else if (c === 0x2029) h = feed(h, PARAGRAPH_SEPARATOR);
      else if (c < 0xd800 || c > 0xdfff) {
        h = jsonByte(h, 0xe0 | (c >> 12));
        h = jsonByte(h, 0x80 | ((c >> 6) & 0x3f));
        h = jsonByte(h, 0x80 | (c & 0x3f));
      } else {
        const lo = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(lo >= 0xdc00 && lo <= 0xdfff)) fallback();
        const cp = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        i++;
        h = jsonByte(h, 0xf0 | (cp >> 18));
        h = jsonByte(h, 0x80 | ((cp >> 12) & 0x3f));
        h = jsonByte(h, 0x80 | ((cp >> 6) & 0x3f));
        h = jsonByte(h, 0x80 | (cp & 0x3f));
      }
    }
    return jsonByte(h, 0x22);
  };
}

/** A JSON string writer over valid UTF-8 bytes `from` to `to` of `b` (text input hashes its spans in place). */
export type JsonBytesWriter = (h: number, b: Uint8Array, from: number, to: number) => number;

function makeJsonBytes(mode: JsonEscapeMode): JsonBytesWriter {
  const table = ESCAPES[mode];
  return (h, b, from, to) => {
    h = jsonByte(h, 0x22);
    for (let i = from; i < to; i++) {
      const c = b[i]!;
      if (c < 0x80) {
        const esc = table[c];
        if (esc === null) h = jsonByte(h, c);
        else h = feed(h, esc!);
      } else if (c === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) {
        // U+2028 and U+2029, which encoding/json escapes; every other byte of valid UTF-8 goes as it is.
        h = feed(h, b[i + 2] === 0xa8 ? LINE_SEPARATOR : PARAGRAPH_SEPARATOR);
        i += 2;
      } else h = jsonByte(h, c);
    }
    return jsonByte(h, 0x22);
  };
}

export const JSON_BYTES: Record<JsonEscapeMode, JsonBytesWriter> = {
  'go1.22': makeJsonBytes('go1.22'),
  'pre-go1.22': makeJsonBytes('pre-go1.22'),
};

export const JSON_STRING: Record<JsonEscapeMode, JsonStringWriter> = {
  'go1.22': makeJsonString('go1.22'),
  'pre-go1.22': makeJsonString('pre-go1.22'),
};
