import { describe, expect, it } from 'vitest';
import { QuantityError } from '../../src/errors.js';
import {
  parseQuantity,
  quantityString,
  roundTripQuantity,
  unmarshalQuantity,
  zeroQuantity,
  type QuantityFormat,
  type QuantityValue,
} from '../../src/quantity/quantity.js';
import { spewQuantity } from '../support/spew-quantity.js';

/** An int64Amount-backed quantity. */
function int64q(value: bigint, scale: number, s: string, Format: QuantityFormat): QuantityValue {
  return { i: { value, scale }, d: { Dec: null }, s, Format };
}

/** An inf.Dec-backed quantity; `abs` are the big.nat words, least significant first. */
function decq(abs: bigint[] | null, scale: number, Format: QuantityFormat, neg = false): QuantityValue {
  return { i: { value: 0n, scale: 0 }, d: { Dec: { unscaled: { neg, abs }, scale } }, s: '', Format };
}

describe('parseQuantity + roundTripQuantity: what the kubelet holds', () => {
  const NANO = 10n ** 9n;
  const words = (x: bigint): bigint[] => {
    const out: bigint[] = [];
    for (; x > 0n; x >>= 64n) out.push(x & ((1n << 64n) - 1n));
    return out;
  };
  const table: Array<[input: string, string: string, kubelet: QuantityValue]> = [
    ['0', '0', int64q(0n, 0, '0', 'DecimalSI')],
    ['1', '1', int64q(1n, 0, '1', 'DecimalSI')],
    ['0.5', '500m', int64q(500n, -3, '500m', 'DecimalSI')],
    ['.5', '500m', int64q(500n, -3, '500m', 'DecimalSI')],
    ['500m', '500m', int64q(500n, -3, '500m', 'DecimalSI')],
    ['1Gi', '1Gi', int64q(1073741824n, 0, '1Gi', 'BinarySI')],
    ['1.5Gi', '1536Mi', int64q(1610612736n, 0, '', 'BinarySI')],
    ['128Mi', '128Mi', int64q(134217728n, 0, '', 'BinarySI')],
    ['100Ki', '100Ki', int64q(102400n, 0, '100Ki', 'BinarySI')],
    ['1024Mi', '1Gi', int64q(1073741824n, 0, '1Gi', 'BinarySI')],
    ['1e3', '1e3', int64q(1n, 3, '1e3', 'DecimalExponent')],
    ['1E3', '1E3', int64q(1n, 3, '1E3', 'DecimalExponent')],
    ['1e-3', '1e-3', int64q(1n, -3, '1e-3', 'DecimalExponent')],
    ['12e-1', '1200e-3', int64q(1200n, -3, '1200e-3', 'DecimalExponent')],
    ['1.5e3', '1500', int64q(1500n, 0, '1500', 'DecimalSI')],
    ['129M', '129M', int64q(129n, 6, '129M', 'DecimalSI')],
    ['-1', '-1', int64q(-1n, 0, '-1', 'DecimalSI')],
    ['+1', '+1', int64q(1n, 0, '+1', 'DecimalSI')],
    ['01', '01', int64q(1n, 0, '01', 'DecimalSI')],
    ['1.', '1.', int64q(1n, 0, '1.', 'DecimalSI')],
    ['0.000000001', '1n', int64q(1n, -9, '1n', 'DecimalSI')],
    ['0.0000000001', '1n', int64q(1n, -9, '1n', 'DecimalSI')],
    ['1n', '1n', int64q(1n, -9, '1n', 'DecimalSI')],
    ['0.5m', '500u', int64q(500n, -6, '500u', 'DecimalSI')],
    ['1.23456789', '1234567890n', int64q(1234567890n, -9, '1234567890n', 'DecimalSI')],
    // No SI suffix exists for 10^21: the exponent is dropped (upstream bug, 1.8–1.30).
    ['1000000000000000000000', '1', int64q(1n, 0, '1', 'DecimalSI')],
    ['100000000000000000000000000', '100', int64q(100n, 0, '100', 'DecimalSI')],
    ['-1000000000000000000000', '-1', int64q(-1n, 0, '-1', 'DecimalSI')],
    // More than 18 digits, or Pi/Ei: inf.Dec at nano scale.
    ['1234567890123456789012', '1234567890123456789012', decq([11711269222060115968n, 66926059427n], 9, 'DecimalSI')],
    ['9223372036854775807', '9223372036854775807', decq(words(9223372036854775807n * NANO), 9, 'DecimalSI')],
    ['-9223372036854775808', '-9223372036854775808', decq(words(9223372036854775808n * NANO), 9, 'DecimalSI', true)],
    ['1Pi', '1Pi', decq([2882303761517117440n, 61035n], 9, 'BinarySI')],
    ['1Ei', '1Ei', decq(words((1n << 60n) * NANO), 9, 'BinarySI')],
    // BinarySI is capped at 2^63-1, which has no binary suffix and comes back DecimalSI.
    ['8Ei', '9223372036854775807', decq(words(9223372036854775807n * NANO), 9, 'DecimalSI')],
    ['16Ei', '9223372036854775807', decq(words(9223372036854775807n * NANO), 9, 'DecimalSI')],
    ['0.5Ki', '512', int64q(512n, 0, '512', 'DecimalSI')],
  ];

  it.each(table)('%s → %s', (input, text, kubelet) => {
    const rt = roundTripQuantity(parseQuantity(input));
    expect(rt).toEqual(kubelet);
    expect(quantityString(rt)).toBe(text);
    expect(quantityString(parseQuantity(input))).toBe(text);
  });

  it('keeps the input as the cached string only when it looks canonical', () => {
    expect(parseQuantity('128Mi')).toEqual(int64q(134217728n, 0, '', 'BinarySI'));
    // A fraction with a binary suffix always takes the Dec path; the round trip brings it back.
    expect(parseQuantity('1.5Gi')).toEqual(decq(words(1610612736n * NANO), 9, 'BinarySI'));
    expect(parseQuantity('1000')).toEqual(int64q(1000n, 0, '', 'DecimalSI'));
    expect(parseQuantity('0.5')).toEqual(int64q(5n, -1, '', 'DecimalSI'));
    expect(parseQuantity('12e-1')).toEqual(int64q(12n, -1, '', 'DecimalExponent'));
    expect(parseQuantity('1.5e3')).toEqual(int64q(15n, 2, '', 'DecimalExponent'));
    expect(parseQuantity('1000000000000000000000')).toEqual(decq(words(10n ** 30n), 9, 'DecimalSI'));
  });

  it('caps BinarySI on the Dec path at scale 0', () => {
    expect(parseQuantity('8Ei')).toEqual(decq([9223372036854775807n], 0, 'BinarySI'));
    expect(parseQuantity('-8Ei')).toEqual(decq([9223372036854775807n], 0, 'BinarySI', true));
  });

  it('leaves a zero big.Int with a nil word slice', () => {
    // 11 fraction digits take the Dec path; zero is not rounded, so the scale stays 11.
    const q = parseQuantity('0.00000000000');
    expect(q).toEqual(decq(null, 11, 'DecimalSI'));
    expect(spewQuantity(q)).toContain('abs:(big.nat)<nil>} scale:(inf.Scale)11');
    expect(roundTripQuantity(q)).toEqual(int64q(0n, 0, '0', 'DecimalSI'));
  });

  it('parses what the scanner lets through, like Go does', () => {
    expect(parseQuantity('.')).toEqual(int64q(0n, 0, '', 'DecimalSI'));
    expect(parseQuantity('Ki')).toEqual(int64q(0n, 0, '', 'BinarySI'));
    expect(parseQuantity('-0')).toEqual(int64q(0n, 0, '', 'DecimalSI'));
    expect(quantityString(parseQuantity('-0'))).toBe('0');
    // int32(parsed) wraps the exponent.
    expect(parseQuantity('1e4294967297')).toEqual(int64q(1n, 1, '', 'DecimalExponent'));
    expect(quantityString(parseQuantity('1e4294967297'))).toBe('10');
  });

  it('spews the layout the legacy hash sees', () => {
    expect(spewQuantity(roundTripQuantity(parseQuantity('0.5')))).toBe(
      '{i:(resource.int64Amount){value:(int64)500 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)500m Format:(resource.Format)DecimalSI}',
    );
    expect(spewQuantity(roundTripQuantity(parseQuantity('1234567890123456789012')))).toBe(
      '{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec){unscaled:(big.Int){neg:(bool)false abs:(big.nat)[11711269222060115968 66926059427]} scale:(inf.Scale)9}} s:(string) Format:(resource.Format)DecimalSI}',
    );
  });
});

describe('unmarshalQuantity', () => {
  it('trims like strings.TrimSpace and parses', () => {
    expect(roundTripQuantity(unmarshalQuantity({ kind: 'string', text: ' 1 ' }))).toEqual(
      int64q(1n, 0, '1', 'DecimalSI'),
    );
    expect(unmarshalQuantity({ kind: 'string', text: '\u00a01\u0085' })).toEqual(int64q(1n, 0, '1', 'DecimalSI'));
    // U+FEFF is not white space to Go (JavaScript's trim would strip it).
    expect(() => unmarshalQuantity({ kind: 'string', text: '\ufeff1' })).toThrow(QuantityError);
  });

  it('keeps a number token’s source text', () => {
    expect(unmarshalQuantity({ kind: 'number', text: '1E3' })).toEqual(int64q(1n, 3, '1E3', 'DecimalExponent'));
    expect(quantityString(roundTripQuantity(unmarshalQuantity({ kind: 'number', text: '1000.0' })))).toBe('1k');
  });

  it('null is the zero value, which round-trips to "0"', () => {
    expect(unmarshalQuantity({ kind: 'null' })).toEqual(zeroQuantity());
    expect(zeroQuantity()).toEqual({ i: { value: 0n, scale: 0 }, d: { Dec: null }, s: '', Format: '' });
    expect(quantityString(zeroQuantity())).toBe('0');
    expect(roundTripQuantity(zeroQuantity())).toEqual(int64q(0n, 0, '0', 'DecimalSI'));
  });

  it('parses the raw string text when given, as encoding/json hands it over', () => {
    expect(() => unmarshalQuantity({ kind: 'string', text: '10', raw: '1\\u0030' })).toThrow(QuantityError);
  });
});

describe('invalid quantities', () => {
  const cases: Array<[string, string]> = [
    ['', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['abc', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1.2.3', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1Qi', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1.5.3', 'found "1.5.3": "1.5" is the number and ".3" is no suffix'],
    ['abc', 'found "abc": no number before "abc"'],
    ['--1', "unable to parse quantity's suffix"],
    ['1ki', "unable to parse quantity's suffix"],
    ['1e', "unable to parse quantity's suffix"],
    ['1e9223372036854775808', "unable to parse quantity's suffix"],
    ['.Pi', 'unable to parse numeric part of quantity'],
  ];
  it.each(cases)('%j', (text, detail) => {
    const path = ['resources', 'limits', 'cpu'];
    let caught: unknown;
    try {
      parseQuantity(text, path);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(QuantityError);
    const err = caught as QuantityError;
    expect(err.code).toBe('INVALID_QUANTITY');
    expect(err.path).toEqual(path);
    expect(err.expected).toBe('a quantity like "500m" or "1Gi"');
    expect(err.message).toContain(detail);
  });

  it('refuses exponents whose value cannot be built', () => {
    expect(() => parseQuantity('1234567890123456789e2000000000')).toThrow(/exponent too large/);
  });

  it('rounds tiny Dec-path values up to 1n without building huge powers', () => {
    expect(roundTripQuantity(parseQuantity('1234567890123456789e-2000000000'))).toEqual(
      int64q(1n, -9, '1e-9', 'DecimalExponent'),
    );
  });
});
