/**
 * apimachinery's suffix table (suffix.go): what a quantity suffix means, and which suffix the
 * canonical form writes for a (base, exponent) pair.
 */
import type { QuantityFormat } from './types.js';
import { int32FromInt64, parseInt64 } from '../go/ints.js';

export interface SuffixMeaning {
  base: 2 | 10;
  exponent: number;
  format: Exclude<QuantityFormat, ''>;
}

const DECIMAL_SI: ReadonlyMap<string, number> = new Map([
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
]);

const BINARY_SI: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);

const DECIMAL_SI_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...DECIMAL_SI].map(([s, e]) => [e, s]));
const BINARY_SI_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...BINARY_SI].map(([s, e]) => [e, s]));

/** `quantitySuffixer.interpret`; `null` when Go reports `ok == false`. */
export function interpretSuffix(suffix: string): SuffixMeaning | null {
  const dec = DECIMAL_SI.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SI.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const parsed = parseInt64(suffix.slice(1));
    if (parsed === null) return null;
    // Go narrows the int64 exponent with int32(parsed): huge exponents wrap.
    return { base: 10, exponent: int32FromInt64(parsed), format: 'DecimalExponent' };
  }
  return null;
}

/**
 * `quantitySuffixer.constructBytes`. Returns `null` where Go returns `ok == false`; every caller
 * in CanonicalizeBytes (1.8–1.30) ignores `ok` and appends the nil suffix, which is how DecimalSI
 * values ≥ 10^21 lose their exponent.
 */
export function constructSuffix(base: 2 | 10, exponent: number, format: QuantityFormat): string | null {
  switch (format) {
    case 'DecimalSI':
      // The decimal table also maps (2, 0) to "" so that a bare BinarySI number needs no suffix.
      if (base === 2) return exponent === 0 ? '' : null;
      return DECIMAL_SI_BY_EXPONENT.get(exponent) ?? null;
    case 'BinarySI':
      return base === 2 ? (BINARY_SI_BY_EXPONENT.get(exponent) ?? null) : null;
    case 'DecimalExponent':
      if (base !== 10) return null;
      return exponent === 0 ? '' : `e${exponent}`;
    default:
      return null;
  }
}
