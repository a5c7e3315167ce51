/**
 * The per-plan cache of container spec hashes (`from` and `to` release). Identity first: a
 * container object seen before costs a Map lookup. A new object is hashed by the fused hashers
 * (about a microsecond per release) and compared structurally with the earlier specs of the same
 * hash pair, so DaemonSet copies share one entry without building a text key. Containers the fused
 * hashers hand to the value-tree path (errors, bigints, number spellings) are keyed by
 * {@link stableKey}: there the decode is the cost, and dedup pays.
 */
import { KubeletHashError } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { DECODE_ONLY, hashesFor, quickHash, type ReleaseHashes } from '../hash/hashes-for.js';
import type { ReleaseInfo } from '../releases/index.js';
import { stableKey } from '../json/stable-key.js';

/** Hashes of one distinct spec for both releases, computed once and shared by every copy. */
interface SpecHashes {
  from: ReleaseHashes;
  to: ReleaseHashes;
}

type CachedSpec = { ok: SpecHashes } | { error: string };

/** Earlier specs compared per hash pair; beyond this many (1.31+ hashes only name and image) a spec is hashed anew. */
const BUCKET_LIMIT = 8;
/** Deeper than any container spec: structural comparison gives up (not equal) instead of recursing on. */
const MAX_DEPTH = 64;

export interface SpecCache {
  get(container: object): CachedSpec;
  /** How many specs were hashed (the rest came from the cache). */
  readonly distinct: number;
}

export function specCache(
  from: ReleaseInfo,
  to: ReleaseInfo,
  fromEscapes?: JsonEscapeMode,
  toEscapes?: JsonEscapeMode,
): SpecCache {
  const byObject = new Map<object, CachedSpec>();
  const byHashes = new Map<number, { spec: unknown; cached: CachedSpec }[]>();
  const byKey = new Map<string, CachedSpec>();
  let distinct = 0;

  const compute = (container: object, f?: number, t?: number): CachedSpec => {
    distinct++;
    try {
      return {
        ok: {
          from: hashesFor(container, from, fromEscapes, DECODE_ONLY, f),
          to: hashesFor(container, to, toEscapes, DECODE_ONLY, t),
        },
      };
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      return { error: e.message };
    }
  };

  const lookup = (container: object): CachedSpec => {
    const f = quickHash(container, from, fromEscapes);
    const t = f === undefined ? undefined : quickHash(container, to, toEscapes);
    if (f !== undefined && t !== undefined) {
      const pair = f * 0x100000000 + t; // rounded above 2^53: only a bucket, the comparison decides
      let bucket = byHashes.get(pair);
      if (!bucket) byHashes.set(pair, (bucket = []));
      for (const b of bucket) if (sameJson(b.spec, container, 0)) return b.cached;
      const cached = compute(container, f, t);
      if (bucket.length < BUCKET_LIMIT) bucket.push({ spec: container, cached });
      return cached;
    }
    const key = stableKey(container);
    let cached = byKey.get(key);
    if (!cached) byKey.set(key, (cached = compute(container)));
    return cached;
  };

  return {
    get(container) {
      let cached = byObject.get(container);
      if (!cached) byObject.set(container, (cached = lookup(container)));
      return cached;
    },
    get distinct() {
      return distinct;
    },
  };
}

/**
 * Structural equality of two JSON-like values, stricter than any difference the hashers see:
 * primitives by `Object.is`, arrays by element, other objects by their own enumerable members that
 * are not `undefined` (what the decoder reads), ignoring member order.
 */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_DEPTH) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  if (kx.length === ky.length && kx.every((k, i) => k === ky[i])) {
    // Same own enumerable members in the same order (copies of one spec): compare values in place.
    for (const k of kx) if (!sameJson(x[k], y[k], depth + 1)) return false;
    return true;
  }
  let n = 0;
  for (const k in x) {
    if (!Object.prototype.propertyIsEnumerable.call(x, k) || x[k] === undefined) continue;
    if (!Object.prototype.propertyIsEnumerable.call(y, k) || !sameJson(x[k], y[k], depth + 1)) return false;
    n++;
  }
  for (const k in y) if (Object.prototype.propertyIsEnumerable.call(y, k) && y[k] !== undefined) n--;
  return n === 0;
}
