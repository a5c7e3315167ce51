/**
 * The fused path for one container input, object or JSON text: returns the hash, or
 * {@link NO_FUSED_HASH} when the caller must run the decode→encode path on the original input.
 */
import type { JsonEscapeMode } from '../../encode/gojson-string.js';
import type { ReleaseInfo } from '../../releases/registry.js';
import type { FusedFn, FusedTextFn } from './compile.js';
import { fusedHasherFor, NO_FUSED_HASH } from './hasher.js';
import { releaseScanScratch, scanContainerText, TEXT_DOUBT, TEXT_FAITHFUL, type TopLevelSpans } from './text.js';

/** Text this long may have grown the scan's scratch and tape beyond what is kept between calls. */
const LARGE_TEXT = 1 << 18;

export { NO_FUSED_HASH };

const spans: TopLevelSpans = {
  nameStart: -1,
  nameEnd: -1,
  imageStart: -1,
  imageEnd: -1,
  nameEscaped: false,
  imageEscaped: false,
  notContainerKey: false,
};

/**
 * What the scan of a text input tells the front end's container checks, so they need no tree: a
 * member no container has (a Pod's `kind`, a pod spec's `containers`…) and a non-empty string `name`.
 */
export interface TextShape {
  notContainerKey: boolean;
  hasName: boolean;
}

/**
 * `HashContainer` (or, with `withoutResources`, `HashContainerWithoutResources`) without a value tree.
 * For text input, `shape` (when given) receives what the scan saw of the root object.
 */
export function fusedHash(
  container: unknown,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources = false,
  shape?: TextShape,
): number {
  const hasher = fusedHasherFor(info, escapes);
  const fn = withoutResources ? hasher.withoutResources : hasher.hash;
  if (fn === null) return NO_FUSED_HASH;
  if (typeof container !== 'string') return fn(container);
  const h = fusedTextHash(container, info, fn, withoutResources ? hasher.textWithoutResources : hasher.text, shape);
  if (container.length > LARGE_TEXT) releaseScanScratch();
  return h;
}

function fusedTextHash(
  text: string,
  info: ReleaseInfo,
  fn: FusedFn,
  textFn: FusedTextFn | null,
  shape: TextShape | undefined,
): number {
  // The tape is recorded for the hashers that read it: not for 1.31+, which reads two members.
  const kind = scanContainerText(text, spans, info.algorithm !== 'name-image');
  if (kind === TEXT_DOUBT) return NO_FUSED_HASH;
  if (shape) {
    shape.notContainerKey = spans.notContainerKey;
    // A string value with anything between its quotes decodes to a non-empty string.
    shape.hasName = spans.nameEnd - spans.nameStart > 2 && text.charCodeAt(spans.nameStart) === 0x22;
  }
  // 1.31+ hashes two members: the scan validated the text and found them.
  if (info.algorithm === 'name-image') return textFn ? textFn(text, spans) : NO_FUSED_HASH;
  // The tape walk also reads valid text that is not faithful: it hashes escaped strings by their
  // decoded value, leaves escaped quantities and numbers that are not short integers to the tree path.
  if (textFn) return textFn(text, spans);
  return kind === TEXT_FAITHFUL ? fn(JSON.parse(text)) : NO_FUSED_HASH;
}
