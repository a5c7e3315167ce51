/**
 * SetDefaults_ResourceList: every quantity of a container's limits and requests goes through
 * `Quantity.RoundUp(-3)` (round away from zero to milli scale) before it is stored. Only values
 * finer than a milli change; their cached string is cleared, so the apiserver stores the
 * canonical form of the rounded value.
 */
import { bigIntFromValue, bigIntValueOf } from '../quantity/bignat.js';
import { canonicalString } from '../quantity/canonical.js';
import { decRoundUp } from '../quantity/dec.js';
import type { QuantityValue } from '../quantity/types.js';

const MILLI = -3;

/** The stored text of `q` after RoundUp(-3), or null when rounding leaves it as it was. */
export function roundedUpToMilli(q: QuantityValue): string | null {
  if (q.d.Dec !== null) {
    // inf.Dec scale counts digits after the point: milli is scale 3.
    const dec = { unscaled: bigIntFromValue(q.d.Dec.unscaled), scale: q.d.Dec.scale };
    if (dec.scale <= -MILLI) return null; // AsScale changes nothing; String() was canonical already
    const r = decRoundUp(dec, -MILLI);
    return canonicalString({ ...q, d: { Dec: { unscaled: bigIntValueOf(r.unscaled), scale: r.scale } }, s: '' });
  }
  if (q.i.scale >= MILLI) return null; // int64Amount.AsScale: already coarse enough, cached string kept
  const r = decRoundUp({ unscaled: q.i.value, scale: -q.i.scale }, -MILLI);
  return canonicalString({ ...q, i: { value: r.unscaled, scale: -r.scale }, s: '' });
}
