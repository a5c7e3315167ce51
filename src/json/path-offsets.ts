/**
 * Where the value at a JSON path starts in a document's text, found by skipping over the text
 * (no tree is built). The element offsets of every array walked are kept, so looking up
 * `items[i].spec.containers[j]` for every container of a 50 MB PodList reads each pod once:
 * linear time, and memory of one number per array element walked.
 */
import type { JsonPathSegment } from '../errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** The offset just after the string starting at `i` (a quote). */
function skipString(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return i;
}

/** The offset just after the value starting at `i`. */
function skipValue(s: string, i: number): number {
  let depth = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(s, i);
      if (depth === 0) return i;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      i++;
      if (depth <= 0) return i;
    } else if (depth === 0) {
      // A number or literal: up to the next delimiter.
      while (i < s.length && !/[\s,\]}]/.test(s.charAt(i))) i++;
      return i;
    } else i++;
  }
  return i;
}

/** The key of the string at `i`, decoded only when it has escapes. */
function readKey(s: string, i: number): { key: string; end: number } {
  const end = skipString(s, i);
  const raw = s.slice(i + 1, end - 1);
  return { key: raw.includes('\\') ? (JSON.parse(s.slice(i, end)) as string) : raw, end };
}

/** Offsets of values inside one JSON document of a text. */
export class PathOffsets {
  /** Per array (by path), the offsets of the elements found so far. */
  private readonly elements = new Map<string, number[]>();

  constructor(
    private readonly text: string,
    private readonly start: number,
  ) {}

  /** The offset of the value at the longest prefix of `path` that exists. */
  offsetOf(path: readonly JsonPathSegment[]): number {
    const s = this.text;
    let pos = skipWs(s, this.start);
    let key = '';
    for (const seg of path) {
      const next = typeof seg === 'number' ? this.element(pos, key, seg) : this.member(pos, seg);
      if (next === undefined) return pos;
      pos = next;
      key += typeof seg === 'number' ? `[${seg}]` : `.${JSON.stringify(seg)}`;
    }
    return pos;
  }

  private member(pos: number, name: string): number | undefined {
    const s = this.text;
    if (s.charCodeAt(pos) !== 0x7b) return undefined;
    let i = skipWs(s, pos + 1);
    while (s.charCodeAt(i) === QUOTE) {
      const { key, end } = readKey(s, i);
      i = skipWs(s, end);
      if (s.charCodeAt(i) !== 0x3a) return undefined;
      const valueAt = skipWs(s, i + 1);
      if (key === name) return valueAt;
      i = skipWs(s, skipValue(s, valueAt));
      if (s.charCodeAt(i) !== 0x2c) return undefined;
      i = skipWs(s, i + 1);
    }
    return undefined;
  }

  private element(pos: number, key: string, index: number): number | undefined {
    const s = this.text;
    if (s.charCodeAt(pos) !== 0x5b) return undefined;
    let known = this.elements.get(key);
    if (!known) {
      known = [];
      const first = skipWs(s, pos + 1);
      if (s.charCodeAt(first) !== 0x5d) known.push(first);
      this.elements.set(key, known);
    }
    while (known.length <= index) {
      const last = known[known.length - 1];
      if (last === undefined) return undefined;
      const i = skipWs(s, skipValue(s, last));
      if (s.charCodeAt(i) !== 0x2c) return undefined;
      known.push(skipWs(s, i + 1));
    }
    return known[index];
  }
}
