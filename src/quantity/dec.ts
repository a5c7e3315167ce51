/**
 * The few gopkg.in/inf.v0 `Dec` operations ParseQuantity and String use, on an exact
 * (bigint unscaled, int32 scale) pair: value = unscaled × 10^(−scale).
 */
import { wrapInt32 } from '../go/ints.js';

export interface Dec {
  unscaled: bigint;
  scale: number;
}

/**
 * The largest power of ten we agree to build. Go would build any (slowly, or until it runs out of
 * memory); inputs like `1234567890123456789e2000000000` would need gigabytes, so we refuse them.
 */
const MAX_DECIMAL_SHIFT = 100_000;

/** Thrown when an operation would need a power of ten above {@link MAX_DECIMAL_SHIFT}. */
export class DecimalShiftTooLarge extends Error {}

/** 10^n, refusing absurd sizes (see {@link MAX_DECIMAL_SHIFT}). */
export function pow10(n: number): bigint {
  if (n > MAX_DECIMAL_SHIFT) throw new DecimalShiftTooLarge(`needs 10^${n}`);
  return 10n ** BigInt(n);
}

/**
 * `Dec.SetString`: an optional sign as the very first character, digits with at most one `.`,
 * at least one digit, nothing else; scale = number of characters after the `.`.
 */
export function decFromString(s: string): Dec | null {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(s);
  if (m === null) return null;
  const intDigits = m[2] ?? '';
  const fracDigits = m[3] ?? '';
  if (intDigits.length + fracDigits.length === 0) return null;
  const magnitude = BigInt(intDigits + fracDigits);
  return { unscaled: m[1] === '-' ? -magnitude : magnitude, scale: fracDigits.length };
}

/**
 * `z.Round(x, s, inf.RoundUp)`: the value at scale `s`, rounded away from zero. The scale
 * difference is int32 arithmetic in inf (`s - x.Scale()`), so it wraps like Go's.
 */
export function decRoundUp(x: Dec, s: number): Dec {
  const shift = wrapInt32(s - x.scale);
  if (shift >= 0) return { unscaled: x.unscaled * pow10(shift), scale: s };
  // inf negates the shift in int32; at MinInt32 that stays negative and Go indexes its power
  // cache with it and panics, so there is no value to reproduce.
  if (shift === -2147483648) throw new DecimalShiftTooLarge('inf.Dec panics on this scale');
  const down = -shift;
  const sign = x.unscaled < 0n ? -1n : 1n;
  // A divisor with more digits than the dividend leaves quotient 0 and remainder x: no need to
  // build the (possibly enormous) power of ten.
  if (decimalDigits(x.unscaled) <= down) {
    return { unscaled: x.unscaled === 0n ? 0n : sign, scale: s };
  }
  const divisor = pow10(down);
  const quotient = x.unscaled / divisor; // truncates toward zero, like big.Int.QuoRem
  const rounded = x.unscaled % divisor === 0n ? quotient : quotient + sign;
  return { unscaled: rounded, scale: s };
}

/** `x.Cmp(y)`: compares the exact values (inf upscales the operand with the smaller scale). */
export function decCmp(x: Dec, y: Dec): number {
  const sx = signOf(x.unscaled);
  const sy = signOf(y.unscaled);
  if (sx !== sy) return sx < sy ? -1 : 1;
  if (sx === 0) return 0;
  // Same sign, both non-zero: the order of magnitude decides unless it is equal, and then the
  // scale difference is at most the digit count, so the power of ten stays small.
  const mx = decimalDigits(x.unscaled) - x.scale;
  const my = decimalDigits(y.unscaled) - y.scale;
  if (mx !== my) return mx > my ? sx : -sx;
  let a = x.unscaled;
  let b = y.unscaled;
  if (x.scale > y.scale) b *= pow10(x.scale - y.scale);
  else if (y.scale > x.scale) a *= pow10(y.scale - x.scale);
  return a < b ? -1 : a > b ? 1 : 0;
}

function signOf(x: bigint): -1 | 0 | 1 {
  return x < 0n ? -1 : x > 0n ? 1 : 0;
}

/** Decimal digits of |x| (1 for zero). */
export function decimalDigits(x: bigint): number {
  return (x < 0n ? -x : x).toString().length;
}

/** `removeBigIntFactors(x, 10)`: strips trailing decimal zeros; zero stays (0, 0). */
export function removeTensFactors(x: bigint): { amount: bigint; times: number } {
  if (x === 0n) return { amount: 0n, times: 0 };
  const text = x.toString();
  let end = text.length;
  while (text[end - 1] === '0') end--;
  return { amount: BigInt(text.slice(0, end)), times: text.length - end };
}

/** `removeBigIntFactors(x, 1024)`: strips whole factors of 2^10; zero stays (0, 0). */
export function remove1024Factors(x: bigint): { amount: bigint; times: number } {
  if (x === 0n) return { amount: 0n, times: 0 };
  const magnitude = x < 0n ? -x : x;
  const trailingZeroBits = (magnitude & -magnitude).toString(2).length - 1;
  const times = Math.floor(trailingZeroBits / 10);
  return { amount: x / (1n << BigInt(10 * times)), times };
}
