/**
 * `translateHash`: carry a container across a kubelet upgrade (or downgrade) by computing the
 * hash the `to` kubelet expects, after proving that the stored hash is what the `from` kubelet
 * computes for this very spec. A hash we cannot reproduce is never rewritten: the container may be
 * running another spec, or was created by another release.
 */
import { HashMismatchError } from '../errors.js';
import { formatHash } from '../hash/format.js';
import { readOptionFields } from '../option-fields.js';
import { readHashValue, type HashValueInput } from './options.js';
import { RELEASE_PAIR_FIELDS, resolvePair, type ReleasePair } from '../hash/release.js';
import type { ContainerInput } from '../hash/hashes-for.js';
import { CONTAINER_CHECKS, hashesFor } from '../hash/hashes-for.js';

/**
 * Options of {@link translateHash}: the releases to translate between.
 *
 * @example
 * ```ts
 * import { translateHash, type TranslateOptions } from 'kubelet-hash';
 *
 * const options: TranslateOptions = { from: 'v1.30.2', to: 'v1.31.0', observed: '590c88e0' };
 * translateHash({ name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } }, options); // → 'e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface TranslateOptions extends ReleasePair {
  /** The stored hash (hex text as stored, number or bigint); when given it must equal the `from` hash. */
  observed?: HashValueInput;
}

const TRANSLATE_FIELDS = {
  ...RELEASE_PAIR_FIELDS,
  observed: 'unknown', // read by readHashValue, which says what a hash may be
} as const;

/**
 * The hash a kubelet of release `to` computes for `container`. With `observed`, throws
 * {@link HashMismatchError} (code `HASH_MISMATCH`) unless it equals what release `from` computes:
 * a hash that cannot be reproduced is never translated. Also throws the errors of
 * {@link hashContainer}, in one order: the options (releases, then `observed`'s form), the
 * container as the `from` kubelet checks it, as the `to` kubelet checks it, then the comparison.
 *
 * @example
 * ```ts
 * import { translateHash, HashMismatchError } from 'kubelet-hash';
 *
 * // Kubernetes' own test container (container_hash_test.go): 0x311670a in 1.16–1.30, 0x8e45cbd0 from 1.31.
 * const sample = {
 *   name: 'test_container',
 *   image: 'foo/image:v1',
 *   command: ['/bin/testcmd'],
 *   args: ['/bin/sh', '-c', 'echo abc'],
 *   ports: [{ containerPort: 8001 }],
 *   env: [{ name: 'ENV_FOO', value: 'bar' }, { name: 'ENV_BAR', valueFrom: { secretKeyRef: { name: 'foo', key: 'bar', optional: true } } }],
 *   resources: { limits: { foo: '1G' }, requests: { foo: '500M' } },
 * };
 * translateHash(sample, { from: '1.30', to: '1.31', observed: '311670a' }); // → '8e45cbd0'
 * try {
 *   translateHash(sample, { from: '1.29', to: '1.31', observed: 'f39e1ad' });
 * } catch (e) {
 *   // f39e1ad is what 1.9–1.15 wrote, not 1.29.
 *   e instanceof HashMismatchError && e.code; // → 'HASH_MISMATCH'
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function translateHash(container: ContainerInput, options: TranslateOptions): string {
  const opts = readOptionFields<TranslateOptions>(options, ['options'], {
    fields: TRANSLATE_FIELDS,
    required: ['from', 'to'],
    expected: 'an options object such as { from: "1.30", to: "1.31" }',
  });
  const { from, to } = resolvePair(opts, 'options');
  const observed = opts.observed === undefined ? undefined : readHashValue(opts.observed, ['options', 'observed']);
  // The two-release order (explainHashChange's too): the container as the `from` kubelet checks it,
  // then as the `to` kubelet does. `from` is checked without `observed` too: a container its kubelet
  // refuses was never hashed by it, so there is nothing to translate.
  const source = hashesFor(container, from.info, from.escapes, CONTAINER_CHECKS).hash;
  const target = hashesFor(container, to.info, to.escapes, CONTAINER_CHECKS).hash;
  if (observed !== undefined) {
    if (observed !== source) {
      throw new HashMismatchError(
        'HASH_MISMATCH',
        ['options', 'observed'],
        `the hash a ${from.info.release} kubelet computes for this container (${formatHash(source)})`,
        `observed ${typeof opts.observed === 'string' ? JSON.stringify(opts.observed) : String(opts.observed)}, read as ${formatHash(observed)}: the container may run another spec or was created by another release`,
      );
    }
  }
  return formatHash(target);
}
