/**
 * The raw JSON token `Quantity.UnmarshalJSON` would be handed for a JS value. Go gives the method
 * the token's bytes and Quantity only strips the quotes, so a string is parsed *as written*:
 * escapes stay escapes (`"\t1"` and `"1\u0030"` are invalid there). A JS string no longer shows
 * how it was written: for JSON text we parsed, the parser kept the raw spelling of escaped strings;
 * otherwise we take the spelling JSON.stringify gives it — exact for objects a JS client sends.
 */
import { DecodeError, QuantityError, type JsonPathSegment } from '../errors.js';
import { goStringFromJson } from '../go/strings.js';
import { JsonNumber } from '../json/number.js';
import { QUANTITY_EXPECTED, type QuantityToken } from '../quantity/quantity.js';
import { goTrimSpace } from '../quantity/trim.js';
import { isJsonNumberText } from './input.js';

/** The token, or `null` when the value is no JSON string, number or null (the caller's type error). */
export function quantityTokenOf(json: unknown, path: readonly JsonPathSegment[], raw?: string): QuantityToken | null {
  if (json === null || json === undefined) return { kind: 'null' };
  if (typeof json === 'string') return stringToken(json, path, raw);
  if (json instanceof JsonNumber) {
    if (!isJsonNumberText(json.text)) throw badNumberText(json.text, path);
    return { kind: 'number', text: json.text };
  }
  if (typeof json === 'bigint') return { kind: 'number', text: json.toString() };
  if (typeof json === 'number' && Number.isFinite(json)) {
    // As for int64 fields: a double this large may already differ from the digits the caller wrote.
    if (Number.isInteger(json) && !Number.isSafeInteger(json)) {
      throw new DecodeError(
        'UNSAFE_INTEGER',
        path,
        'a quantity given exactly: a string, a bigint, or the container as JSON text',
        `the JS number ${json} is beyond 2^53 and may have been rounded`,
      );
    }
    return { kind: 'number', text: String(json) }; // String(n) is JSON.stringify(n) for finite n
  }
  return null;
}

/** `raw`: the text as written in JSON text we parsed, when it had escapes (exact, as Go sees it). */
function stringToken(content: string, path: readonly JsonPathSegment[], raw?: string): QuantityToken {
  if (raw !== undefined) return { kind: 'string', text: goStringFromJson(content), raw };
  if (hasNonAsciiSpaceAround(content)) {
    // Go's TrimSpace would strip U+00A0, U+2028, … if they arrive raw, but Go's encoder writes
    // U+2028/U+2029 as \u escapes and Python's writes every non-ASCII character so; escaped, they
    // make the quantity invalid. What the apiserver got depends on the client: refuse to guess.
    throw new QuantityError(
      'INVALID_QUANTITY',
      path,
      QUANTITY_EXPECTED,
      'non-ASCII white space around the value: the apiserver trims it or rejects it depending on how the client escaped it',
    );
  }
  const spelled = JSON.stringify(content).slice(1, -1);
  return { kind: 'string', text: goStringFromJson(content), raw: spelled };
}

/** Whether strings.TrimSpace would remove any non-ASCII character from either end. */
function hasNonAsciiSpaceAround(s: string): boolean {
  const trimmed = goTrimSpace(s);
  if (trimmed.length === s.length) return false;
  // The trimmed text starts with a non-space, so its first occurrence is where trimming stopped.
  const lead = trimmed.length === 0 ? s.length : s.indexOf(trimmed);
  const removed = s.slice(0, lead) + s.slice(lead + trimmed.length);
  return /[\u0080-\uffff]/.test(removed); // any non-ASCII code unit
}

/** A {@link JsonNumber} whose text Go's JSON scanner would never have accepted as a number. */
export function badNumberText(text: string, path: readonly JsonPathSegment[]): DecodeError {
  return new DecodeError(
    'INVALID_JSON',
    path,
    'a JsonNumber holding a JSON number (RFC 8259 syntax)',
    `found ${JSON.stringify(text)}`,
  );
}
