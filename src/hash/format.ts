/**
 * The kubelet's text form of a hash: `strconv.FormatUint(h, 16)` to write (lowercase, no padding,
 * no `0x`) and `strconv.ParseUint(s, 16, 64)` to read back.
 */
import { HashFormatError, type JsonPathSegment } from '../errors.js';
import { MAX_UINT64 } from '../go/ints.js';

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const HEX1 = Array.from({ length: 256 }, (_, i) => i.toString(16));

/**
 * A 32-bit hash (every `HashContainer` result) as the kubelet writes it, `strconv.FormatUint(uint64(h), 16)`,
 * by byte table (no BigInt, no toString): the per-hash hot path.
 */
export function hex32(h: number): string {
  const a = h >>> 24;
  const b = (h >>> 16) & 0xff;
  const c = (h >>> 8) & 0xff;
  const d = h & 0xff;
  if (a !== 0) return HEX1[a]! + HEX2[b]! + HEX2[c]! + HEX2[d]!;
  if (b !== 0) return HEX1[b]! + HEX2[c]! + HEX2[d]!;
  if (c !== 0) return HEX1[c]! + HEX2[d]!;
  return HEX1[d]!;
}

/** What strconv.ParseUint(s, 16, 64) accepts: hex digits of either case, nothing else. */
const PARSE_UINT_HEX = /^[0-9a-fA-F]+$/;

/**
 * Formats a hash value as the kubelet stores it (`strconv.FormatUint(h, 16)`). Throws
 * {@link HashFormatError} `INVALID_HASH` for anything but an unsigned 64-bit integer.
 *
 * @example
 * ```ts
 * import { formatHash } from 'kubelet-hash';
 *
 * formatHash(0x311670a); // → '311670a'
 * // No padding: leading zeros are not written.
 * formatHash(0x0abcn); // → 'abc'
 * ```
 *
 * @group Hashing
 */
export function formatHash(value: number | bigint): string {
  // Every hash a kubelet writes fits 32 bits: format those by table (a node-wide plan formats thousands).
  if (
    typeof value === 'bigint'
      ? value >= 0n && value <= 0xffffffffn
      : value >= 0 && value <= 0xffffffff && Number.isInteger(value)
  ) {
    return hex32(Number(value));
  }
  const v = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value) : null;
  if (v === null || v < 0n || v > MAX_UINT64) {
    throw new HashFormatError(
      'INVALID_HASH',
      [],
      'an unsigned 64-bit integer (number or bigint)',
      `found ${String(value)}`,
    );
  }
  return v.toString(16);
}

/**
 * Parses a stored hash exactly as `strconv.ParseUint(s, 16, 64)` does: hex digits of either case,
 * no prefix, no sign, no spaces, at most 2^64-1. Returns a bigint so no value loses precision.
 * Throws {@link HashFormatError} `INVALID_HASH` (at `path`) for anything else.
 *
 * @example
 * ```ts
 * import { parseHash, HashFormatError } from 'kubelet-hash';
 *
 * parseHash('311670a'); // → 0x311670an
 * parseHash('0311670A'); // → 0x311670an
 * try {
 *   parseHash('0x311670a');
 * } catch (e) {
 *   e instanceof HashFormatError && e.code; // → 'INVALID_HASH'
 * }
 * ```
 *
 * @group Hashing
 */
export function parseHash(text: unknown, path: readonly JsonPathSegment[] = []): bigint {
  if (typeof text !== 'string' || !PARSE_UINT_HEX.test(text)) {
    throw new HashFormatError(
      'INVALID_HASH',
      path,
      'hex digits as the kubelet writes them, e.g. "311670a"',
      `found ${JSON.stringify(text)}`,
    );
  }
  const v = BigInt('0x' + text);
  if (v > MAX_UINT64) throw new HashFormatError('INVALID_HASH', path, 'a value below 2^64', `found ${text}`);
  return v;
}

/**
 * Checks that `text` is exactly what `strconv.FormatUint(h, 16)` writes (lowercase, no leading
 * zeros, at most 64 bits): a hash about to be stored must look like one the kubelet wrote.
 */
export function assertCanonicalHash(text: unknown, path: readonly JsonPathSegment[] = []): asserts text is string {
  if (typeof text !== 'string' || !/^(?:0|[1-9a-f][0-9a-f]*)$/.test(text) || BigInt('0x' + text) > MAX_UINT64) {
    throw new HashFormatError(
      'INVALID_HASH',
      path,
      'lowercase hex without leading zeros, at most 64 bits (strconv.FormatUint(h, 16))',
      `found ${JSON.stringify(text)}`,
    );
  }
}

/** The kubelet's `getUint64ValueFromLabel`: a missing or malformed stored hash reads as 0. */
export function storedHashValue(text: unknown): bigint {
  // No error is built for a bad label: a node-wide plan reads thousands of them.
  if (typeof text !== 'string' || !PARSE_UINT_HEX.test(text)) return 0n;
  const v = BigInt('0x' + text);
  return v > MAX_UINT64 ? 0n : v;
}
