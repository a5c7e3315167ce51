/**
 * go-spew 1.1.1 `%#v` of a resource.Quantity value tree, written out plainly for the quantity
 * tests (the project's encoders are checked elsewhere). Form as a map value (no type prefix);
 * a struct field like `Divisor:` adds `(resource.Quantity)` in front.
 */
import type { BigIntValue, InfDec, QuantityValue } from '../../src/quantity/quantity.js';

function spewBigInt(b: BigIntValue): string {
  const abs = b.abs === null ? '<nil>' : `[${b.abs.map((w) => w.toString()).join(' ')}]`;
  return `{neg:(bool)${b.neg} abs:(big.nat)${abs}}`;
}

function spewDec(dec: InfDec | null): string {
  if (dec === null) return '(*inf.Dec)<nil>';
  return `(*inf.Dec){unscaled:(big.Int)${spewBigInt(dec.unscaled)} scale:(inf.Scale)${dec.scale}}`;
}

export function spewQuantity(q: QuantityValue): string {
  return (
    `{i:(resource.int64Amount){value:(int64)${q.i.value} scale:(resource.Scale)${q.i.scale}}` +
    ` d:(resource.infDecAmount){Dec:${spewDec(q.d.Dec)}}` +
    ` s:(string)${q.s} Format:(resource.Format)${q.Format}}`
  );
}

export function spewQuantityField(q: QuantityValue): string {
  return `(resource.Quantity)${spewQuantity(q)}`;
}
