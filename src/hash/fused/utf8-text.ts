/**
 * The UTF-8 bytes of the text being hashed, in scratch kept between calls. The scanner and the tape
 * walks read these instead of the string: an element of a Uint8Array costs about a third of a
 * `charCodeAt` (which dispatches on the string's representation on every call), and UTF-8 is what
 * FNV consumes and Go orders map keys by. Positions on the tape and in the spans are byte offsets.
 */

/** The bytes of the last {@link loadText}: `n` bytes, then a 0 byte (see there); `ascii` when bytes are characters. */
export const utf8Text = { bytes: new Uint8Array(1024), n: 0, ascii: true, text: '' };

const encoder = new TextEncoder();

/** A scratch buffer this large is dropped after its text (see {@link releaseUtf8Text}). */
const KEEP_BYTES = 1 << 20;

/**
 * Encodes `text` into {@link utf8Text}, followed by a 0 byte: JSON allows no raw control character
 * anywhere, so a scanner meeting it stops there and never reads stale bytes beyond it. Returns false,
 * with nothing loaded, for text with a lone surrogate (the encoder would silently make it U+FFFD;
 * the strict parser refuses it).
 */
export function loadText(text: string): boolean {
  if (!text.isWellFormed()) return false; // Node 20 has it (package.json asks for >=20.19)
  // Each UTF-16 unit is at most 3 bytes; for a long text, count exactly instead of reserving 3×.
  const room = text.length < 1 << 16 ? text.length * 3 + 1 : Buffer.byteLength(text) + 1;
  if (room > utf8Text.bytes.length) utf8Text.bytes = new Uint8Array(Math.max(room, utf8Text.bytes.length * 2));
  const n = encoder.encodeInto(text, utf8Text.bytes).written;
  utf8Text.bytes[n] = 0;
  utf8Text.n = n;
  utf8Text.ascii = n === text.length;
  utf8Text.text = text;
  return true;
}

/** The text of bytes `start` to `end` (a value's or key's span) as a string. */
export function utf8Slice(start: number, end: number): string {
  const { bytes, ascii, text } = utf8Text;
  return ascii ? text.slice(start, end) : Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8', start, end);
}

/** After a very large text: drop the buffer it grew and the text it holds on to. */
export function releaseUtf8Text(): void {
  if (utf8Text.bytes.length > KEEP_BYTES) utf8Text.bytes = new Uint8Array(1024);
  utf8Text.text = '';
}
