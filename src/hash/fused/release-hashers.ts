/**
 * Fused hashers per release and escape mode, compiled on first use from the pipeline's own
 * resolved type graph. Each returns the hash, or {@link NO_FUSED_HASH} when the input needs the
 * value-tree path (which then produces the result or the typed error exactly as before).
 */
import type { JsonEscapeMode } from '../../models/json-escapes.js';
import type { ReleaseInfo } from '../../releases/index.js';
import { pipelineFor } from '../pipeline.js';
import { compileFused, NotFusable, type FusedFn, type FusedTextFn } from './compile.js';
import { compileNameImage } from './name-image.js';

/** What a fused hasher returns when the tree path must decide (hashes are unsigned 32-bit). */
export const NO_FUSED_HASH = -1;

/** `HashContainer` (and `HashContainerWithoutResources` where the release has it) of a JSON-like input. */
export interface FusedHasher {
  hash: (container: unknown) => number;
  withoutResources: ((container: unknown) => number) | null;
  /** The same of container JSON text, right after its scan (see {@link FusedTextFn}; null: parse it, then `hash`). */
  text: FusedTextFn | null;
  textWithoutResources: FusedTextFn | null;
}

const NONE: FusedHasher = { hash: () => NO_FUSED_HASH, withoutResources: null, text: null, textWithoutResources: null };

/** Per release (the registry's info objects are shared), one hasher per escape mode. */
const cache = new Map<ReleaseInfo, Partial<Record<JsonEscapeMode, FusedHasher>>>();

// The last one asked for: callers hash many containers for one release in a row, and this skips the map.
let lastInfo: ReleaseInfo | undefined;
let lastEscapes: JsonEscapeMode | undefined;
let lastHasher: FusedHasher = NONE;

export function fusedHasherFor(info: ReleaseInfo, escapes?: JsonEscapeMode): FusedHasher {
  if (info === lastInfo && escapes === lastEscapes) return lastHasher;
  const mode = escapes ?? info.jsonEscapes ?? 'pre-go1.22';
  let byMode = cache.get(info);
  if (!byMode) cache.set(info, (byMode = {}));
  const hasher = (byMode[mode] ??= build(info, mode));
  lastInfo = info;
  lastEscapes = escapes;
  lastHasher = hasher;
  return hasher;
}

function build(info: ReleaseInfo, mode: JsonEscapeMode): FusedHasher {
  let fns: {
    hash: FusedFn;
    withoutResources: FusedFn | null;
    text: FusedTextFn | null;
    textWithoutResources: FusedTextFn | null;
    source?: string;
  };
  try {
    if (info.algorithm === 'name-image') fns = checkedNameImage(info, mode);
    else {
      const root = pipelineFor(info, mode).root;
      fns = compileFused(
        root,
        info.algorithm === 'legacy'
          ? { algorithm: 'legacy' }
          : { algorithm: 'json', escapes: mode, withoutResources: info.hashWithoutResources },
        `v${info.release}-${mode}`,
      );
    }
  } catch (err) {
    // A type graph outside what the generator covers, or no code generation allowed (CSP): tree path.
    if (err instanceof NotFusable || err instanceof EvalError) return NONE;
    throw err;
  }
  if (fns.source !== undefined) sources.set(`${info.release}/${mode}`, fns.source);
  return {
    hash: guarded(fns.hash),
    withoutResources: fns.withoutResources ? guarded(fns.withoutResources) : null,
    text: fns.text ? guarded(fns.text) : null,
    textWithoutResources: fns.textWithoutResources ? guarded(fns.textWithoutResources) : null,
  };
}

/**
 * 1.31+ hashes name and image, but a kubelet only hashes a container it decoded whole, so the
 * release's generated check (the JSON walk of its whole type graph, feeding nothing) runs first: a
 * malformed field anywhere goes to the tree path, whose full decode refuses it as at every release.
 * The name-image hasher then reads its two members without testing the object again.
 */
function checkedNameImage(
  info: ReleaseInfo,
  mode: JsonEscapeMode,
): { hash: FusedFn; withoutResources: null; text: FusedTextFn; textWithoutResources: null; source: string } {
  const check = compileFused(pipelineFor(info, mode).root, { algorithm: 'check' }, `v${info.release}-check`);
  const nameImage = compileNameImage(mode);
  const [checkObject, checkText, hashObject, hashText] = [check.hash, check.text, nameImage.hash, nameImage.text];
  return {
    hash: (c) => (checkObject(c), hashObject(c)),
    withoutResources: null,
    text: (sp) => (checkText(sp), hashText(sp)),
    textWithoutResources: null,
    source: check.source,
  };
}

/** Generated sources by `release/mode`, kept for {@link fusedSource}. */
const sources = new Map<string, string>();

/**
 * The generated JavaScript of one release's fused hashers (for 1.31+, the whole-container check
 * that runs before the hand-written name-image hasher). For debugging: `npm run dump:fused -- 1.29`.
 */
export function fusedSource(info: ReleaseInfo, escapes?: JsonEscapeMode): string | null {
  const mode = escapes ?? info.jsonEscapes ?? 'pre-go1.22';
  fusedHasherFor(info, mode);
  return sources.get(`${info.release}/${mode}`) ?? null;
}

let bugsThrow = false;

/**
 * Tests turn this on (test/support/setup.ts): a TypeError or RangeError inside a generated hasher is
 * then a generator bug and throws, instead of falling back to the tree path unnoticed.
 *
 * @internal
 */
export function throwFusedBugs(on: boolean): void {
  bugsThrow = on;
}

/** Any throw (the fallback signal, or a caller's getter) hands the input to the tree path. */
function guarded<T>(fn: (input: T) => number): (input: T) => number {
  return (input) => {
    try {
      return fn(input);
    } catch (e) {
      if (bugsThrow && (e instanceof TypeError || e instanceof RangeError)) throw e;
      return NO_FUSED_HASH;
    }
  };
}
