/** Go fixed-width integer bounds and semantics (decoder ranges, quantity arithmetic, hash values). */

export const MAX_INT64 = (1n << 63n) - 1n;
export const MIN_INT64 = -(1n << 63n);
export const MAX_INT32 = (1n << 31n) - 1n;
export const MIN_INT32 = -(1n << 31n);
/** The largest uint64: the kubelet stores hashes as uint64. */
export const MAX_UINT64 = (1n << 64n) - 1n;

/** Go `int32(x)` for an int32 expression that may have overflowed: wraps modulo 2^32. */
export function wrapInt32(x: number): number {
  return x | 0;
}

/** Go `int32(x)` for an int64 value. */
export function int32FromInt64(x: bigint): number {
  return Number(BigInt.asIntN(32, x));
}

/** Whether x fits Go's int64. */
export function fitsInt64(x: bigint): boolean {
  return x >= MIN_INT64 && x <= MAX_INT64;
}

/**
 * Go's `strconv.ParseInt(s, 10, 64)`: optional sign, then one or more ASCII digits (base 10
 * allows no underscores), within int64; `null` on any error.
 */
export function parseInt64(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const v = BigInt(s);
  return fitsInt64(v) ? v : null;
}
