/** The hashing entry points: what a kubelet of a given release computes for a container. */
import { ReleaseError } from '../errors.js';
import { hashedBytes, preimageAndHash } from '../hash/compute.js';
import { formatHash, hex32 } from '../hash/format.js';
import type { HashAlgorithmName } from '../models/model.js';
import {
  CONTAINER_CHECKS,
  decodeAndCheckContainer,
  hashContainerInput,
  hashContainerWith,
  type ContainerChecks,
  type ContainerInput,
} from '../hash/hashes-for.js';
import { resolveHashOptions, type HashOptions, type ResolvedHashOptions } from '../hash/options.js';
import { KubeletRelease } from '../hash/release.js';

/**
 * Which kubelet a hashing function reproduces: a {@link Kubelet} handle (resolved once, the fast
 * form for many containers) or the options form `{ kubeletVersion, jsonEscapes? }`.
 *
 * @example
 * ```ts
 * import { hashContainer, kubelet, type KubeletOptions } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27' };
 * const forms: KubeletOptions[] = [kubelet('1.29'), { kubeletVersion: '1.29' }];
 * forms.map((k) => hashContainer(web, k)); // → ['371a981f', '371a981f']
 * ```
 *
 * @group Hashing
 */
export type KubeletOptions = HashOptions | KubeletRelease;

/** The release of either form (a handle as it is). */
function releaseOf(options: KubeletOptions): ResolvedHashOptions {
  return options instanceof KubeletRelease ? options : resolveHashOptions(options);
}

export type { ContainerInput } from '../hash/hashes-for.js';

/** The oracle's nameless reference rows: the same checks without the name. */
const WITHOUT_NAME: ContainerChecks = Object.freeze({ ...CONTAINER_CHECKS, requireName: false });

/**
 * The hash a kubelet of `options.kubeletVersion` computes for `container` (`HashContainer`), as it
 * stores it in `io.kubernetes.container.hash`: lowercase hex, no padding.
 *
 * Give the container as the apiserver serves it (`.spec.containers[i]` of `kubectl get pod -o json`);
 * apiserver defaulting is not applied. Throws {@link DecodeError} or {@link QuantityError} for a
 * container that does not decode, {@link ReleaseError} for an unknown version and
 * {@link OptionError} for bad options. From 1.31 only `name` and `image` are decoded; call
 * {@link validateContainer} to have the rest checked too.
 *
 * @example
 * ```ts
 * import { hashContainer } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * hashContainer(container, { kubeletVersion: '1.29' }); // → '590c88e0'
 * // Patch and node version strings resolve to their minor release.
 * hashContainer(container, { kubeletVersion: 'v1.14.10' }); // → 'b703b5fb'
 * // From 1.31 the kubelet hashes only name and image.
 * hashContainer(container, { kubeletVersion: '1.31' }); // → 'e220f96'
 * // `0.5` and `500m` are the same quantity once the apiserver has stored it.
 * hashContainer({ ...container, resources: { limits: { cpu: 0.5 } } }, { kubeletVersion: '1.29' }); // → '590c88e0'
 * ```
 *
 * @group Hashing
 */
export function hashContainer(container: ContainerInput, options: KubeletOptions): string {
  return hashOf(container, options, CONTAINER_CHECKS);
}

function hashOf(container: ContainerInput, options: KubeletOptions, checks: ContainerChecks): string {
  if (options instanceof KubeletRelease) return hex32(hashContainerWith(options, container, false, checks));
  const { info, jsonEscapes } = resolveHashOptions(options);
  return hex32(hashContainerInput(container, info, jsonEscapes, false, checks));
}

/**
 * `HashContainerWithoutResources` (kubelet 1.27–1.30): the hash of the container with its
 * `resources` zeroed, stored as `io.kubernetes.container.hashWithoutResources` when the
 * InPlacePodVerticalScaling gate is on. Throws {@link ReleaseError} `NOT_AVAILABLE` for other
 * releases, and the errors of {@link hashContainer}.
 *
 * @example
 * ```ts
 * import { hashContainerWithoutResources, ReleaseError } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * hashContainerWithoutResources(container, { kubeletVersion: '1.28' }); // → '371a981f'
 * // Resources do not count: the same container with other limits has the same value.
 * hashContainerWithoutResources({ ...container, resources: { limits: { cpu: '2' } } }, { kubeletVersion: '1.28' }); // → '371a981f'
 * try {
 *   hashContainerWithoutResources(container, { kubeletVersion: '1.31' });
 * } catch (e) {
 *   e instanceof ReleaseError && e.code; // → 'NOT_AVAILABLE'
 * }
 * ```
 *
 * @group Hashing
 */
export function hashContainerWithoutResources(container: ContainerInput, options: KubeletOptions): string {
  return hashWithoutResourcesOf(container, options, CONTAINER_CHECKS);
}

function hashWithoutResourcesOf(container: ContainerInput, options: KubeletOptions, checks: ContainerChecks): string {
  const { info, jsonEscapes } = releaseOf(options);
  if (!info.hashWithoutResources) {
    throw new ReleaseError(
      'NOT_AVAILABLE',
      options instanceof KubeletRelease ? ['options'] : ['options', 'kubeletVersion'],
      'a release from 1.27 to 1.30 (the only ones with HashContainerWithoutResources)',
      `release ${info.release}`,
    );
  }
  return hex32(
    options instanceof KubeletRelease
      ? hashContainerWith(options, container, true, checks)
      : hashContainerInput(container, info, jsonEscapes, true, checks),
  );
}

/**
 * What a release hashes, byte for byte: the result of {@link preimage}.
 *
 * @example
 * ```ts
 * import { preimage, type Preimage } from 'kubelet-hash';
 *
 * const p: Preimage = preimage({ name: 'web', image: 'nginx:1.27' }, { kubeletVersion: '1.31' });
 * p.algorithm; // → 'name-image'
 * p.text; // → '{"image":"nginx:1.27","name":"web"}'
 * // The JSON eras feed FNV go-spew's rendering of the bytes, not the bytes themselves.
 * new TextDecoder().decode(p.hashedBytes).slice(0, 22); // → '([]uint8)[123 34 105 1'
 * ```
 *
 * @group Hashing
 */
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

/**
 * The exact pre-image a kubelet of `options.kubeletVersion` hashes for `container`, with its hash:
 * the go-spew text of the Go struct (1.8–1.15), the `json.Marshal` bytes (1.16–1.30) or the JSON
 * of name and image (1.31+). Compare it with a pre-image you computed elsewhere to find the byte
 * where two hashes part. Throws the errors of {@link hashContainer}.
 *
 * @example
 * ```ts
 * import { preimage } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * preimage(container, { kubeletVersion: '1.29' }).text; // → '{"name":"web","image":"nginx:1.27","resources":{"limits":{"cpu":"500m"}}}'
 * preimage(container, { kubeletVersion: '1.29' }).hash; // → '590c88e0'
 * // The legacy era prints every field of the Go struct, nil ones included.
 * preimage(container, { kubeletVersion: '1.12' }).text.slice(0, 80); // → '(v1.Container){Name:(string)web Image:(string)nginx:1.27 Command:([]string)<nil>'
 * ```
 *
 * @group Hashing
 */
export function preimage(container: ContainerInput, options: KubeletOptions): Preimage {
  return preimageOf(container, options, CONTAINER_CHECKS);
}

function preimageOf(container: ContainerInput, options: KubeletOptions, checks: ContainerChecks): Preimage {
  const { info, jsonEscapes } = releaseOf(options);
  const { pipeline: p, value } = decodeAndCheckContainer(container, info, jsonEscapes, false, checks);
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
 * error ({@link DecodeError}, {@link QuantityError}, …), without hashing. Every hashing function
 * checks the same at every release (one error per mistake, whatever the entry: the kubelet decodes
 * the whole pod before it hashes, so 1.31+, which hashes only name and image, refuses a type error
 * anywhere too).
 *
 * @example
 * ```ts
 * import { hashContainer, validateContainer, QuantityError } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx', resources: { limits: { cpu: 'lots' } } };
 * try {
 *   validateContainer(container, { kubeletVersion: '1.31' });
 * } catch (e) {
 *   e instanceof QuantityError && [e.code, e.path]; // → ['INVALID_QUANTITY', ['resources', 'limits', 'cpu']]
 * }
 * try {
 *   hashContainer(container, { kubeletVersion: '1.31' }); // the same error
 * } catch (e) {
 *   e instanceof QuantityError && [e.code, e.path]; // → ['INVALID_QUANTITY', ['resources', 'limits', 'cpu']]
 * }
 * ```
 *
 * @group Hashing
 */
export function validateContainer(container: ContainerInput, options: KubeletOptions): void {
  const { info, jsonEscapes } = releaseOf(options);
  decodeAndCheckContainer(container, info, jsonEscapes, true, CONTAINER_CHECKS);
}

/**
 * The hashing functions without the container-name check, for reference rows that exercise
 * `HashContainer`'s arithmetic on nameless containers (which no apiserver-served pod has). Used by
 * the oracle conformance run; not part of the package's public API.
 *
 * @internal
 */
export const hashingWithoutNameCheck = {
  hashContainer: (container: ContainerInput, options: KubeletOptions): string =>
    hashOf(container, options, WITHOUT_NAME),
  hashContainerWithoutResources: (container: ContainerInput, options: KubeletOptions): string =>
    hashWithoutResourcesOf(container, options, WITHOUT_NAME),
  preimage: (container: ContainerInput, options: KubeletOptions): Preimage =>
    preimageOf(container, options, WITHOUT_NAME),
};
