/**
 * Apiserver defaulting per release: what a container looks like once the apiserver has stored it,
 * which is what a kubelet hashes. Front end over the engine (decode, models, quantity, releases).
 */
import type { ContainerList } from '../pod/locate.js';
import { releaseInfo } from '../releases/index.js';
import { activeDefaults } from './apply.js';
import type { ApiserverDefault } from './table.js';

export {
  applyApiserverDefaults,
  applyApiserverDefaultsReport,
  serviceAccountTokenMount,
  type ApiserverDefaultsOptions,
  type ApiserverDefaultsReport,
} from './apply.js';
export { limitRangerAnnotation } from './limit-ranger-annotation.js';
export { containerDefaultsOf, type LimitRangerSet } from './limit-ranges.js';
export { missingApiserverDefaults, wouldGetTokenMount, type TokenMountOptions } from './inspect.js';
export {
  APISERVER_DEFAULTS,
  SERVICE_ACCOUNT_TOKEN_MOUNT_PATH,
  type ApiserverDefault,
  type DefaultGate,
  type DefaultRule,
  type DefaultRuleKind,
  type ListStarts,
} from './table.js';

/**
 * The defaults the apiserver of `kubeletVersion`'s release applies to a container of `list`
 * (default `containers`) with the given apiserver `featureGates`, in the order it applies them:
 * rows of {@link APISERVER_DEFAULTS}.
 *
 * @example
 * ```ts
 * import { apiserverDefaultsFor } from 'kubelet-hash';
 *
 * apiserverDefaultsFor({ kubeletVersion: '1.23' }).map((row) => row.id).includes('probe.grpc.service'); // → true
 * apiserverDefaultsFor({ kubeletVersion: '1.22' }).map((row) => row.id).includes('probe.grpc.service'); // → false
 * ```
 */
export function apiserverDefaultsFor(options: {
  kubeletVersion: string;
  list?: ContainerList;
  featureGates?: Record<string, boolean>;
}): ApiserverDefault[];
/**
 * The same, the release given first (the older spelling, still read).
 *
 * @example
 * ```ts
 * import { apiserverDefaultsFor } from 'kubelet-hash';
 *
 * apiserverDefaultsFor('1.23', { list: 'initContainers' }).length > 0; // → true
 * ```
 */
export function apiserverDefaultsFor(
  kubeletVersion: string,
  options?: { list?: ContainerList; featureGates?: Record<string, boolean> },
): ApiserverDefault[];
export function apiserverDefaultsFor(
  first: string | { kubeletVersion: string; list?: ContainerList; featureGates?: Record<string, boolean> },
  rest: { list?: ContainerList; featureGates?: Record<string, boolean> } = {},
): ApiserverDefault[] {
  // Anything but an options object goes to releaseInfo as the release, which refuses it with a typed error.
  const { kubeletVersion, ...options } =
    typeof first === 'object' && (first as unknown) !== null ? first : { ...rest, kubeletVersion: first };
  return activeDefaults(releaseInfo(kubeletVersion).release, options.list ?? 'containers', options.featureGates ?? {});
}
