/**
 * Characters at the UTF-8 length boundaries (1/2, 2/3 and 3/4 bytes, and the last code point) and
 * their UTF-8 bytes as the UTF-8 standard spells them (not as our encoders write them).
 */
export const UTF8_BOUNDARY_TEXT = '\u007f\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}';

/** Per character of {@link UTF8_BOUNDARY_TEXT}: U+007F, U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF. */
export const UTF8_BOUNDARY_BYTES: readonly number[] = [
  [0x7f],
  [0xc2, 0x80],
  [0xdf, 0xbf],
  [0xe0, 0xa0, 0x80],
  [0xef, 0xbf, 0xbf],
  [0xf0, 0x90, 0x80, 0x80],
  [0xf4, 0x8f, 0xbf, 0xbf],
].flat();
