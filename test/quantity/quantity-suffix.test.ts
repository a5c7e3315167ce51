/**
 * apimachinery's suffixer (suffix.go) on its own: the decimal table (n … E, plus "" for both
 * 10^0 and 2^0), the binary table (Ki … Ei), and `e<int64>` exponents narrowed to int32.
 */
import { describe, expect, it } from 'vitest';
import { constructSuffix, interpretSuffix } from '../../src/quantity/suffix.js';

describe('quantity suffixes', () => {
  it('interprets every suffix Go knows and nothing else', () => {
    const decimal: [string, number][] = [
      ['n', -9],
      ['u', -6],
      ['m', -3],
      ['', 0],
      ['k', 3],
      ['M', 6],
      ['G', 9],
      ['T', 12],
      ['P', 15],
      ['E', 18],
    ];
    for (const [s, exponent] of decimal)
      expect(interpretSuffix(s)).toEqual({ base: 10, exponent, format: 'DecimalSI' });
    const binary: [string, number][] = [
      ['Ki', 10],
      ['Mi', 20],
      ['Gi', 30],
      ['Ti', 40],
      ['Pi', 50],
      ['Ei', 60],
    ];
    for (const [s, exponent] of binary) expect(interpretSuffix(s)).toEqual({ base: 2, exponent, format: 'BinarySI' });
    expect(interpretSuffix('e3')).toEqual({ base: 10, exponent: 3, format: 'DecimalExponent' });
    expect(interpretSuffix('E-2')).toEqual({ base: 10, exponent: -2, format: 'DecimalExponent' });
    expect(interpretSuffix('e+5')).toEqual({ base: 10, exponent: 5, format: 'DecimalExponent' });
    // strconv.ParseInt takes the int64; int32(…) keeps its low 32 bits.
    expect(interpretSuffix('e9223372036854775807')).toEqual({ base: 10, exponent: -1, format: 'DecimalExponent' });
    expect(interpretSuffix('e4294967296')).toEqual({ base: 10, exponent: 0, format: 'DecimalExponent' });
    for (const bad of ['e', 'K', 'ki', 'KI', 'i', 'Qi', 'Ki ', 'e9223372036854775808', 'e1.5', 'ee3', 'x']) {
      expect(interpretSuffix(bad), bad).toBeNull();
    }
  });

  it('constructs the suffix of a (base, exponent, format), null where Go says !ok', () => {
    expect(constructSuffix(10, 3, 'DecimalSI')).toBe('k');
    expect(constructSuffix(10, -9, 'DecimalSI')).toBe('n');
    expect(constructSuffix(10, 0, 'DecimalSI')).toBe('');
    expect(constructSuffix(10, 1, 'DecimalSI')).toBeNull();
    expect(constructSuffix(10, 21, 'DecimalSI')).toBeNull();
    expect(constructSuffix(2, 0, 'DecimalSI')).toBe(''); // the table's extra ("", 2^0) entry
    expect(constructSuffix(2, 10, 'DecimalSI')).toBeNull();
    expect(constructSuffix(2, 10, 'BinarySI')).toBe('Ki');
    expect(constructSuffix(2, 60, 'BinarySI')).toBe('Ei');
    expect(constructSuffix(2, 0, 'BinarySI')).toBeNull();
    expect(constructSuffix(2, 70, 'BinarySI')).toBeNull();
    expect(constructSuffix(10, 3, 'BinarySI')).toBeNull();
    expect(constructSuffix(10, 0, 'DecimalExponent')).toBe('');
    expect(constructSuffix(10, -3, 'DecimalExponent')).toBe('e-3');
    expect(constructSuffix(10, 21, 'DecimalExponent')).toBe('e21');
    expect(constructSuffix(2, 10, 'DecimalExponent')).toBeNull();
    expect(constructSuffix(10, 3, '')).toBeNull();
  });
});
