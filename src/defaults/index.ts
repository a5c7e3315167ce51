/**
 * Apiserver defaulting per release: what a container looks like once the apiserver has stored it,
 * which is what a kubelet hashes. Front end over the engine (decode, models, quantity, releases).
 */
import type { ContainerList } from '../pod/locate.js';
import { releaseInfo } from '../registry/registry.js';
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
 * apiserverDefaultsFor('1.23').map((row) => row.id).includes('probe.grpc.service'); // → true
 * apiserverDefaultsFor('1.22').map((row) => row.id).includes('probe.grpc.service'); // → false
 * ```
 */
export function apiserverDefaultsFor(
  kubeletVersion: string,
  options: { list?: ContainerList; featureGates?: Record<string, boolean> } = {},
): ApiserverDefault[] {
  return activeDefaults(releaseInfo(kubeletVersion).release, options.list ?? 'containers', options.featureGates ?? {});
}
