/**
 * The fused hasher of 1.31+ (`{"image":…,"name":…}` as go-spew `[]uint8` text): two member reads,
 * the constant text around them taken from the name-image encoder itself. It runs only after the
 * release's whole-container check passed, which tested the container object itself too.
 */
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import { writeNameImageJson } from '../../encode/name-image.js';
import { BufferSink } from '../../encode/sink.js';
import type { FusedFn, FusedTextFn } from './compile.js';
import { FNV_OFFSET, JSON_BYTES, JSON_STRING, expandJsonBytes, fallback, feed, feedFolded, fold } from './fnv.js';
import { utf8Slice, utf8Text } from './utf8-text.js';

// eslint-disable-next-line @typescript-eslint/unbound-method -- always invoked with .call(obj, key); captured once for the hot path
const pe = Object.prototype.propertyIsEnumerable;

export function compileNameImage(mode: JsonEscapeMode): { hash: FusedFn; text: FusedTextFn } {
  // The encoder's output for empty strings is `{"image":"","name":""}`: split around the two `""`.
  const buf = new BufferSink();
  writeNameImageJson(buf, '', '', mode);
  const text = new TextDecoder().decode(buf.bytes());
  const [head, middle, tail] = text.split('""') as [string, string, string];
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  // The state after the constant head is known; the other constant runs are folded (see fnv.ts).
  const start = feed(
    FNV_OFFSET,
    enc(`([]uint8)[${head.charCodeAt(0)}${Array.from(enc(head.slice(1)), (b) => ` ${b}`).join('')}`),
  );
  const between = fold(expandJsonBytes(enc(middle)));
  const close = fold(enc(`${Array.from(enc(tail), (b) => ` ${b}`).join('')}]`));
  const empty = fold(expandJsonBytes(enc('""')));
  const jstr = JSON_STRING[mode];
  const jbytes = JSON_BYTES[mode];

  /** A member read from an object: a string, or null/absent for "" (Go's zero string). */
  const fromValue = (h: number, v: unknown): number => {
    if (typeof v === 'string') return jstr(h, v);
    if (v == null) return feedFolded(h, empty);
    return fallback();
  };
  /** The same from the member's span in the scanned text's bytes (valid JSON: the scan validated all of it). */
  const fromSpan = (h: number, start: number, end: number, escaped: boolean): number => {
    if (start < 0) return feedFolded(h, empty);
    const c = utf8Text.bytes[start];
    if (c !== 0x22) return c === 0x6e ? feedFolded(h, empty) : fallback(); // null, or not a string
    if (escaped) return jstr(h, JSON.parse(utf8Slice(start, end)) as string);
    return jbytes(h, utf8Text.bytes, start + 1, end - 1);
  };

  return {
    hash: (container) => {
      // The release's whole-container check ran first and found it a JSON object (see release-hashers.ts).
      const c = container as Record<string, unknown>;
      let image = c.image;
      if (image !== undefined && !pe.call(c, 'image')) image = undefined;
      let name = c.name;
      if (name !== undefined && !pe.call(c, 'name')) name = undefined;
      const h = feedFolded(fromValue(start, image), between);
      return feedFolded(fromValue(h, name), close) >>> 0;
    },
    text: (sp) => {
      const h = feedFolded(fromSpan(start, sp.imageStart, sp.imageEnd, sp.imageEscaped), between);
      return feedFolded(fromSpan(h, sp.nameStart, sp.nameEnd, sp.nameEscaped), close) >>> 0;
    },
  };
}
