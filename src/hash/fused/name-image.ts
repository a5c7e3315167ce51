/**
 * The fused hasher of 1.31+ (`{"image":…,"name":…}` as go-spew `[]uint8` text): two member reads,
 * the constant text around them taken from the name-image encoder itself.
 */
import type { JsonEscapeMode } from '../../encode/gojson-string.js';
import { writeNameImageJson } from '../../encode/name-image.js';
import { BufferSink } from '../../encode/sink.js';
import { isJsonObject, type FusedFn } from './compile.js';
import { FNV_OFFSET, JSON_STRING, expandJsonBytes, fallback, feed, feedFolded, fold } from './fnv.js';

// eslint-disable-next-line @typescript-eslint/unbound-method -- always invoked with .call(obj, key); captured once for the hot path
const pe = Object.prototype.propertyIsEnumerable;

export function compileNameImage(mode: JsonEscapeMode): FusedFn {
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
  return (c) => {
    if (!isJsonObject(c)) fallback();
    let image = c.image;
    if (image !== undefined && !pe.call(c, 'image')) image = undefined;
    let name = c.name;
    if (name !== undefined && !pe.call(c, 'name')) name = undefined;
    let h = start;
    if (typeof image === 'string') h = jstr(h, image);
    else if (image == null) h = feedFolded(h, empty);
    else fallback();
    h = feedFolded(h, between);
    if (typeof name === 'string') h = jstr(h, name);
    else if (name == null) h = feedFolded(h, empty);
    else fallback();
    return feedFolded(h, close) >>> 0;
  };
}
