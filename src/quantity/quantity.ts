/**
 * `resource.Quantity` exactly as k8s.io/apimachinery (1.8–1.30) holds it: parsing, the cached
 * string, the canonical form, and the JSON round trip the apiserver puts every quantity through.
 */
import { QuantityError, type JsonPathSegment } from '../errors.js';
import type { QuantityValue } from './types.js';
import { ERR_FORMAT_WRONG, QuantityParseFailure, parseQuantityText } from './parse.js';
import { formatWrongReason } from './scan.js';
import { DecimalShiftTooLarge } from './dec.js';
import { canonicalString } from './canonical.js';
import { goTrimSpace } from './trim.js';

export type { BigIntValue, InfDec, QuantityFormat, QuantityValue } from './types.js';

/** What a QuantityError says was expected. */
export const QUANTITY_EXPECTED = 'a quantity like "500m" or "1Gi"';

/** A JSON token as `Quantity.UnmarshalJSON` receives it. */
export type QuantityToken =
  | { kind: 'null' }
  | {
      kind: 'string' | 'number';
      /** A string's unescaped content, or a number's exact source text. */
      text: string;
      /**
       * A string's source text between the quotes, escapes intact. encoding/json hands
       * UnmarshalJSON the raw token and Quantity only strips the quotes, so Go parses this text:
       * `"1\u0030"` is invalid there although its content is `10`. Pass it when known.
       */
      raw?: string;
    };

/** Go `ParseQuantity(text)`; throws {@link QuantityError} where Go returns an error. */
export function parseQuantity(text: string, path: readonly JsonPathSegment[] = []): QuantityValue {
  try {
    return parseQuantityText(text);
  } catch (err) {
    if (err instanceof QuantityParseFailure) {
      // Go's format message names a regular expression the text may well match: say what went wrong first.
      const detail =
        err.reason === ERR_FORMAT_WRONG ? `${formatWrongReason(text)}; apimachinery: ${err.reason}` : err.reason;
      throw new QuantityError('INVALID_QUANTITY', path, QUANTITY_EXPECTED, detail);
    }
    if (err instanceof DecimalShiftTooLarge) {
      throw new QuantityError(
        'INVALID_QUANTITY',
        path,
        QUANTITY_EXPECTED,
        `exponent too large to evaluate (${err.message})`,
      );
    }
    throw err;
  }
}

/** Go `q.String()`: the cached string when set, else the canonical form. */
export function quantityString(q: QuantityValue): string {
  if (q.s.length > 0) return q.s;
  try {
    return canonicalString(q);
  } catch (err) {
    if (err instanceof DecimalShiftTooLarge) {
      throw new QuantityError(
        'INVALID_QUANTITY',
        [],
        QUANTITY_EXPECTED,
        `exponent too large to evaluate (${err.message})`,
      );
    }
    throw err;
  }
}

/** Go's zero `resource.Quantity{}`. */
export function zeroQuantity(): QuantityValue {
  return { i: { value: 0n, scale: 0 }, d: { Dec: null }, s: '', Format: '' };
}

/**
 * Go `Quantity.UnmarshalJSON` into a fresh (zero) Quantity: `null` leaves the zero value; a
 * string's content or a number's source text is trimmed (strings.TrimSpace) and parsed.
 */
export function unmarshalQuantity(token: QuantityToken, path: readonly JsonPathSegment[] = []): QuantityValue {
  if (token.kind === 'null') return zeroQuantity();
  const text = token.kind === 'string' && token.raw !== undefined ? token.raw : token.text;
  return parseQuantity(goTrimSpace(text), path);
}

/**
 * What the kubelet holds after the apiserver round trip: MarshalJSON writes `String()` and
 * UnmarshalJSON parses it again. One trip reaches the fixed point.
 */
export function roundTripQuantity(q: QuantityValue): QuantityValue {
  return parseQuantity(quantityString(q));
}
