import { describe, expect, it } from 'vitest';
import { HashFormatError, formatHash, parseHash } from '../../src/index.js';
import { storedHashValue } from '../../src/hash/format.js';

describe('hash text', () => {
  it('formats like strconv.FormatUint(h, 16): lowercase, no padding', () => {
    expect(formatHash(0x311670a)).toBe('311670a');
    expect(formatHash(0)).toBe('0');
    expect(formatHash(0xffffffffn)).toBe('ffffffff');
    expect(formatHash(2n ** 64n - 1n)).toBe('ffffffffffffffff');
  });

  it('refuses values that are not uint64', () => {
    for (const bad of [-1, 1.5, 2 ** 60, -1n, 2n ** 64n]) expect(() => formatHash(bad)).toThrow(HashFormatError);
  });

  it('parses like strconv.ParseUint(s, 16, 64)', () => {
    expect(parseHash('311670a')).toBe(0x311670an);
    expect(parseHash('DEADBEEF')).toBe(0xdeadbeefn);
    expect(parseHash('0000ff')).toBe(255n);
    for (const bad of ['', '0x1f', ' 1f', '1f ', '-1', '+1', 'g', '1_0', '10000000000000000']) {
      expect(() => parseHash(bad)).toThrow(HashFormatError);
    }
  });

  it("reads a missing or malformed stored hash as 0, like the kubelet's getUint64ValueFromLabel", () => {
    expect(storedHashValue(undefined)).toBe(0n);
    expect(storedHashValue('zz')).toBe(0n);
    expect(storedHashValue('a')).toBe(10n);
  });
});
