/**
 * One strict pass over container JSON text (its UTF-8 bytes, see utf8-text.ts; an explicit stack, no
 * recursion, no exceptions; it allocates only when its scratch or the tape grows). It tells two kinds
 * of text apart:
 *
 * - {@link TEXT_VALID}: text our own parser (`parseJson`) accepts, with an object root. Enough for
 *   1.31+, which reads only the top-level `name` and `image` (recorded in `spans`), and for the tape
 *   walks, which hash an escaped string by its decoded value and leave escaped quantities and numbers
 *   that are not short integers to the tree.
 * - {@link TEXT_DOUBT}: anything else (invalid JSON, a non-object root, repeated or escaped keys,
 *   a lone surrogate, deep nesting). The strict parser then gives today's result or today's typed
 *   error, so only the success path has to be fast and error wording never comes from here.
 */

import { NOT_CONTAINER_KEYS } from '../../pod/container-shape.js';
import {
  addNode,
  grown,
  openContainer,
  openContainerNode,
  resetTape,
  shrinkTape,
  tape,
  T_ARRAY,
  T_ESCAPED_STRING,
  T_FALSE,
  T_NULL,
  T_NUMBER,
  T_OBJECT,
  T_STRING,
  T_TRUE,
} from './tape.js';
import { loadText, releaseUtf8Text, utf8Text } from './utf8-text.js';

/** See the module comment. */
export const TEXT_DOUBT = 0;
export const TEXT_VALID = 1;

const MAX_DEPTH = 500; // below parseJson's limit (512): deeper text is left to it
const MAX_INT_DIGITS = 15; // every integer of up to 15 digits is exact as a double: the tape keeps its value

/**
 * What the front end's container checks need from the root object, so they need no tree: where the
 * top-level `name` and `image` members are (start and end of the value's bytes, -1 when absent) and
 * whether a member of a Pod, List, workload or pod spec is there ({@link NOT_CONTAINER_KEYS}).
 */
export interface TopLevelSpans {
  nameStart: number;
  nameEnd: number;
  imageStart: number;
  imageEnd: number;
  /** Whether the `name` (`image`) value, when a string, has an escape: then only its decoded value may be hashed. */
  nameEscaped: boolean;
  imageEscaped: boolean;
  notContainerKey: boolean;
}

// Scratch kept between calls (grown on demand): per open container whether it is an object and where
// its keys start in the key list; per key of the open objects its start, length and a cheap hash.
let isObject = new Uint8Array(64);
let keyBase = new Int32Array(64);
// Per open object, a 64-bit filter of its keys' hashes (two words by depth): a key whose bit is clear
// is no repeat, so the pairwise comparison runs only on a hit (objects with many keys made it quadratic).
let keyFilter = new Int32Array(128);
let keyStart = new Int32Array(256);
let keyLen = new Int32Array(256);
let keyHash = new Int32Array(256);

const NAME = 1;
const IMAGE = 2;
const NOT_CONTAINER = 3;

/** {@link NOT_CONTAINER_KEYS} by length, so a key is compared only with names it could be. */
const notContainerByLength: string[][] = [];
for (const k of NOT_CONTAINER_KEYS) (notContainerByLength[k.length] ??= []).push(k);

/**
 * Classifies `text` (see the module comment); with `spans`, records the root's `name` and `image`
 * values; with `record`, fills the {@link tape} (meaningful only when the result is TEXT_VALID).
 */
export function scanContainerText(text: string, spans?: TopLevelSpans, record = false): number {
  if (!loadText(text)) return TEXT_DOUBT;
  const s = utf8Text.bytes;
  const n = utf8Text.n;
  if (record) resetTape();
  if (spans) {
    spans.nameStart = spans.nameEnd = spans.imageStart = spans.imageEnd = -1;
    spans.notContainerKey = false;
  }
  let depth = 0;
  let nKeys = 0;
  let pending = 0; // NAME or IMAGE while that top-level member's value is being read
  let pendingStart = 0;
  let i = ws(s, 0);
  if (s[i] !== 0x7b) return TEXT_DOUBT;
  values: for (;;) {
    // Reading a value, then what follows it, until a member's key is due (`break member`): one
    // place reads keys, so that it is compiled into this loop rather than called.
    member: {
      // A value starts at i (whitespace skipped); as an object member, its key is the last one read.
      const c = s[i]!;
      let node = -1;
      if (record) {
        const k = depth > 0 && isObject[depth] === 1 ? nKeys - 1 : -1;
        node = k < 0 ? addNode(i, depth, -1, 0, 0) : addNode(i, depth, keyStart[k]!, keyLen[k]!, keyHash[k]!);
      }
      if (c === 0x7b || c === 0x5b) {
        if (++depth > MAX_DEPTH) return TEXT_DOUBT;
        if (depth >= isObject.length) grow();
        const obj = c === 0x7b;
        isObject[depth] = obj ? 1 : 0;
        keyBase[depth] = nKeys;
        keyFilter[depth << 1] = keyFilter[(depth << 1) | 1] = 0;
        if (record) {
          tape.kind[node] = obj ? T_OBJECT : T_ARRAY;
          openContainer(node, depth);
        }
        i = ws(s, i + 1);
        if (s[i] === (obj ? 0x7d : 0x5d)) {
          i++;
          depth--; // empty container: a complete value
          if (record) tape.end[node] = i;
        } else if (obj) break member;
        else continue;
      } else if (c === 0x22) {
        i = str(s, i + 1);
        if (i < 0) return TEXT_DOUBT;
        if (record) record1(node, stringEscaped ? T_ESCAPED_STRING : T_STRING, i);
      } else if (c === 0x74) {
        if (!(s[i + 1] === 0x72 && s[i + 2] === 0x75 && s[i + 3] === 0x65)) return TEXT_DOUBT;
        i += 4;
        if (record) record1(node, T_TRUE, i);
      } else if (c === 0x66) {
        if (!(s[i + 1] === 0x61 && s[i + 2] === 0x6c && s[i + 3] === 0x73 && s[i + 4] === 0x65)) return TEXT_DOUBT;
        i += 5;
        if (record) record1(node, T_FALSE, i);
      } else if (c === 0x6e) {
        if (!(s[i + 1] === 0x75 && s[i + 2] === 0x6c && s[i + 3] === 0x6c)) return TEXT_DOUBT;
        i += 4;
        if (record) record1(node, T_NULL, i);
      } else {
        const start = i;
        const end = num(s, i);
        if (end === 0) return TEXT_DOUBT;
        i = end < 0 ? -end : end;
        if (record) {
          record1(node, T_NUMBER, i);
          tape.num[node] = end > 0 ? shortInteger(s, start, i) : NaN;
        }
      }
      // A value ended at i: close containers, or move on to the next member or element.
      for (;;) {
        if (pending !== 0 && depth === 1 && spans) {
          if (pending === NOT_CONTAINER) spans.notContainerKey = true;
          else if (pending === NAME) {
            spans.nameStart = pendingStart;
            spans.nameEnd = i;
            spans.nameEscaped = stringEscaped; // a string value was the last str() read
          } else {
            spans.imageStart = pendingStart;
            spans.imageEnd = i;
            spans.imageEscaped = stringEscaped;
          }
          pending = 0;
        }
        i = ws(s, i);
        if (depth === 0) return i === n ? TEXT_VALID : TEXT_DOUBT;
        const d = s[i];
        if (d === 0x2c) {
          i = ws(s, i + 1);
          if (isObject[depth] === 1) break member;
          continue values;
        }
        if (d !== (isObject[depth] === 1 ? 0x7d : 0x5d)) return TEXT_DOUBT;
        if (record) tape.end[openContainerNode(depth)] = i + 1;
        nKeys = keyBase[depth] ?? 0;
        depth--;
        i++;
      }
    }
    // A member of the object open at `depth` starts at i: its key, then its value.
    i = key(s, i, depth, nKeys);
    if (i < 0) return TEXT_DOUBT;
    if (depth === 1 && spans) {
      pending = keyKind(s, keyStart[nKeys] ?? 0, keyLen[nKeys] ?? 0);
      pendingStart = i;
    }
    nKeys++;
  }
}

/**
 * A key of the object open at `depth`, its colon and the whitespace after it: the position of the
 * value, or -1 (not a key, an escaped key, a repeated key, no colon). Records the key as number `n`.
 */
function key(s: Uint8Array, i: number, depth: number, n: number): number {
  if (s[i] !== 0x22) return -1;
  const start = ++i;
  let h = 0;
  for (;;) {
    // Escaped keys could repeat another key in another spelling: the strict parser decides those
    // (and control characters, and the 0 after the text).
    const c = s[i]!;
    if (PLAIN_IN_STRING[c] === 1) {
      h = (Math.imul(h, 31) + c) | 0;
      i++;
    } else if (c === 0x22) break;
    else return -1;
  }
  const len = i - start;
  const bit = 1 << h; // the low 5 bits pick the bit, the 6th the word
  const word = (depth << 1) | ((h >>> 5) & 1);
  const seen = keyFilter[word]!;
  if ((seen & bit) === 0) keyFilter[word] = seen | bit;
  else if (repeats(s, keyBase[depth] ?? 0, n, start, len, h)) return -1;
  if (n >= keyStart.length) growKeys();
  keyStart[n] = start;
  keyLen[n] = len;
  keyHash[n] = h;
  i = ws(s, i + 1);
  if (s[i] !== 0x3a) return -1;
  return ws(s, i + 1);
}

function keyKind(s: Uint8Array, start: number, len: number): number {
  // Every root key comes here: compare the first byte before the whole key.
  const first = s[start];
  if (len === 4 && first === 0x6e && isKey(s, start, 'name')) return NAME;
  if (len === 5 && first === 0x69 && isKey(s, start, 'image')) return IMAGE;
  const candidates = notContainerByLength[len];
  if (candidates) for (const k of candidates) if (k.charCodeAt(0) === first && isKey(s, start, k)) return NOT_CONTAINER;
  return 0;
}

/** Whether the bytes at `start` spell the ASCII `key` (the caller checked the length and first byte). */
function isKey(s: Uint8Array, start: number, key: string): boolean {
  for (let j = 1; j < key.length; j++) if (s[start + j] !== key.charCodeAt(j)) return false;
  return true;
}

/** Whether keys `from` to `n` (one object's so far) include the one at `start` (its filter bit was set). */
function repeats(s: Uint8Array, from: number, n: number, start: number, len: number, h: number): boolean {
  for (let k = from; k < n; k++)
    if (keyHash[k] === h && keyLen[k] === len && sameBytes(s, keyStart[k]!, start, len)) return true;
  return false;
}

function sameBytes(s: Uint8Array, a: number, b: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (s[a + j] !== s[b + j]) return false;
  return true;
}

// No loop needs a bound: the 0 after the text (see loadText) ends every one of them.
function ws(s: Uint8Array, i: number): number {
  for (;;) {
    const c = s[i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** 1 for the UTF-8 bytes a string holds as they are: not `"`, `\\` or a control character. */
const PLAIN_IN_STRING = new Uint8Array(256).fill(1, 0x20);
PLAIN_IN_STRING[0x22] = PLAIN_IN_STRING[0x5c] = 0;

/** Whether the string {@link str} last read had an escape (its value is then not its text). */
let stringEscaped = false;

/** A scalar node's kind and end. */
function record1(node: number, kind: number, end: number): void {
  tape.kind[node] = kind;
  tape.end[node] = end;
}

/** The value of a short integer's text (`-?digits`, at most 15 digits: exact as a double). */
function shortInteger(s: Uint8Array, start: number, end: number): number {
  const negative = s[start] === 0x2d;
  let v = 0;
  for (let i = negative ? start + 1 : start; i < end; i++) v = v * 10 + (s[i]! - 0x30);
  return negative ? -v : v;
}

/**
 * The rest of a string from just after its opening quote: the position after the closing quote, or
 * -1 when parseJson would refuse it (a control character, a bad escape, the end of the text).
 */
function str(s: Uint8Array, i: number): number {
  stringEscaped = false;
  for (;;) {
    const c = s[i]!;
    if (PLAIN_IN_STRING[c] === 1) i++;
    else if (c === 0x22) return i + 1;
    else if (c === 0x5c) {
      stringEscaped = true;
      i = escape(s, i);
      if (i < 0) return -1;
    } else return -1; // a control character, or the 0 after the text
  }
}

/** The position after the escape at `i`, or -1. Kept out of {@link str}, whose loop stays small. */
function escape(s: Uint8Array, i: number): number {
  const e = s[i + 1];
  if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)
    return i + 2;
  if (e === 0x75 && isHex(s[i + 2]!) && isHex(s[i + 3]!) && isHex(s[i + 4]!) && isHex(s[i + 5]!)) return i + 6;
  return -1;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * A number at i (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`): its end when it is a short
 * integer (up to 15 digits, not -0: its value prints back as its text), minus its end when it is
 * another valid number (the tape walk leaves it to the tree), 0 when invalid.
 */
function num(s: Uint8Array, i: number): number {
  const start = i;
  if (s[i] === 0x2d) i++;
  const first = s[i]!;
  let short = true;
  if (first === 0x30) {
    if (i > start) short = false; // -0
    i++;
  } else if (first >= 0x31 && first <= 0x39) {
    const d = i;
    i++;
    while (isDigit(s[i]!)) i++;
    if (i - d > MAX_INT_DIGITS) short = false;
  } else return 0;
  if (s[i] === 0x2e) {
    short = false;
    i++;
    if (!isDigit(s[i]!)) return 0;
    while (isDigit(s[i]!)) i++;
  }
  const e = s[i];
  if (e === 0x65 || e === 0x45) {
    short = false;
    i++;
    const sign = s[i];
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(s[i]!)) return 0;
    while (isDigit(s[i]!)) i++;
  }
  return short ? i : -i;
}

/** After a text with a very large object: drop the key scratch it grew (and the tape's), see {@link shrinkTape}. */
export function releaseScanScratch(): void {
  releaseUtf8Text();
  if (keyStart.length > KEEP_KEYS) {
    keyStart = new Int32Array(256);
    keyLen = new Int32Array(256);
    keyHash = new Int32Array(256);
  }
  shrinkTape();
}

const KEEP_KEYS = 1 << 14;

function grow(): void {
  isObject = grown(isObject);
  keyBase = grown(keyBase);
  keyFilter = grown(keyFilter);
}

function growKeys(): void {
  keyStart = grown(keyStart);
  keyLen = grown(keyLen);
  keyHash = grown(keyHash);
}
