/**
 * apimachinery's `parseQuantityString` on its own, each expectation traced through the Go scanner
 * by hand: sign, leading zeros, integer and fraction digits, the suffix alphabet, an optional
 * exponent sign and digits, and ErrFormatWrong for anything after that.
 */
import { describe, expect, it } from 'vitest';
import { scanQuantity } from '../../src/quantity/scan.js';

const parts = (positive: boolean, value: string, num: string, denom: string, suffix: string) => ({
  positive,
  value,
  num,
  denom,
  suffix,
});

describe('parseQuantityString', () => {
  it.each([
    ['', parts(true, '0', '0', '', '')],
    ['-', parts(false, '0', '0', '', '')],
    ['00', parts(true, '0', '0', '', '')],
    ['007', parts(true, '007', '7', '', '')],
    ['+1', parts(true, '+1', '1', '', '')],
    ['-0.5m', parts(false, '-0.5', '0', '5', 'm')],
    ['0.000', parts(true, '0.000', '0', '000', '')],
    ['1.', parts(true, '1.', '1', '', '')],
    ['1.5', parts(true, '1.5', '1', '5', '')],
    ['12Ki', parts(true, '12', '12', '', 'Ki')],
    ['1e-3', parts(true, '1', '1', '', 'e-3')],
    ['1E+30', parts(true, '1', '1', '', 'E+30')],
    ['5e', parts(true, '5', '5', '', 'e')],
    ['.5', parts(true, '.5', '0', '5', '')],
    // A lone exponent sign ends the scan; interpreting the suffix fails later.
    ['1e-', parts(true, '1', '1', '', 'e-')],
    ['1-', parts(true, '1', '1', '', '-')],
  ])('%j splits like Go', (input, expected) => {
    expect(scanQuantity(input)).toEqual(expected);
  });

  it.each(['1Qi', '1.5.5', '1 ', '1Ki5x', '1e3.5', '\u0661', '1+x'])('%j is ErrFormatWrong', (input) => {
    expect(scanQuantity(input)).toBeNull();
  });
});
