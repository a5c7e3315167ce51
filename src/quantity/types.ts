/**
 * `resource.Quantity` as Go holds it in memory. Property names are the Go field names because
 * go-spew prints them (`{i:(resource.int64Amount){value:… scale:…} d:… s:… Format:…}`). The shapes
 * are type aliases (not interfaces) so a quantity is a Go struct value of the value tree as it is.
 */

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI' | '';

/**
 * math/big.Int as laid out in memory: `abs` is the big.nat word slice (64-bit words, least
 * significant first, no leading zero words), `null` when the slice is nil.
 */
export type BigIntValue = {
  neg: boolean;
  abs: bigint[] | null;
};

/** gopkg.in/inf.v0 `Dec`: value = unscaled × 10^(−scale); `scale` is an int32. */
export type InfDec = {
  unscaled: BigIntValue;
  scale: number;
};

/** `int64Amount{value int64; scale Scale}`: value × 10^scale; `scale` is an int32. */
export type Int64Amount = {
  value: bigint;
  scale: number;
};

/** `resource.Quantity{i int64Amount; d infDecAmount; s string; Format}`. */
export type QuantityValue = {
  i: Int64Amount;
  d: { Dec: InfDec | null };
  s: string;
  Format: QuantityFormat;
};
