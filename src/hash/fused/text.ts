/**
 * One strict pass over container JSON text (char codes, an explicit stack, no recursion, no
 * exceptions; it allocates only when its scratch or the tape grows). It tells three kinds of text apart:
 *
 * - {@link TEXT_FAITHFUL}: text our own parser (`parseJson`) accepts *and* `JSON.parse` reads into
 *   the same values for decoding: every number a short integer (its JS value prints back as its
 *   source text), string escapes only in the short forms JSON.stringify also writes (so the raw
 *   spelling a Quantity sees is the one it would be given for the parsed string), no raw surrogates,
 *   no repeated keys. Such text may be read with `JSON.parse`.
 * - {@link TEXT_VALID}: text `parseJson` accepts with an object root, but not faithful (any number
 *   spelling, `\/` and `\u` escapes, paired raw surrogates). Enough for 1.31+, which reads only the
 *   top-level `name` and `image` (recorded in `spans`), and for the tape walks, which hash an escaped
 *   string by its decoded value and leave escaped quantities and other number spellings to the tree.
 * - {@link TEXT_DOUBT}: anything else (invalid JSON, a non-object root, repeated or escaped keys,
 *   deep nesting). The strict parser then gives today's result or today's typed error, so only the
 *   success path has to be fast and error wording never comes from here.
 */

import { NOT_CONTAINER_KEYS } from '../../pod/container-shape.js';
import {
  addNode,
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

/** See the module comment. */
export const TEXT_DOUBT = 0;
export const TEXT_VALID = 1;
export const TEXT_FAITHFUL = 2;

const MAX_DEPTH = 500; // below parseJson's limit (512): deeper text is left to it
const MAX_INT_DIGITS = 15; // every integer of up to 15 digits is exact as a double

/**
 * What the front end's container checks need from the root object, so they need no tree: where the
 * top-level `name` and `image` members are (start and end of the value's text, -1 when absent) and
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
 * values; with `record`, fills the {@link tape} (meaningful only when the result is TEXT_FAITHFUL).
 */
export function scanContainerText(s: string, spans?: TopLevelSpans, record = false): number {
  if (record) resetTape();
  if (spans) {
    spans.nameStart = spans.nameEnd = spans.imageStart = spans.imageEnd = -1;
    spans.notContainerKey = false;
  }
  let faithful = true;
  let depth = 0;
  let nKeys = 0;
  let pending = 0; // NAME or IMAGE while that top-level member's value is being read
  let pendingStart = 0;
  let i = ws(s, 0);
  if (s.charCodeAt(i) !== 0x7b) return TEXT_DOUBT;
  for (;;) {
    // A value starts at i (whitespace skipped); as an object member, its key is the last one read.
    const c = s.charCodeAt(i);
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
      if (record) {
        tape.kind[node] = obj ? T_OBJECT : T_ARRAY;
        openContainer(node, depth);
      }
      i = ws(s, i + 1);
      const close = s.charCodeAt(i);
      if (close === (obj ? 0x7d : 0x5d)) {
        i++;
        depth--; // empty container: a complete value
        if (record) tape.end[node] = i;
      } else if (obj) {
        i = key(s, i, depth, nKeys);
        if (i < 0) return TEXT_DOUBT;
        if (depth === 1 && spans) {
          pending = keyKind(s, keyStart[nKeys] ?? 0, keyLen[nKeys] ?? 0);
          pendingStart = i;
        }
        nKeys++;
        continue;
      } else continue;
    } else if (c === 0x22) {
      const end = str(s, i + 1);
      if (end < 0) {
        if (end === NOT_FAITHFUL_STOP) return TEXT_DOUBT;
        faithful = false;
        i = ~end;
      } else i = end;
      if (record) record1(node, stringEscaped ? T_ESCAPED_STRING : T_STRING, i);
    } else if (c === 0x74) {
      if (!s.startsWith('true', i)) return TEXT_DOUBT;
      i += 4;
      if (record) record1(node, T_TRUE, i);
    } else if (c === 0x66) {
      if (!s.startsWith('false', i)) return TEXT_DOUBT;
      i += 5;
      if (record) record1(node, T_FALSE, i);
    } else if (c === 0x6e) {
      if (!s.startsWith('null', i)) return TEXT_DOUBT;
      i += 4;
      if (record) record1(node, T_NULL, i);
    } else {
      const start = i;
      const end = num(s, i);
      if (end === 0) return TEXT_DOUBT;
      if (end < 0) {
        faithful = false;
        i = -end;
      } else i = end;
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
      if (depth === 0) return i === s.length ? (faithful ? TEXT_FAITHFUL : TEXT_VALID) : TEXT_DOUBT;
      const d = s.charCodeAt(i);
      if (d === 0x2c) {
        i = ws(s, i + 1);
        if (isObject[depth] === 1) {
          i = key(s, i, depth, nKeys);
          if (i < 0) return TEXT_DOUBT;
          if (depth === 1 && spans) {
            pending = keyKind(s, keyStart[nKeys] ?? 0, keyLen[nKeys] ?? 0);
            pendingStart = i;
          }
          nKeys++;
        }
        break;
      }
      if (d !== (isObject[depth] === 1 ? 0x7d : 0x5d)) return TEXT_DOUBT;
      if (record) tape.end[openContainerNode(depth)] = i + 1;
      nKeys = keyBase[depth] ?? 0;
      depth--;
      i++;
    }
  }
}

/**
 * A key of the object open at `depth`, its colon and the whitespace after it: the position of the
 * value, or -1 (not a key, an escaped key, a repeated key, no colon). Records the key as number `n`.
 */
function key(s: string, i: number, depth: number, n: number): number {
  if (s.charCodeAt(i) !== 0x22) return -1;
  const start = ++i;
  let h = 0;
  const end = s.length;
  for (;;) {
    // Escaped keys could repeat another key in another spelling, and surrogates need pairing: the
    // strict parser decides those (so does it for control characters and the end of the text).
    if (i >= end) return -1;
    const c = s.charCodeAt(i);
    if (PLAIN_IN_STRING[c] === 1) {
      h = (Math.imul(h, 31) + c) | 0;
      i++;
    } else if (c === 0x22) break;
    else return -1;
  }
  const len = i - start;
  for (let k = keyBase[depth] ?? 0; k < n; k++) {
    if (keyHash[k] === h && keyLen[k] === len && sameText(s, keyStart[k] ?? 0, start, len)) return -1;
  }
  if (n >= keyStart.length) growKeys();
  keyStart[n] = start;
  keyLen[n] = len;
  keyHash[n] = h;
  i = ws(s, i + 1);
  if (s.charCodeAt(i) !== 0x3a) return -1;
  return ws(s, i + 1);
}

function keyKind(s: string, start: number, len: number): number {
  // Every root key comes here: compare the first character before calling startsWith.
  const first = s.charCodeAt(start);
  if (len === 4 && first === 0x6e && s.startsWith('name', start)) return NAME;
  if (len === 5 && first === 0x69 && s.startsWith('image', start)) return IMAGE;
  const candidates = notContainerByLength[len];
  if (candidates)
    for (const k of candidates) if (k.charCodeAt(0) === first && s.startsWith(k, start)) return NOT_CONTAINER;
  return 0;
}

function sameText(s: string, a: number, b: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (s.charCodeAt(a + j) !== s.charCodeAt(b + j)) return false;
  return true;
}

// The loops compare against the length instead of letting charCodeAt run into NaN past the end: a
// bounded loop keeps the character an integer, and measured about twice as fast.
function ws(s: string, i: number): number {
  const end = s.length;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
  return i;
}

/** 1 for the UTF-16 code units a string holds as they are: not `"`, `\\`, a control character or a surrogate. */
const PLAIN_IN_STRING = new Uint8Array(0x10000).fill(1, 0x20).fill(0, 0xd800, 0xe000);
PLAIN_IN_STRING[0x22] = PLAIN_IN_STRING[0x5c] = 0;

const NOT_FAITHFUL_STOP = -0x7fffffff;

/** Whether the string {@link str} last read had an escape (its value is then not its text). */
let stringEscaped = false;

/** A scalar node's kind and end. */
function record1(node: number, kind: number, end: number): void {
  tape.kind[node] = kind;
  tape.end[node] = end;
}

/** The value of a faithful integer's text (`-?digits`, at most 15 digits: exact as a double). */
function shortInteger(s: string, start: number, end: number): number {
  const negative = s.charCodeAt(start) === 0x2d;
  let v = 0;
  for (let i = negative ? start + 1 : start; i < end; i++) v = v * 10 + (s.charCodeAt(i) - 0x30);
  return negative ? -v : v;
}

/**
 * The rest of a string from just after its opening quote: the position after the closing quote;
 * `~end` when the string is valid but not faithful (`\/`, `\u`, a surrogate pair); or
 * {@link NOT_FAITHFUL_STOP} when parseJson would refuse it (or might: lone surrogates, end of text).
 */
function str(s: string, i: number): number {
  let faithful = true;
  stringEscaped = false;
  const end = s.length;
  while (i < end) {
    const c = s.charCodeAt(i);
    // The common case first: printable, no quote, no backslash, no surrogate.
    if (PLAIN_IN_STRING[c] === 1) {
      i++;
      continue;
    }
    if (c === 0x22) return faithful ? i + 1 : ~(i + 1);
    if (c === 0x5c) {
      stringEscaped = true;
      const e = s.charCodeAt(i + 1);
      // \" \\ \b \f \n \r \t: JSON.stringify spells them the same way; \/ and \u it does not.
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
      else if (e === 0x2f) {
        faithful = false;
        i += 2;
      } else if (
        e === 0x75 &&
        isHex(s.charCodeAt(i + 2)) &&
        isHex(s.charCodeAt(i + 3)) &&
        isHex(s.charCodeAt(i + 4)) &&
        isHex(s.charCodeAt(i + 5))
      ) {
        faithful = false;
        i += 6;
      } else return NOT_FAITHFUL_STOP;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const lo = s.charCodeAt(i + 1);
      if (!(lo >= 0xdc00 && lo <= 0xdfff)) return NOT_FAITHFUL_STOP; // unpaired: parseJson refuses
      faithful = false;
      i += 2;
    } else return NOT_FAITHFUL_STOP; // control character, lone low surrogate
  }
  return NOT_FAITHFUL_STOP; // the text ended inside the string
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * A number at i (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`): its end when it is a faithful
 * short integer (up to 15 digits, not -0), minus its end when valid but not faithful, 0 when invalid.
 */
function num(s: string, i: number): number {
  const start = i;
  if (s.charCodeAt(i) === 0x2d) i++;
  const first = s.charCodeAt(i);
  let faithful = true;
  if (first === 0x30) {
    if (i > start) faithful = false; // -0
    i++;
  } else if (first >= 0x31 && first <= 0x39) {
    const d = i;
    i++;
    while (isDigit(s.charCodeAt(i))) i++;
    if (i - d > MAX_INT_DIGITS) faithful = false;
  } else return 0;
  if (s.charCodeAt(i) === 0x2e) {
    faithful = false;
    i++;
    if (!isDigit(s.charCodeAt(i))) return 0;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    faithful = false;
    i++;
    const sign = s.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(s.charCodeAt(i))) return 0;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  return faithful ? i : -i;
}

/** After a text with a very large object: drop the key scratch it grew (and the tape's), see {@link shrinkTape}. */
export function releaseScanScratch(): void {
  if (keyStart.length > KEEP_KEYS) {
    keyStart = new Int32Array(256);
    keyLen = new Int32Array(256);
    keyHash = new Int32Array(256);
  }
  shrinkTape();
}

const KEEP_KEYS = 1 << 14;

function grow(): void {
  const o = new Uint8Array(isObject.length * 2);
  o.set(isObject);
  isObject = o;
  const b = new Int32Array(keyBase.length * 2);
  b.set(keyBase);
  keyBase = b;
}

function growKeys(): void {
  const s = new Int32Array(keyStart.length * 2);
  s.set(keyStart);
  keyStart = s;
  const l = new Int32Array(keyLen.length * 2);
  l.set(keyLen);
  keyLen = l;
  const h = new Int32Array(keyHash.length * 2);
  h.set(keyHash);
  keyHash = h;
}
