/** math/big.Int's memory layout: sign flag plus a big.nat of 64-bit words, least significant first. */
import type { BigIntValue } from './types.js';

/**
 * The layout of a big.Int holding `x`. A zero gets `abs: null` (a nil slice): ParseQuantity's
 * zeros come from `big.Int.SetString` on a fresh Int (nat.scan starts from `z[:0]` of the nil
 * slice and `setWord(0)` / `norm()` return `z[:0]`, which for a nil slice is nil) or from `Mul`
 * by a power of two (`nat.mul` returns `z[:0]` when an operand is empty); none of these allocate.
 */
export function bigIntValueOf(x: bigint): BigIntValue {
  if (x === 0n) return { neg: false, abs: null };
  const neg = x < 0n;
  const hex = (neg ? -x : x).toString(16);
  const abs: bigint[] = [];
  for (let end = hex.length; end > 0; end -= 16) {
    abs.push(BigInt(`0x${hex.slice(Math.max(0, end - 16), end)}`));
  }
  return { neg, abs };
}

/** The integer a big.Int layout stands for. */
export function bigIntFromValue(v: BigIntValue): bigint {
  const words = v.abs ?? [];
  if (words.length === 0) return 0n;
  // Through hex text: linear, where shifting word by word would be quadratic.
  let hex = '';
  for (let k = words.length - 1; k >= 0; k--) hex += words[k]!.toString(16).padStart(16, '0');
  const x = BigInt(`0x${hex}`);
  return v.neg ? -x : x;
}
