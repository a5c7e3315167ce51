/**
 * What the kubelet reads back about a running container: the stored hash(es). Accepts the
 * runtime's annotation map (CRI `status.annotations`, or docker labels, which dockershim and
 * cri-dockerd prefix with `annotation.`) or plain values (`{ hash, hashWithoutResources }`, also a
 * `ContainerRecordInfo` from the runtime module).
 */
import { z } from 'zod';
import { OptionError, type JsonPathSegment } from '../errors.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/registry.js';
import { DOCKER_ANNOTATION_PREFIX } from '../runtime/index.js';
import { hashValueSchema, readHashValue, type HashValueInput } from './options.js';


/**
 * The stored hashes of a running container: its annotation map (CRI `status.annotations`, or
 * docker labels with the `annotation.` prefix) or `{ hash, hashWithoutResources }`.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerStatusInput } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const statuses: ContainerStatusInput[] = [
 *   { 'io.kubernetes.container.hash': '590c88e0' }, // crictl inspect: status.annotations
 *   { 'annotation.io.kubernetes.container.hash': '590c88e0' }, // docker inspect: Config.Labels
 *   { hash: '590c88e0' },
 *   { hash: 0x590c88e0 },
 * ];
 * statuses.map((s) => containerChanged(web, s, { kubeletVersion: '1.29' }).changed); // → [false, false, false, false]
 * // A missing hash reads as 0, like the kubelet reads it: the container is restarted.
 * containerChanged(web, {}, { kubeletVersion: '1.29' }).changed; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export type ContainerStatusInput =
  | {
      /** The stored `io.kubernetes.container.hash` (hex text as stored, number or bigint); missing reads as 0. */
      hash?: HashValueInput | null;
      /** The stored `io.kubernetes.container.hashWithoutResources`; missing reads as 0. */
      hashWithoutResources?: HashValueInput | null;
    }
  | Readonly<Record<string, unknown>>;

/** The stored values as the kubelet reads them (missing or malformed text is 0). */
export interface StoredHashes {
  hash: bigint;
  hashWithoutResources: bigint;
  /** The text as stored, when given as text (for messages; the kubelet compares numbers). */
  hashText?: string;
  hashWithoutResourcesText?: string;
}

const statusSchema = z.record(z.string(), z.unknown());

/** Reads a status in any accepted form; throws {@link OptionError} for a non-object. */
export function readStoredHashes(status: unknown, path: JsonPathSegment[] = ['status']): StoredHashes {
  const parsed = statusSchema.safeParse(status);
  if (!parsed.success || Array.isArray(status)) {
    throw new OptionError('INVALID_OPTION', path, `the stored annotations ({ "${HASH_KEY}": "…" }) or { hash, hashWithoutResources }`);
  }
  const map = status as Record<string, unknown>;
  const [hashKey, wrKey] = annotationKeys(map) ?? ['hash', 'hashWithoutResources'];
  const rawHash = map[hashKey];
  const rawWr = map[wrKey];
  for (const [key, v] of [[hashKey, rawHash], [wrKey, rawWr]] as const) {
    if (v !== undefined && v !== null && !hashValueSchema.safeParse(v).success) {
      throw new OptionError('INVALID_OPTION', [...path, key], 'a hash as stored (hex text), a number or a bigint', `found ${typeof v}`);
    }
  }
  const out: StoredHashes = {
    hash: readHashValue(rawHash, [...path, hashKey]),
    hashWithoutResources: readHashValue(rawWr, [...path, wrKey]),
  };
  if (typeof rawHash === 'string') out.hashText = rawHash;
  if (typeof rawWr === 'string') out.hashWithoutResourcesText = rawWr;
  return out;
}

/** The keys to read when `map` is an annotation map (CRI or docker-style), else null. */
function annotationKeys(map: Record<string, unknown>): [string, string] | null {
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(map, k);
  if (has(HASH_KEY) || has(HASH_WITHOUT_RESOURCES_KEY)) return [HASH_KEY, HASH_WITHOUT_RESOURCES_KEY];
  if (has(DOCKER_ANNOTATION_PREFIX + HASH_KEY) || has(DOCKER_ANNOTATION_PREFIX + HASH_WITHOUT_RESOURCES_KEY)) {
    return [DOCKER_ANNOTATION_PREFIX + HASH_KEY, DOCKER_ANNOTATION_PREFIX + HASH_WITHOUT_RESOURCES_KEY];
  }
  // An annotation/label map that stores no hash at all: the kubelet reads 0.
  if (!has('hash') && !has('hashWithoutResources') && Object.keys(map).some((k) => k.includes('io.kubernetes.'))) {
    return [HASH_KEY, HASH_WITHOUT_RESOURCES_KEY];
  }
  return null;
}
