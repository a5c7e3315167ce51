/**
 * The inf.Dec operations under ParseQuantity and String, on values whose answer is plain
 * arithmetic (value = unscaled × 10^−scale): rounding away from zero, exact comparison across
 * scales, stripping factors of ten and of 1024, and inf's `SetString` syntax.
 */
import { describe, expect, it } from 'vitest';
import {
  DecimalShiftTooLarge,
  decCmp,
  decFromString,
  decRoundUp,
  decimalDigits,
  pow10,
  remove1024Factors,
  removeTensFactors,
  type Dec,
} from '../../src/quantity/dec.js';

const dec = (unscaled: bigint, scale: number): Dec => ({ unscaled, scale });

describe('inf.Dec operations', () => {
  it('SetString: sign first, ASCII digits, at most one dot, at least one digit', () => {
    expect(decFromString('1.50')).toEqual(dec(150n, 2));
    expect(decFromString('-0.5')).toEqual(dec(-5n, 1));
    expect(decFromString('+12')).toEqual(dec(12n, 0));
    expect(decFromString('.5')).toEqual(dec(5n, 1));
    expect(decFromString('7.')).toEqual(dec(7n, 0));
    for (const bad of ['', '+', '-', '.', '1e3', ' 1', '1 ', '1.2.3', '--1', '+-1', '\u0663', '1,5']) {
      expect(decFromString(bad), bad).toBeNull();
    }
  });

  it('rounds away from zero to a scale', () => {
    expect(decRoundUp(dec(15n, 1), 0)).toEqual(dec(2n, 0)); // 1.5 → 2
    expect(decRoundUp(dec(-15n, 1), 0)).toEqual(dec(-2n, 0)); // -1.5 → -2
    expect(decRoundUp(dec(10n, 1), 0)).toEqual(dec(1n, 0)); // 1.0 → 1, exact
    expect(decRoundUp(dec(-10n, 1), 0)).toEqual(dec(-1n, 0));
    expect(decRoundUp(dec(1n, 10), 9)).toEqual(dec(1n, 9)); // 0.1n → 1n
    expect(decRoundUp(dec(-1n, 10), 9)).toEqual(dec(-1n, 9));
    expect(decRoundUp(dec(19n, 10), 9)).toEqual(dec(2n, 9)); // as many digits as the shift
    expect(decRoundUp(dec(0n, 5), 0)).toEqual(dec(0n, 0));
    expect(decRoundUp(dec(123n, 0), 2)).toEqual(dec(12300n, 2)); // more digits: exact
    expect(decRoundUp(dec(5n, 0), -1)).toEqual(dec(1n, -1)); // 5 → 10
    expect(decRoundUp(dec(-5n, 0), -1)).toEqual(dec(-1n, -1));
    expect(decRoundUp(dec(100n, 0), -2)).toEqual(dec(1n, -2)); // 100 exactly
    expect(decRoundUp(dec(101n, 0), -2)).toEqual(dec(2n, -2)); // 101 → 200
  });

  it('rounding refuses the scale at which inf panics', () => {
    expect(() => decRoundUp(dec(1n, 2 ** 31 - 1), -1)).toThrow(DecimalShiftTooLarge);
  });

  it('compares exact values across scales and signs', () => {
    expect(decCmp(dec(10n, 1), dec(1n, 0))).toBe(0);
    expect(decCmp(dec(0n, 3), dec(0n, -2))).toBe(0);
    expect(decCmp(dec(15n, 1), dec(2n, 0))).toBe(-1);
    expect(decCmp(dec(2n, 0), dec(15n, 1))).toBe(1);
    expect(decCmp(dec(-15n, 1), dec(-2n, 0))).toBe(1);
    expect(decCmp(dec(-2n, 0), dec(-15n, 1))).toBe(-1);
    expect(decCmp(dec(-1n, 0), dec(0n, 0))).toBe(-1);
    expect(decCmp(dec(0n, 0), dec(-1n, 0))).toBe(1);
    expect(decCmp(dec(1n, 0), dec(-1n, 5))).toBe(1);
    expect(decCmp(dec(999n, 3), dec(1n, 0))).toBe(-1); // 0.999 < 1
    expect(decCmp(dec(1001n, 3), dec(1n, 0))).toBe(1);
    expect(decCmp(dec(12n, 0), dec(1200n, 2))).toBe(0);
    expect(decCmp(dec(1200n, 2), dec(13n, 0))).toBe(-1);
  });

  it('strips factors of ten and of 1024, keeping the sign', () => {
    expect(removeTensFactors(0n)).toEqual({ amount: 0n, times: 0 });
    expect(removeTensFactors(1200n)).toEqual({ amount: 12n, times: 2 });
    expect(removeTensFactors(-1200n)).toEqual({ amount: -12n, times: 2 });
    expect(removeTensFactors(7n)).toEqual({ amount: 7n, times: 0 });
    expect(remove1024Factors(0n)).toEqual({ amount: 0n, times: 0 });
    expect(remove1024Factors(-2048n)).toEqual({ amount: -2n, times: 1 });
    expect(remove1024Factors(3n * 1024n ** 2n)).toEqual({ amount: 3n, times: 2 });
    expect(remove1024Factors(512n * 1024n)).toEqual({ amount: 512n, times: 1 });
    expect(remove1024Factors(1023n)).toEqual({ amount: 1023n, times: 0 });
  });

  it('counts digits of the magnitude and builds powers of ten up to the limit', () => {
    expect(decimalDigits(0n)).toBe(1);
    expect(decimalDigits(-100n)).toBe(3);
    expect(pow10(0)).toBe(1n);
    expect(pow10(3)).toBe(1000n);
    expect(pow10(100_000).toString().length).toBe(100_001);
    expect(() => pow10(100_001)).toThrow(DecimalShiftTooLarge);
  });
});
