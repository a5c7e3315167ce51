/**
 * Go's encoding/json string encoding with HTML escaping on (what json.Marshal does): `"` and `\`
 * backslash-escaped, `\n \r \t` short forms, `< > &` and other control bytes as `\u00XX`
 * (lowercase hex), U+2028/U+2029 as `\u2028`/`\u2029`, everything else as raw UTF-8.
 * Go 1.22 added the short forms `\b` and `\f`; kubelets built with older Go wrote `\u0008`/`\u000c`.
 */
import type { ByteSink } from './sink.js';
import { utf8, writeUtf8Char } from './utf8.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';

type EscapeTable = readonly (Uint8Array | null)[];

/** Go encoding/json's escape of each ASCII character in `mode` (UTF-8 bytes), or null where it is written as itself. */
export function jsonEscapeTable(mode: JsonEscapeMode): EscapeTable {
  return TABLES[mode];
}

function buildTable(mode: JsonEscapeMode): EscapeTable {
  const table: (Uint8Array | null)[] = [];
  for (let c = 0; c < 0x80; c++) {
    let esc: string | null = null;
    if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = '\\\\';
    else if (c === 0x0a) esc = '\\n';
    else if (c === 0x0d) esc = '\\r';
    else if (c === 0x09) esc = '\\t';
    else if (mode === 'go1.22' && c === 0x08) esc = '\\b';
    else if (mode === 'go1.22' && c === 0x0c) esc = '\\f';
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) esc = '\\u00' + c.toString(16).padStart(2, '0');
    table.push(esc === null ? null : utf8(esc));
  }
  return table;
}

const TABLES: Record<JsonEscapeMode, EscapeTable> = {
  'go1.22': buildTable('go1.22'),
  'pre-go1.22': buildTable('pre-go1.22'),
};
const LINE_SEPARATOR = utf8('\\u2028');
const PARAGRAPH_SEPARATOR = utf8('\\u2029');
const QUOTE = 0x22;

/** Writes a well-formed string as a Go JSON string literal, quotes included. */
export function writeGoJsonString(sink: ByteSink, s: string, mode: JsonEscapeMode): void {
  const table = TABLES[mode];
  sink.writeByte(QUOTE);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      const esc = table[c];
      if (esc) sink.writeBytes(esc);
      else sink.writeByte(c);
    } else if (c === 0x2028) {
      sink.writeBytes(LINE_SEPARATOR); // U+2028 breaks JavaScript string literals, so Go escapes it
    } else if (c === 0x2029) {
      sink.writeBytes(PARAGRAPH_SEPARATOR);
    } else {
      i = writeUtf8Char(sink, s, i);
    }
  }
  sink.writeByte(QUOTE);
}
