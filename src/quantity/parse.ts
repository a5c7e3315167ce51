/**
 * apimachinery's `ParseQuantity` (1.8–1.30): an int64 fast path that may keep the input text as
 * the cached string `s`, and an inf.Dec slow path that rounds up to nano and caps BinarySI.
 */
import type { QuantityValue } from './types.js';
import { scanQuantity } from './scan.js';
import { interpretSuffix } from './suffix.js';
import { MAX_INT64, wrapInt32 } from '../go/ints.js';
import { decCmp, decFromString, decRoundUp, type Dec } from './dec.js';
import { bigIntValueOf } from './bignat.js';

/** Go's error texts (the `detail` of a QuantityError). */
export const ERR_FORMAT_WRONG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_NUMERIC = 'unable to parse numeric part of quantity';
const ERR_SUFFIX = "unable to parse quantity's suffix";

/** ParseQuantity refused the text; `reason` is Go's error text. */
export class QuantityParseFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** int64 has at most 18 decimal digits that always fit (`maxInt64Factors` in math.go). */
const MAX_INT64_FACTORS = 18;
const NANO = -9;
const MAX_ALLOWED: Dec = { unscaled: MAX_INT64, scale: 0 };
const DEC_ONE: Dec = { unscaled: 1n, scale: 0 };
const DEC_ZERO: Dec = { unscaled: 0n, scale: 0 };

/** Go `ParseQuantity(str)`; throws {@link QuantityParseFailure} (or DecimalShiftTooLarge). */
export function parseQuantityText(str: string): QuantityValue {
  if (str.length === 0) throw new QuantityParseFailure(ERR_FORMAT_WRONG);
  // The one spelling that skips everything else and is cached verbatim.
  if (str === '0') return { i: { value: 0n, scale: 0 }, d: { Dec: null }, s: str, Format: 'DecimalSI' };

  const parts = scanQuantity(str);
  if (parts === null) throw new QuantityParseFailure(ERR_FORMAT_WRONG);
  const { positive, value, num, denom } = parts;

  const meaning = interpretSuffix(parts.suffix);
  if (meaning === null) throw new QuantityParseFailure(ERR_SUFFIX);
  const { base, exponent } = meaning;
  let format = meaning.format;

  // Fast path: the digits fit an int64 and the result is at least nano-scaled.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      // Go: 15 - len(num) - int32(float32(exponent)*3/10) - 1; exact for the binary exponents.
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }

  if (precision >= 0) {
    scale = wrapInt32(scale - denom.length);
    if (scale >= NANO) {
      const shifted = num + denom;
      const digits = BigInt(shifted); // at most 18 digits: strconv.ParseInt cannot fail
      const product = digits * mantissa;
      if (product <= MAX_INT64) {
        const result = positive ? product : -product;
        const i = { value: result, scale };
        // Keep the input as the cached string when it already looks canonical.
        const keep =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (digits & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { i, d: { Dec: null }, s: keep ? str : '', Format: format };
      }
    }
  }

  // Slow path: inf.Dec.
  let amount = decFromString(value);
  if (amount === null) throw new QuantityParseFailure(ERR_NUMERIC);
  if (base === 10) {
    // amount.SetScale(amount.Scale() + Scale(exponent).infScale()), all int32.
    amount = { unscaled: amount.unscaled, scale: wrapInt32(amount.scale + wrapInt32(-exponent)) };
  } else {
    amount = { unscaled: amount.unscaled * (1n << BigInt(exponent)), scale: amount.scale };
  }

  const negative = amount.unscaled < 0n;
  if (negative) amount = { unscaled: -amount.unscaled, scale: amount.scale };

  // Round any non-zero value up to a whole number of nanos (so 0.1n becomes 1n).
  if (amount.unscaled !== 0n) amount = decRoundUp(amount, -NANO);

  if (format === 'BinarySI' && decCmp(amount, MAX_ALLOWED) > 0) amount = { ...MAX_ALLOWED };
  if (format === 'BinarySI' && decCmp(amount, DEC_ONE) < 0 && decCmp(amount, DEC_ZERO) > 0) {
    format = 'DecimalSI';
  }
  if (negative) amount = { unscaled: -amount.unscaled, scale: amount.scale };

  return {
    i: { value: 0n, scale: 0 },
    d: { Dec: { unscaled: bigIntValueOf(amount.unscaled), scale: amount.scale } },
    s: '',
    Format: format,
  };
}
