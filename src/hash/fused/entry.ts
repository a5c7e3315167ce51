/**
 * The fused path for one container input, object or JSON text: returns the hash, or
 * {@link NO_FUSED_HASH} when the caller must run the decode→encode path on the original input.
 */
import type { JsonEscapeMode } from '../../encode/gojson-string.js';
import type { ReleaseInfo } from '../../releases/registry.js';
import { fusedHasherFor, NO_FUSED_HASH } from './hasher.js';
import { scanContainerText, TEXT_DOUBT, TEXT_FAITHFUL, type TopLevelSpans } from './text.js';

export { NO_FUSED_HASH };

const spans: TopLevelSpans = { nameStart: -1, nameEnd: -1, imageStart: -1, imageEnd: -1 };

/**
 * `HashContainer` (or, with `withoutResources`, `HashContainerWithoutResources`) without a value tree.
 * When `parsed` is given and the whole text was parsed (releases before 1.31), it receives that JSON value.
 */
export function fusedHash(
  container: unknown,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources = false,
  parsed?: { value: unknown },
): number {
  const hasher = fusedHasherFor(info, escapes);
  const fn = withoutResources ? hasher.withoutResources : hasher.hash;
  if (fn === null) return NO_FUSED_HASH;
  if (typeof container !== 'string') return fn(container);
  if (info.algorithm === 'name-image') {
    // 1.31+ hashes two members: scan (and so validate) the text, parse only those two values.
    if (scanContainerText(container, spans) === TEXT_DOUBT) return NO_FUSED_HASH;
    return fn({
      name: member(container, spans.nameStart, spans.nameEnd),
      image: member(container, spans.imageStart, spans.imageEnd),
    });
  }
  if (scanContainerText(container) !== TEXT_FAITHFUL) return NO_FUSED_HASH;
  const value: unknown = JSON.parse(container);
  if (parsed) parsed.value = value; // the caller's checks read this tree instead of parsing the text again
  return fn(value);
}

/** A top-level member's value from its text span (valid JSON, so JSON.parse reads a string as parseJson would). */
function member(text: string, start: number, end: number): unknown {
  if (start < 0) return undefined;
  if (text.charCodeAt(start) === 0x22) {
    const inner = text.slice(start + 1, end - 1);
    return inner.includes('\\') ? JSON.parse(text.slice(start, end)) : inner;
  }
  return JSON.parse(text.slice(start, end));
}
