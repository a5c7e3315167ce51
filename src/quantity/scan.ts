/**
 * apimachinery's `parseQuantityString`: splits a quantity into sign, numeric text, integer digits
 * (leading zeros stripped), fraction digits and suffix. It works on bytes in Go; every byte it
 * tests for is ASCII, so scanning UTF-16 code units gives the same splits and the same errors.
 */

export interface QuantityParts {
  positive: boolean;
  /** The signed number text as written (sign, leading zeros and `.` kept); what inf.Dec parses. */
  value: string;
  /** Integer digits without leading zeros; `"0"` when none are left. */
  num: string;
  /** Fraction digits, possibly empty. */
  denom: string;
  suffix: string;
}

const SUFFIX_LETTERS = 'eEinumkKMGTP';

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Returns the parts, or `null` where Go returns ErrFormatWrong. */
export function scanQuantity(str: string): QuantityParts | null {
  let positive = true;
  let pos = 0;
  const end = str.length;

  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') {
      pos++;
    }
  }

  // Leading zeros; a string of nothing but sign and zeros is the number 0 with no suffix.
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };

  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num.length === 0) num = '0';

  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);

  // Suffix: letters from the suffix alphabet, an optional sign, then digits to the end.
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_LETTERS.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return null;
}

/** Longest quantity text shown in a message. */
const SHOWN_CHARS = 40;

/**
 * Why {@link scanQuantity} refused `str`, in words. Go's message names the regular expression
 * `^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$`, which texts such as `1.5.3` match although the
 * parser refuses them (it reads one `.` only): this says what it read as the number and what it
 * could not read as a suffix.
 */
export function formatWrongReason(str: string): string {
  const shown = JSON.stringify(str.length > SHOWN_CHARS ? `${str.slice(0, SHOWN_CHARS)}…` : str);
  if (str.length === 0) return 'found an empty text';
  let pos = str[0] === '-' || str[0] === '+' ? 1 : 0;
  while (isDigit(str[pos])) pos++;
  if (str[pos] === '.') {
    pos++;
    while (isDigit(str[pos])) pos++;
  }
  const number = str.slice(0, pos);
  const rest = str.slice(pos);
  const restShown = JSON.stringify(rest.length > SHOWN_CHARS ? `${rest.slice(0, SHOWN_CHARS)}…` : rest);
  if (number.replace(/[-+]/, '') === '') return `found ${shown}: no number before ${restShown}`;
  return `found ${shown}: ${JSON.stringify(number)} is the number and ${restShown} is no suffix: a suffix is m, k, M, G, Ki, Mi, Gi… or an exponent such as e3, and a number has one "." at most`;
}
