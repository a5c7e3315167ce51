/**
 * `containerChanged`: whether a kubelet of a given release kills and recreates a running
 * container because its definition changed, with the exact rule of that release (see changed-rule.ts).
 */
import { z } from 'zod';
import { formatHash } from '../hash/format.js';
import { applyChangedRule, type ChangedRule } from './changed-rule.js';
import { resolveRuleOptions, ruleOptionsSchema, type FeatureGates } from './options.js';
import { containerRole, type ContainerRole } from './container-role.js';
import type { ContainerInput } from '../hash/hasher.js';
import { containerJson, hashesFor } from '../hash/hasher.js';
import type { HashOptions } from '../hash/options.js';
import type { ContainerList } from '../pod/locate.js';
import { readStoredHashes, type ContainerStatusInput } from './stored-status.js';

/**
 * Options of {@link containerChanged}: the kubelet to reproduce and how it runs the container.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerChangedOptions } from 'kubelet-hash';
 *
 * const options: ContainerChangedOptions = { kubeletVersion: 'v1.29.4', featureGates: { InPlacePodVerticalScaling: true }, staticPod: true };
 * const resized = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '1' } } };
 * // Static pods are never resized in place: a resources change restarts them.
 * containerChanged(resized, { hash: '590c88e0', hashWithoutResources: '371a981f' }, options).changed; // → true
 * ```
 *
 * @group Kubelet decisions
 */
export interface ContainerChangedOptions extends HashOptions {
  /** The kubelet's feature gates; unset gates take the release's default. */
  featureGates?: FeatureGates;
  /** A static (file/http) pod: in-place resize never applies to it. */
  staticPod?: boolean;
  /** Which list of the pod spec the container is in (default `containers`). */
  containerList?: ContainerList;
}

/**
 * What {@link containerChanged} found; hashes are lowercase hex text as the kubelet stores them.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerChangedResult } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const result: ContainerChangedResult = containerChanged({ ...web, image: 'nginx:1.28' }, { hash: '590c88e0' }, { kubeletVersion: '1.29' });
 * [result.changed, result.rule, result.expected, result.actual]; // → [true, 'hash', 'dc15f387', '590c88e0']
 * ```
 *
 * @group Kubelet decisions
 */
export interface ContainerChangedResult {
  /** The kubelet minor release the decision is for (`1.29`). */
  release: string;
  /** The hash this kubelet computes for the spec (lowercase hex, as stored). */
  expected: string;
  /** The stored hash as the kubelet reads it (`0` when missing or malformed). */
  actual: string;
  /** Whether the kubelet kills and recreates the container for a definition change. */
  changed: boolean;
  /** `expected !== actual`, whether or not the rule acts on it. */
  hashDiffers: boolean;
  /** Set when the 1.27–1.30 in-place resize rule consulted them. */
  expectedWithoutResources?: string;
  /** The stored hash without resources as the kubelet reads it (`0` when missing); set with `expectedWithoutResources`. */
  actualWithoutResources?: string;
  /** How the kubelet treats the container (`container`, `sidecar`, `init`, `ephemeral`). */
  role: ContainerRole;
  /** Which comparison the kubelet applied, or `not-compared`. */
  rule: ChangedRule;
  /** One line for people explaining the decision, with the hashes involved. */
  reason: string;
}

const optionsSchema = ruleOptionsSchema.extend({
  containerList: z.enum(['containers', 'initContainers', 'ephemeralContainers']).optional(),
});

/**
 * What a kubelet of `options.kubeletVersion` decides for a running container whose runtime
 * status stores `status` (the annotation map, docker-style `annotation.` labels, or
 * `{ hash, hashWithoutResources }`). A missing or malformed stored hash reads as 0 (changed).
 * Throws the errors of {@link hashContainer}, and {@link OptionError} for a status that is not an
 * object or feature gates the kubelet would refuse.
 *
 * @example
 * ```ts
 * import { containerChanged } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * // The runtime's annotations for the running container (crictl inspect: status.annotations).
 * const annotations = { 'io.kubernetes.container.hash': '590c88e0' };
 * containerChanged(web, annotations, { kubeletVersion: '1.29' }).changed; // → false
 * const patched = containerChanged({ ...web, image: 'nginx:1.28' }, annotations, { kubeletVersion: '1.29' });
 * patched.changed; // → true
 * patched.reason.startsWith('container definition changed (stored 590c88e0, computed'); // → true
 * ```
 *
 * @group Kubelet decisions
 */
export function containerChanged(container: ContainerInput, status: ContainerStatusInput, options: ContainerChangedOptions): ContainerChangedResult {
  const { opts, info, gates } = resolveRuleOptions(optionsSchema, options, '{ kubeletVersion: "1.29" }');
  const stored = readStoredHashes(status);
  const json = containerJson(container);
  const role = containerRole(opts.containerList, json);
  const computed = hashesFor(json, info, opts.jsonEscapes);
  const outcome = applyChangedRule({
    info,
    role,
    gates,
    staticPod: opts.staticPod ?? false,
    expected: computed.hash,
    stored: stored.hash,
    expectedWithoutResources: computed.withoutResources,
    storedWithoutResources: stored.hashWithoutResources,
  });
  const result: ContainerChangedResult = {
    release: info.release,
    expected: formatHash(computed.hash),
    actual: formatHash(stored.hash),
    changed: outcome.changed,
    hashDiffers: outcome.hashDiffers,
    role,
    rule: outcome.rule,
    reason: outcome.reason,
  };
  if (outcome.withoutResources) {
    result.expectedWithoutResources = formatHash(outcome.withoutResources.expected);
    result.actualWithoutResources = formatHash(outcome.withoutResources.stored);
  }
  return result;
}
