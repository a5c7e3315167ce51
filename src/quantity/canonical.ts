/**
 * `Quantity.String()` when nothing is cached: apimachinery's CanonicalizeBytes as of 1.8–1.30,
 * including the int32 exponent arithmetic and the ignored `ok` of the suffix lookup (DecimalSI
 * values ≥ 10^21 have no suffix and print without their exponent: 10^21 → "1").
 */
import type { Int64Amount, QuantityFormat, QuantityValue } from './types.js';
import { bigIntFromValue } from './bignat.js';
import { constructSuffix } from './suffix.js';
import { MAX_INT64, MIN_INT64, wrapInt32 } from '../go/ints.js';
import { decCmp, decRoundUp, decimalDigits, pow10, remove1024Factors, removeTensFactors, type Dec } from './dec.js';

/** The amount a quantity holds: the inf.Dec when `d.Dec` is set, else the int64Amount. */
type Amount = { kind: 'int64'; i: Int64Amount } | { kind: 'dec'; dec: Dec };

function amountOf(q: QuantityValue): Amount {
  const dec = q.d.Dec;
  if (dec !== null) return { kind: 'dec', dec: { unscaled: bigIntFromValue(dec.unscaled), scale: dec.scale } };
  return { kind: 'int64', i: q.i };
}

/** `int64Amount.AsDec()`: inf scale is the negated Scale, in int32. */
function int64AsDec(i: Int64Amount): Dec {
  return { unscaled: i.value, scale: wrapInt32(-i.scale) };
}

function isZero(a: Amount): boolean {
  return a.kind === 'dec' ? a.dec.unscaled === 0n : a.i.value === 0n;
}

function cmpInt64(a: Amount, y: bigint): number {
  return decCmp(a.kind === 'dec' ? a.dec : int64AsDec(a.i), { unscaled: y, scale: 0 });
}

/** Go `negativeScaleInt64`: divides by 10^down rounding away from zero; `exact` when nothing was lost. */
function negativeScaleInt64(base: bigint, down: number): { result: bigint; exact: boolean } {
  if (down <= 0) return { result: base, exact: true }; // Go's loop does not run for scale ≤ 0
  if (base === 0n) return { result: 0n, exact: true };
  const sign = base < 0n ? -1n : 1n;
  if (decimalDigits(base) <= down) return { result: sign, exact: false };
  const divisor = pow10(down);
  const quotient = base / divisor;
  return base % divisor === 0n ? { result: quotient, exact: true } : { result: quotient + sign, exact: false };
}

/** `AsScale(0)`: the amount rounded up to scale 0 and whether that lost nothing. */
function asScaleZero(a: Amount): { rounded: Amount; exact: boolean } {
  if (a.kind === 'dec') {
    const dec = decRoundUp(a.dec, 0);
    return { rounded: { kind: 'dec', dec }, exact: decCmp(dec, a.dec) === 0 };
  }
  if (a.i.scale >= 0) return { rounded: a, exact: true };
  const { result, exact } = negativeScaleInt64(a.i.value, wrapInt32(0 - a.i.scale));
  return { rounded: { kind: 'int64', i: { value: result, scale: 0 } }, exact };
}

/** `AsCanonicalBytes` for an inf.Dec: strip factors of ten, then step the exponent down to a multiple of 3. */
function decCanonical(dec: Dec): { number: string; exponent: number } {
  const { amount: stripped, times } = removeTensFactors(dec.unscaled);
  let amount = stripped;
  let exponent = wrapInt32(wrapInt32(-dec.scale) + times);
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent = wrapInt32(exponent - 1);
  }
  return { number: amount.toString(), exponent };
}

/** `int64Amount.AsCanonicalBytes`: like the Dec version but falls back to it when ×10/×100 overflows. */
function int64Canonical(i: Int64Amount): { number: string; exponent: number } {
  let amount = i.value;
  let times = 0;
  const negative = amount < 0n;
  if (negative) amount = BigInt.asIntN(64, -amount); // -MinInt64 stays MinInt64 in Go
  while (amount >= 10n && amount % 10n === 0n) {
    times++;
    amount /= 10n;
  }
  if (negative) amount = BigInt.asIntN(64, -amount);
  let exponent = wrapInt32(i.scale + times);
  const step = exponent % 3 === 1 || exponent % 3 === -2 ? 1 : exponent % 3 === 2 || exponent % 3 === -1 ? 2 : 0;
  if (step > 0) {
    const scaled = amount * (step === 1 ? 10n : 100n);
    if (amount === MIN_INT64 || scaled > MAX_INT64 || scaled < MIN_INT64) return decCanonical(int64AsDec(i));
    amount = scaled;
    exponent = wrapInt32(exponent - step);
  }
  return { number: amount.toString(), exponent };
}

/**
 * `AsCanonicalBase1024Bytes` of an amount `asScaleZero` returned: an int64Amount there is always at
 * a scale ≥ 0 (it was one already, or was rounded to 0), so only the inf.Dec needs rounding.
 */
function base1024Canonical(a: Amount): { number: string; exponent: number } {
  const whole = a.kind === 'dec' ? decRoundUp(a.dec, 0).unscaled : a.i.value * pow10(a.i.scale);
  const { amount, times } = remove1024Factors(whole);
  return { number: amount.toString(), exponent: times };
}

/** Go `q.CanonicalizeBytes` joined: the canonical spelling of the quantity's value and format. */
export function canonicalString(q: QuantityValue): string {
  const amount = amountOf(q);
  if (isZero(amount)) return '0';

  let format: QuantityFormat = q.Format;
  let rounded: Amount = amount;
  switch (format) {
    case 'DecimalExponent':
    case 'DecimalSI':
      break;
    case 'BinarySI':
      if (cmpInt64(amount, -1024n) > 0 && cmpInt64(amount, 1024n) < 0) {
        format = 'DecimalSI'; // small values print in decimal rather than round
      } else {
        const scaled = asScaleZero(amount);
        rounded = scaled.rounded;
        if (!scaled.exact) format = 'DecimalSI'; // never lose precision to a binary suffix
      }
      break;
    default:
      format = 'DecimalExponent';
  }

  if (format === 'BinarySI') {
    const { number, exponent } = base1024Canonical(rounded);
    return number + (constructSuffix(2, wrapInt32(exponent * 10), format) ?? '');
  }
  const { number, exponent } = amount.kind === 'dec' ? decCanonical(amount.dec) : int64Canonical(amount.i);
  return number + (constructSuffix(10, exponent, format) ?? '');
}
