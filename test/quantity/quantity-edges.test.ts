/**
 * Corners of resource.Quantity that the oracle cases and the kubelet scenarios never reach, each
 * expectation worked out by hand from apimachinery's quantity.go, amount.go and suffix.go
 * (1.8–1.30): ParseQuantity's slow-path BinarySI bounds (the cap at MaxInt64 is strict, values in
 * (0, 1) become DecimalSI), its int64 precision estimate, AsCanonicalBytes at the int32 exponent
 * wrap (Go's int64 path steps once, its inf.Dec fallback steps until a multiple of 3), the suffix
 * tables' (base, exponent) pairs, and the errors and paths a caller sees.
 */
import { describe, expect, it } from 'vitest';
import { QuantityError } from '../../src/errors.js';
import {
  QUANTITY_EXPECTED,
  parseQuantity,
  quantityString,
  unmarshalQuantity,
  type QuantityFormat,
  type QuantityValue,
} from '../../src/quantity/quantity.js';
import { bigIntValueOf } from '../../src/quantity/bignat.js';
import { canonicalString } from '../../src/quantity/canonical.js';
import { constructSuffix } from '../../src/quantity/suffix.js';
import { ERR_FORMAT_WRONG } from '../../src/quantity/parse.js';
import { decCmp, decimalDigits, type Dec } from '../../src/quantity/dec.js';

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MIN_INT32 = -(2 ** 31);

const int64q = (value: bigint, scale: number, Format: QuantityFormat): QuantityValue => ({
  i: { value, scale },
  d: { Dec: null },
  s: '',
  Format,
});
const decq = (unscaled: bigint, scale: number, Format: QuantityFormat): QuantityValue => ({
  i: { value: 0n, scale: 0 },
  d: { Dec: { unscaled: bigIntValueOf(unscaled), scale } },
  s: '',
  Format,
});

/** The QuantityError `fn` throws. */
function quantityErrorOf(fn: () => unknown): QuantityError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(QuantityError);
    return err as QuantityError;
  }
  throw new Error('expected a QuantityError');
}

describe('ParseQuantity slow path: BinarySI bounds', () => {
  it('a BinarySI value strictly between 0 and 1 becomes DecimalSI (rounded up to nano first)', () => {
    // 0.0001 × 1024 = 0.1024: not 0, below 1.
    expect(parseQuantity('0.0001Ki')).toEqual(decq(102_400_000n, 9, 'DecimalSI'));
    // The sign is taken off before the test and put back after it.
    expect(parseQuantity('-0.0001Ki')).toEqual(decq(-102_400_000n, 9, 'DecimalSI'));
  });

  it('exactly 1 and exactly 0 stay BinarySI', () => {
    // 0.0009765625 × 1024 = 1 exactly; `amount.Cmp(decOne) < 0` is false.
    expect(parseQuantity('0.0009765625Ki')).toEqual(decq(1_000_000_000n, 9, 'BinarySI'));
    // Zero is not rounded to nano and fails `amount.Cmp(decZero) > 0`: the scale of "0.0" stays.
    expect(parseQuantity('0.0Ki')).toEqual(decq(0n, 1, 'BinarySI'));
  });

  it('the cap at MaxInt64 is strict: a value equal to it keeps its own scale', () => {
    // 9007199254740991.9990234375 × 1024 = 2^63 − 1 exactly, rounded to scale 9.
    expect(parseQuantity('9007199254740991.9990234375Ki')).toEqual(decq(MAX_INT64 * 10n ** 9n, 9, 'BinarySI'));
    // 2^63 is above it and is replaced by maxAllowed itself (scale 0).
    expect(parseQuantity('9007199254740992Ki')).toEqual(decq(MAX_INT64, 0, 'BinarySI'));
  });
});

describe('ParseQuantity fast path: the precision estimate counts integer and fraction digits', () => {
  it('19 digits take the inf.Dec path even when they would fit an int64 at a nano scale', () => {
    // maxInt64Factors − (10 + 9) < 0, so Go skips the int64 path although 1234567890123456789 < 2^63.
    expect(parseQuantity('1234567890.123456789')).toEqual(decq(1_234_567_890_123_456_789n, 9, 'DecimalSI'));
  });
});

describe('AsCanonicalBytes at the int32 exponent wrap (NewScaledQuantity(v, math.MinInt32))', () => {
  it('the int64 path steps the exponent once, wrapping to MaxInt32', () => {
    // -2147483648 % 3 == -2 in Go: ×10 and exponent − 1, which wraps to 2147483647.
    expect(canonicalString(int64q(5n, MIN_INT32, 'DecimalExponent'))).toBe('50e2147483647');
    expect(canonicalString(int64q(-5n, MIN_INT32, 'DecimalExponent'))).toBe('-50e2147483647');
  });

  it('when ×10 overflows int64, the inf.Dec fallback steps until the exponent is a multiple of 3', () => {
    // -2147483648 → 2147483647 (≡ 1 mod 3) → 2147483646: two steps, ×100.
    expect(canonicalString(int64q(MAX_INT64, MIN_INT32, 'DecimalExponent'))).toBe('922337203685477580700e2147483646');
    expect(canonicalString(int64q(-MAX_INT64, MIN_INT32, 'DecimalExponent'))).toBe('-922337203685477580700e2147483646');
    // int64MultiplyScale10 refuses MinInt64 outright.
    expect(canonicalString(int64q(MIN_INT64, MIN_INT32, 'DecimalExponent'))).toBe('-922337203685477580800e2147483646');
  });
});

describe('suffix tables are keyed by (base, exponent)', () => {
  it('the decimal table holds base 2 only for exponent 0; the binary table holds no base 10', () => {
    expect(constructSuffix(2, 0, 'DecimalSI')).toBe('');
    expect(constructSuffix(2, 3, 'DecimalSI')).toBeNull();
    expect(constructSuffix(2, -9, 'DecimalSI')).toBeNull();
    expect(constructSuffix(10, 10, 'BinarySI')).toBeNull();
    expect(constructSuffix(10, 20, 'BinarySI')).toBeNull();
  });
});

describe('inf.Dec helpers on operands of equal magnitude', () => {
  const dec = (unscaled: bigint, scale: number): Dec => ({ unscaled, scale });

  it('aligns scales by their difference', () => {
    expect(decCmp(dec(1000n, 3), dec(10n, 1))).toBe(0); // 1.000 = 1.0
    expect(decCmp(dec(1001n, 3), dec(10n, 1))).toBe(1);
    expect(decCmp(dec(999n, 3), dec(10n, 1))).toBe(-1);
    expect(decCmp(dec(10n, 1), dec(1000n, 3))).toBe(0);
    expect(decCmp(dec(10n, 1), dec(1001n, 3))).toBe(-1);
  });

  it('counts the digits of positive numbers too', () => {
    expect(decimalDigits(7n)).toBe(1);
    expect(decimalDigits(100n)).toBe(3);
    expect(decimalDigits(MAX_INT64)).toBe(19);
  });
});

describe('errors a caller sees', () => {
  it('ParseQuantity and UnmarshalJSON report the whole input ([]) when given no path', () => {
    const parsed = quantityErrorOf(() => parseQuantity('1Qi'));
    expect([parsed.code, parsed.path, parsed.expected, parsed.detail]).toEqual([
      'INVALID_QUANTITY',
      [],
      QUANTITY_EXPECTED,
      `found "1Qi": "1" is the number and "Qi" is no suffix: a suffix is m, k, M, G, Ki, Mi, Gi… or an exponent such as e3, and a number has one "." at most; apimachinery: ${ERR_FORMAT_WRONG}`,
    ]);
    const unmarshalled = quantityErrorOf(() => unmarshalQuantity({ kind: 'string', text: '1Qi' }));
    expect([unmarshalled.code, unmarshalled.path, unmarshalled.detail]).toEqual([
      'INVALID_QUANTITY',
      [],
      expect.stringContaining(`no suffix: a suffix is m, k, M, G, Ki, Mi, Gi…`),
    ]);
  });

  it('an exponent too large to evaluate is an INVALID_QUANTITY naming the power of ten it would need', () => {
    // 19 digits: the inf.Dec path, whose rounding to nano needs 10^(9 + 200000).
    const err = quantityErrorOf(() => parseQuantity('1234567890123456789e200000', ['resources', 'limits', 'cpu']));
    expect([err.code, err.path, err.expected, err.detail]).toEqual([
      'INVALID_QUANTITY',
      ['resources', 'limits', 'cpu'],
      QUANTITY_EXPECTED,
      'exponent too large to evaluate (needs 10^200009)',
    ]);
  });

  it('the scale at which inf.Dec panics is an INVALID_QUANTITY saying so', () => {
    // Scale −2147483639 rounded to 9 is a shift of 2^31, which wraps to MinInt32 in inf.
    const err = quantityErrorOf(() => parseQuantity('1234567890123456789e2147483639'));
    expect([err.code, err.path, err.detail]).toEqual([
      'INVALID_QUANTITY',
      [],
      'exponent too large to evaluate (inf.Dec panics on this scale)',
    ]);
  });

  it('String() of a quantity whose value needs too large a power of ten throws the same error, not a raw one', () => {
    // NewScaledQuantity(1, 200000) as BinarySI: AsCanonicalBase1024Bytes needs 10^200000.
    const err = quantityErrorOf(() => quantityString(int64q(1n, 200_000, 'BinarySI')));
    expect([err.code, err.path, err.expected, err.detail]).toEqual([
      'INVALID_QUANTITY',
      [],
      QUANTITY_EXPECTED,
      'exponent too large to evaluate (needs 10^200000)',
    ]);
  });

  it('a JSON number token is parsed from its source text', () => {
    // UnmarshalJSON hands ParseQuantity the number as written: "1e3" keeps its spelling as `s`.
    expect(unmarshalQuantity({ kind: 'number', text: '1e3' })).toEqual({
      i: { value: 1n, scale: 3 },
      d: { Dec: null },
      s: '1e3',
      Format: 'DecimalExponent',
    });
    expect(unmarshalQuantity({ kind: 'number', text: '1.5' })).toEqual(int64q(15n, -1, 'DecimalSI'));
  });
});
