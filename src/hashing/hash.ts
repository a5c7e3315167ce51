/** The hashing entry points: what a kubelet of a given release computes for a container. */
import { ReleaseError } from '../errors.js';
import { hashValue, hashedBytes, preimageAndHash } from '../hash/compute.js';
import { formatHash } from '../hash/format.js';
import type { HashAlgorithmName } from '../models/model.js';
import { containerJson, decodeFor, type ContainerInput, type DecodedContainer } from '../hash/hasher.js';
import { resolveHashOptions, type HashOptions } from '../hash/options.js';

export type { ContainerInput } from '../hash/hasher.js';

/** Decodes `container` for the release in `options`. */
function prepare(container: ContainerInput, options: HashOptions, full = false): DecodedContainer {
  const { info, jsonEscapes } = resolveHashOptions(options);
  return decodeFor(containerJson(container), info, jsonEscapes, full);
}

/**
 * The hash a kubelet of `options.kubeletVersion` computes for `container` (`HashContainer`), as it
 * stores it in `io.kubernetes.container.hash`: lowercase hex, no padding.
 *
 * @example hashContainer({ name: 'app', image: 'nginx' }, { kubeletVersion: '1.29' })
 */
export function hashContainer(container: ContainerInput, options: HashOptions): string {
  const { pipeline: p, value } = prepare(container, options);
  return formatHash(hashValue(p, value));
}

/**
 * `HashContainerWithoutResources` (kubelet 1.27–1.30): the hash of the container with its
 * `resources` zeroed, stored as `io.kubernetes.container.hashWithoutResources` when the
 * InPlacePodVerticalScaling gate is on. Throws `NOT_AVAILABLE` for other releases.
 */
export function hashContainerWithoutResources(container: ContainerInput, options: HashOptions): string {
  const { info } = resolveHashOptions(options);
  if (!info.hashWithoutResources) {
    throw new ReleaseError('NOT_AVAILABLE', ['options', 'kubeletVersion'], 'a release from 1.27 to 1.30 (the only ones with HashContainerWithoutResources)', `release ${info.release}`);
  }
  const { pipeline: p, value } = prepare(container, options);
  return formatHash(hashValue(p, p.withoutResources(value)));
}

/** What a release hashes, byte for byte. */
export interface Preimage {
  /** The kubelet minor release the pre-image is for (`1.29`), resolved from `kubeletVersion`. */
  release: string;
  /** What that release hashes: the struct's go-spew text, its JSON, or the JSON of name and image only. */
  algorithm: HashAlgorithmName;
  /** The pre-image: go-spew text of the struct (legacy) or the JSON bytes (json, name-image). */
  bytes: Uint8Array;
  /** `bytes` as text (always valid UTF-8: Go strings reached here came from JSON). */
  text: string;
  /** Exactly what FNV-1a 32 consumes: `bytes` for legacy, go-spew's `([]uint8)[…]` of `bytes` otherwise. */
  hashedBytes: Uint8Array;
  /** The resulting hash, as stored. */
  hash: string;
}

/** The exact pre-image a kubelet of `options.kubeletVersion` hashes for `container`, with its hash. */
export function preimage(container: ContainerInput, options: HashOptions): Preimage {
  const { pipeline: p, value } = prepare(container, options);
  const { preimage: bytes, hash } = preimageAndHash(p, value);
  return {
    release: p.release,
    algorithm: p.algorithm,
    bytes,
    text: new TextDecoder().decode(bytes),
    hashedBytes: p.hashesSpewOfBytes ? hashedBytes(p, value) : bytes,
    hash: formatHash(hash),
  };
}

/**
 * Decodes the whole container with the release's model and throws the first problem as a typed
 * error. Hashing for 1.31+ reads only name and image; call this when you want the rest checked too.
 */
export function validateContainer(container: ContainerInput, options: HashOptions): void {
  prepare(container, options, true);
}
