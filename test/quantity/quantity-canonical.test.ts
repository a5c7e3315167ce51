/**
 * `Quantity.String()` for quantities Go builds without parsing text (`NewMilliQuantity`,
 * `NewScaledQuantity`, `NewQuantity`, `NewDecimalQuantity`), which reach CanonicalizeBytes paths
 * ParseQuantity never produces: BinarySI int64 amounts at a negative scale (rounded with AsScale(0)
 * when exact, else printed as DecimalSI) and at a positive scale. Expectations are worked out from
 * quantity.go and amount.go by hand.
 */
import { describe, expect, it } from 'vitest';
import { canonicalString } from '../../src/quantity/canonical.js';
import { bigIntValueOf } from '../../src/quantity/bignat.js';
import type { QuantityFormat, QuantityValue } from '../../src/quantity/types.js';

const int64 = (value: bigint, scale: number, Format: QuantityFormat): QuantityValue => ({
  i: { value, scale },
  d: { Dec: null },
  s: '',
  Format,
});
const infDec = (unscaled: bigint, scale: number, Format: QuantityFormat): QuantityValue => ({
  i: { value: 0n, scale: 0 },
  d: { Dec: { unscaled: bigIntValueOf(unscaled), scale } },
  s: '',
  Format,
});

describe('CanonicalizeBytes beyond ParseQuantity', () => {
  it.each([
    // NewMilliQuantity(v, BinarySI): value × 10^-3.
    [int64(2048000n, -3, 'BinarySI'), '2Ki'], // 2048 exactly: AsScale(0) is exact
    [int64(-2048000n, -3, 'BinarySI'), '-2Ki'],
    [int64(1536000n, -3, 'BinarySI'), '1536'], // 1.5Ki: no whole power of 1024
    [int64(2048500n, -3, 'BinarySI'), '2048500m'], // 2048.5: inexact, so DecimalSI
    [int64(-2048500n, -3, 'BinarySI'), '-2048500m'],
    [int64(1500n, -3, 'BinarySI'), '1500m'], // 1.5: inside (-1024, 1024)
    [int64(1024000n, -3, 'BinarySI'), '1Ki'],
    [int64(1023999n, -3, 'BinarySI'), '1023999m'],
    // NewQuantity(v, BinarySI) inside (-1024, 1024) prints as DecimalSI, with its k suffix.
    [int64(1000n, 0, 'BinarySI'), '1k'],
    [int64(-1000n, 0, 'BinarySI'), '-1k'],
    [int64(100n, 1, 'BinarySI'), '1k'],
    [int64(1023n, 0, 'BinarySI'), '1023'],
  ])('%# → %s', (q, expected) => {
    expect(canonicalString(q)).toBe(expected);
  });

  it('BinarySI int64 amounts at a positive scale print in powers of 1024 when whole', () => {
    expect(canonicalString(int64(2n, 3, 'BinarySI'))).toBe('2000'); // 2000 = 1.953125Ki
    expect(canonicalString(int64(1024n, 3, 'BinarySI'))).toBe('1000Ki'); // 1024000
    expect(canonicalString(int64(-1024n, 3, 'BinarySI'))).toBe('-1000Ki');
  });

  it('inf.Dec amounts: BinarySI rounds only when exact; DecimalSI and DecimalExponent step to multiples of 3', () => {
    expect(canonicalString(infDec(10240n, 1, 'BinarySI'))).toBe('1Ki'); // 1024.0
    expect(canonicalString(infDec(10245n, 1, 'BinarySI'))).toBe('1024500m'); // 1024.5
    expect(canonicalString(infDec(15n, 1, 'DecimalSI'))).toBe('1500m');
    expect(canonicalString(infDec(15n, 1, 'DecimalExponent'))).toBe('1500e-3');
    expect(canonicalString(infDec(0n, 4, 'BinarySI'))).toBe('0');
  });

  it('an unknown or empty Format prints as DecimalExponent', () => {
    expect(canonicalString(int64(1500n, 0, ''))).toBe('1500');
    expect(canonicalString(int64(15n, 2, ''))).toBe('1500');
    expect(canonicalString(int64(15n, -1, ''))).toBe('1500e-3');
  });
});
