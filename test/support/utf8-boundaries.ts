/**
 * Characters at the UTF-8 length boundaries (1/2, 2/3 and 3/4 bytes, and the last code point) and
 * their UTF-8 bytes as the UTF-8 standard spells them (not as our encoders write them).
 */
export const UTF8_BOUNDARY_TEXT = '\u007f\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}';

export const UTF8_BOUNDARY_BYTES: readonly number[] = [
  0x7f, // U+007F
  0xc2,
  0x80, // U+0080
  0xdf,
  0xbf, // U+07FF
  0xe0,
  0xa0,
  0x80, // U+0800
  0xef,
  0xbf,
  0xbf, // U+FFFF
  0xf0,
  0x90,
  0x80,
  0x80, // U+10000
  0xf4,
  0x8f,
  0xbf,
  0xbf, // U+10FFFF
];
