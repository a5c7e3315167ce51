/**
 * The fused path for one container input, object or JSON text: returns the hash, or
 * {@link NO_FUSED_HASH} when the caller must run the decode→encode path on the original input.
 */
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import type { ReleaseInfo } from '../../releases/index.js';
import type { FusedTextFn } from './compile.js';
import { fusedHasherFor, NO_FUSED_HASH } from './release-hashers.js';
import { releaseScanScratch, scanContainerText, TEXT_DOUBT, type TopLevelSpans } from './text.js';
import { utf8Text } from './utf8-text.js';

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

/** The fused hash of a text input ({@link NO_FUSED_HASH} when the tree path decides) and, with a hash, what its scan saw. */
export interface FusedTextHash {
  hash: number;
  /** Null when there is no hash (the tree path parses the text and checks it itself). */
  shape: TextShape | null;
}

const NO_TEXT_HASH: FusedTextHash = Object.freeze({ hash: NO_FUSED_HASH, shape: null });

/** `HashContainer` (or, with `withoutResources`, `HashContainerWithoutResources`) without a value tree. */
export function fusedHash(
  container: unknown,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources = false,
): number {
  if (typeof container === 'string') return fusedTextHash(container, info, escapes, withoutResources).hash;
  const hasher = fusedHasherFor(info, escapes);
  const fn = withoutResources ? hasher.withoutResources : hasher.hash;
  return fn === null ? NO_FUSED_HASH : fn(container);
}

/** {@link fusedHash} of container JSON text, with what the scan saw of its root object. */
export function fusedTextHash(
  text: string,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources = false,
): FusedTextHash {
  const hasher = fusedHasherFor(info, escapes);
  const textFn = withoutResources ? hasher.textWithoutResources : hasher.text;
  if (textFn === null) return NO_TEXT_HASH;
  return fusedTextHashWith(text, textFn);
}

/** {@link fusedTextHash} with the release's text hasher already in hand (a kubelet handle holds it). */
export function fusedTextHashWith(text: string, textFn: FusedTextFn): FusedTextHash {
  const result = scanAndHash(text, textFn);
  if (text.length > LARGE_TEXT) releaseScanScratch();
  return result;
}

function scanAndHash(text: string, textFn: FusedTextFn): FusedTextHash {
  // The tape is recorded for every release: 1.31+ hashes two members but checks the whole container on it.
  if (scanContainerText(text, spans, true) === TEXT_DOUBT) return NO_TEXT_HASH;
  // 1.31+ hashes the two members the scan found; the tape walks hash escaped strings by their decoded
  // value and leave escaped quantities and numbers that are not short integers to the tree path.
  const hash = textFn(spans);
  if (hash === NO_FUSED_HASH) return NO_TEXT_HASH;
  return {
    hash,
    shape: {
      notContainerKey: spans.notContainerKey,
      // A string value with anything between its quotes decodes to a non-empty string.
      hasName: spans.nameEnd - spans.nameStart > 2 && utf8Text.bytes[spans.nameStart] === 0x22,
    },
  };
}
