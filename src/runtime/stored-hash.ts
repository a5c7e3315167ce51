/**
 * How the kubelet stores and reads back its container hashes: annotation text written with
 * `strconv.FormatUint(h, 16)` and read with `strconv.ParseUint(text, 16, 64)`, where a missing or
 * unparsable value silently becomes 0 (kuberuntime/labels.go).
 */
import { HashFormatError } from '../errors.js';
import type { JsonPathSegment } from '../errors.js';

/** The CRI annotation keys the kubelet writes its hashes under. */
export const HASH_KEY = 'io.kubernetes.container.hash';
export const HASH_WITHOUT_RESOURCES_KEY = 'io.kubernetes.container.hashWithoutResources';

/** What ParseUint(s, 16, 64) accepts: 1+ hex digits of either case, no sign, prefix or underscores. */
const PARSE_UINT_HEX = /^[0-9A-Fa-f]+$/;
const UINT64_MAX = (1n << 64n) - 1n;

/** Hex text exactly as FormatUint(h, 16) writes it: lowercase, no leading zeros. */
const FORMAT_UINT_HEX = /^(?:0|[1-9a-f][0-9a-f]*)$/;

/**
 * The value the kubelet reads from a stored hash annotation: the uint64 it parses, or 0 when the
 * annotation is missing, empty, not hex or beyond 64 bits (the kubelet logs and uses 0).
 */
export function parseStoredHash(text: string | undefined): bigint {
  if (text === undefined || !PARSE_UINT_HEX.test(text)) return 0n;
  const value = BigInt(`0x${text}`);
  return value > UINT64_MAX ? 0n : value;
}

/**
 * Parses a hash a caller supplied as the one it expects to find. Unlike a stored value, bad text
 * here is the caller's mistake, so it is refused instead of read as 0.
 */
export function parseExpectedHash(text: string, path: readonly JsonPathSegment[]): bigint {
  if (typeof text !== 'string' || !PARSE_UINT_HEX.test(text) || BigInt(`0x${text}`) > UINT64_MAX) {
    throw new HashFormatError('INVALID_HASH', path, 'hex text of a uint64 (as strconv.FormatUint(h, 16) writes it)', `got ${JSON.stringify(text)}`);
  }
  return BigInt(`0x${text}`);
}

/** Checks that `text` is what the kubelet itself would write, since it is about to be stored. */
export function assertWritableHash(text: string, path: readonly JsonPathSegment[]): void {
  if (typeof text !== 'string' || !FORMAT_UINT_HEX.test(text) || BigInt(`0x${text}`) > UINT64_MAX) {
    throw new HashFormatError(
      'INVALID_HASH',
      path,
      'lowercase hex without leading zeros, at most 64 bits (strconv.FormatUint(h, 16))',
      `got ${JSON.stringify(text)}`,
    );
  }
}
