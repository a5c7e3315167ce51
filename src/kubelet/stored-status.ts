/**
 * What the kubelet reads back about a running container: the stored hash(es). Accepts the
 * runtime's annotation map (CRI `status.annotations`, or docker labels, which dockershim and
 * cri-dockerd prefix with `annotation.`) or plain values (`{ hash, hashWithoutResources }`, also a
 * `ContainerRecordInfo` from the runtime module).
 */
import { HashFormatError, OptionError, type JsonPathSegment } from '../errors.js';
import { describeOptionValue, isObjectLike } from '../option-fields.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/index.js';
import { DOCKER_ANNOTATION_PREFIX } from '../runtime-records/index.js';
import { readHashValue, type HashValueInput, type StoredHashReading } from './options.js';

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
 * // A missing hash is refused unless read as the kubelet reads its own labels (0: restarted).
 * containerChanged(web, {}, { kubeletVersion: '1.29', storedHashReading: 'kubelet' }).changed; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export type ContainerStatusInput =
  | {
      /** The stored `io.kubernetes.container.hash` (hex text as stored, number or bigint); required unless reading as the kubelet does. */
      hash?: HashValueInput | null;
      /** The stored `io.kubernetes.container.hashWithoutResources` (1.27–1.30 with in-place resize); missing reads as 0. */
      hashWithoutResources?: HashValueInput | null;
    }
  | Readonly<Record<string, unknown>>;

/** The stored values (0 where absent; malformed text is 0 only with the kubelet's reading). */
export interface StoredHashes {
  hash: bigint;
  hashWithoutResources: bigint;
  /** The text as stored, when given as text (for messages; the kubelet compares numbers). */
  hashText?: string;
  hashWithoutResourcesText?: string;
}

/** What a status is, for messages. */
const STATUS_EXPECTED = `the stored annotations ({ "${HASH_KEY}": "…" }) or { hash, hashWithoutResources }`;

/**
 * Reads a status in any accepted form; throws {@link OptionError} for a non-object. With the
 * `strict` reading a status without the hash is refused (`MISSING_HASH`) and non-hex text too
 * (`INVALID_HASH`); with `kubelet` both read as 0, as the kubelet reads its own labels.
 */
export function readStoredHashes(
  status: unknown,
  path: JsonPathSegment[] = ['status'],
  reading: StoredHashReading = 'strict',
): StoredHashes {
  // An object of any keys (a null-prototype one from parseJson too); an array is no status.
  if (!isObjectLike(status))
    throw new OptionError('INVALID_OPTION', path, STATUS_EXPECTED, `found ${describeOptionValue(status)}`);
  const map = status;
  const [hashKey, wrKey] = annotationKeys(map) ?? ['hash', 'hashWithoutResources'];
  const rawHash = map[hashKey];
  const rawWr = map[wrKey];
  for (const [key, v] of [
    [hashKey, rawHash],
    [wrKey, rawWr],
  ] as const) {
    if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint')
      continue;
    throw new OptionError(
      'INVALID_OPTION',
      [...path, key],
      'a hash as stored (hex text), a number or a bigint',
      `found ${describeOptionValue(v)}`,
    );
  }
  if (reading === 'strict' && (rawHash === undefined || rawHash === null)) {
    throw new HashFormatError(
      'MISSING_HASH',
      [...path, hashKey],
      `the stored kubelet hash (${HASH_KEY}); pass storedHashReading: "kubelet" to read a missing hash as the kubelet does (0: restart)`,
      `found none among ${JSON.stringify(Object.keys(map).slice(0, 8))}`,
    );
  }
  const out: StoredHashes = {
    hash: readHashValue(rawHash, [...path, hashKey], reading),
    hashWithoutResources: readHashValue(rawWr, [...path, wrKey], reading),
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

/** The pod and container a runtime record says it belongs to, when `status` is one (a `ContainerRecordInfo`). */
export interface RecordIdentity {
  containerName?: string;
  podUid?: string;
  podName?: string;
  podNamespace?: string;
}

/** The kubelet's identity labels, as a record's fields and as runtime label keys (CRI and docker-style). */
const IDENTITY: readonly [keyof RecordIdentity, string][] = [
  ['containerName', 'io.kubernetes.container.name'],
  ['podUid', 'io.kubernetes.pod.uid'],
  ['podName', 'io.kubernetes.pod.name'],
  ['podNamespace', 'io.kubernetes.pod.namespace'],
];

/**
 * The identity `status` carries: a record's `containerName`/`podUid`/… fields, or the kubelet's
 * identity labels in a label map (also with docker's `annotation.`-free label keys). Empty when none.
 */
export function recordIdentity(status: unknown): RecordIdentity {
  const out: RecordIdentity = {};
  if (typeof status !== 'object' || status === null) return out;
  const s = status as Record<string, unknown>;
  for (const [field, label] of IDENTITY) {
    const v = typeof s[field] === 'string' ? s[field] : s[label];
    if (typeof v === 'string') out[field] = v;
  }
  return out;
}
