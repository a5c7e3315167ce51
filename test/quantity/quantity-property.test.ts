import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { QuantityError } from '../../src/errors.js';
import { parseQuantity, quantityString, roundTripQuantity, type QuantityValue } from '../../src/quantity/quantity.js';
import { bigIntFromValue } from '../../src/quantity/bignat.js';

const DECIMAL_SUFFIXES: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** A well-formed spelling and its exact value as numerator / 10^k (k ≥ 0). */
interface Spelling {
  text: string;
  numerator: bigint;
  tenths: number;
  binary: boolean;
}

const spelling: fc.Arbitrary<Spelling> = fc
  .record({
    sign: fc.constantFrom('', '-', '+'),
    int: fc.stringMatching(/^[0-9]{0,24}$/),
    frac: fc.option(fc.stringMatching(/^[0-9]{0,14}$/), { nil: undefined }),
    suffix: fc.oneof(
      fc.constantFrom(...Object.keys(DECIMAL_SUFFIXES), ...Object.keys(BINARY_SUFFIXES)),
      fc.tuple(fc.constantFrom('e', 'E'), fc.integer({ min: -40, max: 40 })).map(([e, n]) => `${e}${n}`),
    ),
  })
  .filter(({ int, frac }) => int.length + (frac?.length ?? 0) > 0)
  .map(({ sign, int, frac, suffix }) => {
    const text = `${sign}${int}${frac === undefined ? '' : `.${frac}`}${suffix}`;
    let numerator = BigInt(`${int}${frac ?? ''}` || '0');
    if (sign === '-') numerator = -numerator;
    let tenths = frac?.length ?? 0;
    const binary = suffix in BINARY_SUFFIXES;
    if (binary) numerator <<= BigInt(BINARY_SUFFIXES[suffix]!);
    else {
      const exponent = suffix in DECIMAL_SUFFIXES ? DECIMAL_SUFFIXES[suffix]! : Number(suffix.slice(1));
      if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
      else tenths -= exponent;
    }
    return { text, numerator, tenths, binary };
  });

/** The quantity's exact value, as numerator at 10^-tenths. */
function valueAt(q: QuantityValue, tenths: number): bigint {
  const dec = q.d.Dec;
  const [unscaled, exp] = dec === null ? [q.i.value, q.i.scale] : [bigIntFromValue(dec.unscaled), -dec.scale];
  const shift = exp + tenths;
  return shift >= 0 ? unscaled * 10n ** BigInt(shift) : unscaled / 10n ** BigInt(-shift);
}

describe('quantity properties', () => {
  it('one round trip reaches the fixed point', () => {
    fc.assert(
      fc.property(spelling, ({ text }) => {
        const once = roundTripQuantity(parseQuantity(text));
        expect(roundTripQuantity(once)).toEqual(once);
        expect(quantityString(once)).toBe(quantityString(parseQuantity(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the exact value of anything at nano precision inside the representable range', () => {
    fc.assert(
      fc.property(spelling, ({ text, numerator, tenths, binary }) => {
        // Skip what Go deliberately changes: sub-nano digits (rounded up), the BinarySI cap, and
        // DecimalSI/Exponent values ≥ 10^21 (the dropped-suffix bug).
        const tenPow = 10n ** BigInt(Math.max(0, tenths - 9));
        if (tenths > 9 && numerator % tenPow !== 0n) return;
        const magnitude = numerator < 0n ? -numerator : numerator;
        const limit = binary ? (1n << 63n) - 1n : 10n ** 21n;
        if (magnitude >= limit * 10n ** BigInt(tenths)) return;
        const rt = roundTripQuantity(parseQuantity(text));
        expect(valueAt(rt, tenths)).toBe(numerator);
      }),
      { numRuns: 3000 },
    );
  });

  it('only ever throws QuantityError', () => {
    const noisy = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789.+-eEinumkKMGTPQ \t'.split('')), maxLength: 30 }),
      fc.string({ maxLength: 30 }),
      spelling.map((s) => s.text),
    );
    fc.assert(
      fc.property(noisy, (text) => {
        try {
          const q = parseQuantity(text);
          expect(roundTripQuantity(roundTripQuantity(q))).toEqual(roundTripQuantity(q));
        } catch (err) {
          expect(err).toBeInstanceOf(QuantityError);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
