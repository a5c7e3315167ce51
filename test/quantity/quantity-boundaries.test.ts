/**
 * BinarySI/DecimalSI boundaries of apimachinery's `Quantity.String()` (CanonicalizeBytes), pinned
 * to Go semantics worked out by hand from quantity.go, not to our own output:
 *
 * - a BinarySI value strictly between -1024 and 1024 prints as DecimalSI (`q.CmpInt64(-1024) > 0 &&
 *   q.CmpInt64(1024) < 0`), so exactly ±1024 keeps its binary suffix;
 * - a BinarySI value that `AsScale(0)` cannot hold exactly prints as DecimalSI (never rounded);
 * - DecimalSI steps its exponent to a multiple of 3 and never uses a binary suffix.
 *
 * The apiserver re-serialises the user's text with `String()`; the kubelet parses that canonical
 * text back (ParseQuantity keeps the text as the cached `s` when it already looks canonical). So a
 * spelling hashes exactly like its canonical spelling, in every release, and the legacy pre-image
 * shows the layout the kubelet parsed from the canonical text.
 */
import { describe, expect, it } from 'vitest';
import { hashContainer, preimage, releaseInfo, supportedReleases } from '../../src/index.js';
import { parseQuantity, quantityString, roundTripQuantity, type QuantityValue } from '../../src/quantity/quantity.js';
import { oracleCase, oracleRow } from '../support/oracle.js';
import { spewQuantity } from '../support/spew-quantity.js';

type Row = [
  input: string,
  canonical: string,
  kubelet: [value: bigint, scale: number, s: string, format: QuantityValue['Format']],
];

/** input → canonical text → what the kubelet parses from that text (int64Amount, cached s, Format). */
const ROWS: Row[] = [
  // Exactly 1024 / -1024 (inf.Dec path because of the fraction): outside the open interval, so BinarySI.
  ['1.0Ki', '1Ki', [1024n, 0, '1Ki', 'BinarySI']],
  ['-1.0Ki', '-1Ki', [-1024n, 0, '-1Ki', 'BinarySI']],
  // 1023 / -1023 as BinarySI: inside the interval, so DecimalSI without a suffix.
  ['0.9990234375Ki', '1023', [1023n, 0, '1023', 'DecimalSI']],
  ['-0.9990234375Ki', '-1023', [-1023n, 0, '-1023', 'DecimalSI']],
  // 1025 stays BinarySI but is no multiple of 1024: no suffix; the kubelet then reads it as DecimalSI.
  ['1.0009765625Ki', '1025', [1025n, 0, '1025', 'DecimalSI']],
  ['-1.0009765625Ki', '-1025', [-1025n, 0, '-1025', 'DecimalSI']],
  // 1024.5 as BinarySI: AsScale(0) is inexact, so DecimalSI, exponent stepped down to -3 (milli).
  ['1.00048828125Ki', '1024500m', [1024500n, -3, '1024500m', 'DecimalSI']],
  // 512 as BinarySI (from a fraction of Ki): inside the interval.
  ['0.5Ki', '512', [512n, 0, '512', 'DecimalSI']],
  // Suffix changes: 1024Ki is one Mi; the fast path does not keep "1024Ki" (1024 & 7 == 0).
  ['1024Ki', '1Mi', [1048576n, 0, '1Mi', 'BinarySI']],
  // DecimalSI never takes a binary suffix, not even at 1024.
  ['1024', '1024', [1024n, 0, '1024', 'DecimalSI']],
  // DecimalSI ±1000: trailing zeros become the k suffix; 999 has none.
  ['1000', '1k', [1n, 3, '1k', 'DecimalSI']],
  ['-1000', '-1k', [-1n, 3, '-1k', 'DecimalSI']],
  ['999', '999', [999n, 0, '999', 'DecimalSI']],
  ['1000m', '1', [1n, 0, '1', 'DecimalSI']],
  // Zero in any format prints "0", which ParseQuantity special-cases as DecimalSI with s "0".
  ['0Ki', '0', [0n, 0, '0', 'DecimalSI']],
  ['0m', '0', [0n, 0, '0', 'DecimalSI']],
  // 1000 as BinarySI (a fraction of Ki): inside the interval, so DecimalSI, which writes k.
  ['0.9765625Ki', '1k', [1n, 3, '1k', 'DecimalSI']],
  // ParseQuantity's int64 fast path at its precision limit (precision == 0): 18 digits, or 11 digits of Ki.
  ['123456789012345678', '123456789012345678', [123456789012345678n, 0, '123456789012345678', 'DecimalSI']],
  ['12345678901Ki', '12345678901Ki', [12641975194624n, 0, '12345678901Ki', 'BinarySI']],
];

const LEGACY = supportedReleases().filter((r) => releaseInfo(r).algorithm === 'legacy');
const JSON_ERA = supportedReleases().filter((r) => releaseInfo(r).algorithm === 'json');

const withMemory = (q: string): object => ({ name: 'q', image: 'i', resources: { limits: { memory: q } } });

describe('BinarySI/DecimalSI boundaries (apimachinery CanonicalizeBytes)', () => {
  it('covers the three eras', () => {
    expect(LEGACY.length).toBeGreaterThan(0);
    expect(JSON_ERA.length).toBeGreaterThan(0);
  });

  it.each(ROWS)('%s: canonical %s, and the kubelet holds what it parses from that text', (input, canonical, layout) => {
    const [value, scale, s, Format] = layout;
    const parsed = parseQuantity(input);
    expect(quantityString(parsed)).toBe(canonical);
    expect(roundTripQuantity(parsed)).toEqual({ i: { value, scale }, d: { Dec: null }, s, Format });
  });

  it.each(ROWS)(
    '%s hashes like %s in every release; pre-images show the canonical text and Go layout',
    (input, canonical, layout) => {
      const [value, scale, s, Format] = layout;
      for (const release of supportedReleases()) {
        const options = { kubeletVersion: release };
        expect(hashContainer(withMemory(input), options), release).toBe(hashContainer(withMemory(canonical), options));
      }
      const goValue: QuantityValue = { i: { value, scale }, d: { Dec: null }, s, Format };
      for (const release of LEGACY) {
        expect(preimage(withMemory(input), { kubeletVersion: release }).text).toContain(
          `memory:${spewQuantity(goValue)}`,
        );
      }
      for (const release of JSON_ERA) {
        expect(preimage(withMemory(input), { kubeletVersion: release }).text).toContain(
          `"limits":{"memory":"${canonical}"}`,
        );
      }
    },
  );

  it('"1.0Ki" everywhere hashes exactly like the oracle case that spells "1Ki" (every release)', () => {
    const container = oracleCase('qty-1Ki').container as { resources: { limits: object; requests: object } };
    const respelled = JSON.parse(JSON.stringify(container).replaceAll('"1Ki"', '"1.0Ki"')) as object;
    expect(JSON.stringify(respelled)).toContain('1.0Ki');
    for (const release of supportedReleases()) {
      expect(hashContainer(respelled, { kubeletVersion: release }), release).toBe(oracleRow('qty-1Ki', release).hash);
    }
  });

  it('1024 spelled in DecimalSI does not hash like 1Ki in the legacy and JSON eras', () => {
    for (const release of [...LEGACY, ...JSON_ERA]) {
      const options = { kubeletVersion: release };
      expect(hashContainer(withMemory('1024'), options), release).not.toBe(hashContainer(withMemory('1Ki'), options));
    }
  });
});
