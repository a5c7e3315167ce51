/** UTF-8 helpers shared by the encoders. Strings in the Go value tree are well-formed UTF-16. */
import type { ByteSink } from './sink.js';

const encoder = new TextEncoder();

/** The UTF-8 bytes of a constant fragment, computed once at compile time. */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/**
 * Writes the character starting at UTF-16 index `i` of a well-formed string as UTF-8 and returns
 * the index of its last code unit (`i + 1` for a surrogate pair). The one UTF-8 writer of the
 * encoders: go-spew writes Go strings raw, encoding/json writes what it does not escape raw.
 */
export function writeUtf8Char(sink: ByteSink, s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) {
    sink.writeByte(c); // 1 byte
  } else if (c < 0x800) {
    sink.writeByte(0xc0 | (c >> 6)); // 2 bytes
    sink.writeByte(0x80 | (c & 0x3f));
  } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const cp = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(i + 1) - 0xdc00); // 4 bytes (surrogate pair)
    sink.writeByte(0xf0 | (cp >> 18));
    sink.writeByte(0x80 | ((cp >> 12) & 0x3f));
    sink.writeByte(0x80 | ((cp >> 6) & 0x3f));
    sink.writeByte(0x80 | (cp & 0x3f));
    return i + 1;
  } else {
    sink.writeByte(0xe0 | (c >> 12)); // 3 bytes
    sink.writeByte(0x80 | ((c >> 6) & 0x3f));
    sink.writeByte(0x80 | (c & 0x3f));
  }
  return i;
}

/** Writes a well-formed string as UTF-8 (go-spew writes Go strings raw, byte for byte). */
export function writeUtf8(sink: ByteSink, s: string): void {
  for (let i = 0; i < s.length; i++) i = writeUtf8Char(sink, s, i);
}
