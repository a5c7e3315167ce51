/**
 * Questions a front end asks before hashing a manifest: was this container ever through an
 * apiserver, and would the service-account admission plugin have mounted a token into it?
 */
import { DecodeError } from '../errors.js';
import { containerJson, type ContainerInput } from '../hash/hashes-for.js';
import { hasToJson, isPlainObject, memberOf } from '../decode/input.js';
import type { ContainerList } from '../pod/locate.js';
import { SERVICE_ACCOUNT_TOKEN_MOUNT_PATH } from './table.js';

/** The fields the apiserver of every supported release fills into every container it stores. */
const ALWAYS_DEFAULTED = ['terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy'] as const;

function containerObject(container: ContainerInput): Record<string, unknown> {
  const json = containerJson(container);
  if (!isPlainObject(json) || hasToJson(json)) throw new DecodeError('INVALID_TYPE', [], 'a container object');
  return json;
}

/**
 * The always-defaulted fields (`terminationMessagePath`, `terminationMessagePolicy`,
 * `imagePullPolicy`) that `container` lacks: non-empty means it never went through an apiserver
 * (a manifest or template as written), so its hash is not what a kubelet computes until
 * {@link applyApiserverDefaults} is applied.
 *
 * @example
 * ```ts
 * import { missingApiserverDefaults } from 'kubelet-hash';
 *
 * missingApiserverDefaults({ name: 'web', image: 'nginx:1.25' });
 * // ['terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy']
 * ```
 */
export function missingApiserverDefaults(container: ContainerInput): string[] {
  const obj = containerObject(container);
  return ALWAYS_DEFAULTED.filter((key) => {
    const v = memberOf(obj, key);
    return v === undefined || v === null || v === '';
  });
}

/**
 * Options of {@link wouldGetTokenMount}.
 *
 * @example
 * ```ts
 * import { wouldGetTokenMount, type TokenMountOptions } from 'kubelet-hash';
 *
 * const options: TokenMountOptions = { list: 'ephemeralContainers' };
 * wouldGetTokenMount({ name: 'debug', image: 'busybox' }, options); // → false
 * ```
 */
export interface TokenMountOptions {
  /** The container's pod spec; `automountServiceAccountToken: false` there means no token mount. */
  podSpec?: object;
  /** The pod-spec list holding the container (default `containers`); ephemeral containers get none. */
  list?: ContainerList;
}

/**
 * Whether the service-account admission plugin would add its token mount to `container`: it is a
 * container or init container, the pod does not set `automountServiceAccountToken: false`, and
 * nothing is mounted at `/var/run/secrets/kubernetes.io/serviceaccount` yet. (A ServiceAccount
 * with `automountServiceAccountToken: false`, a mirror pod or a cluster without the plugin also
 * prevent it; those are not visible in the pod spec.)
 *
 * @example
 * ```ts
 * import { wouldGetTokenMount } from 'kubelet-hash';
 *
 * wouldGetTokenMount({ name: 'web', image: 'nginx' }); // → true
 * wouldGetTokenMount({ name: 'web', image: 'nginx' }, { podSpec: { automountServiceAccountToken: false } }); // → false
 * ```
 */
export function wouldGetTokenMount(container: ContainerInput, options: TokenMountOptions = {}): boolean {
  const obj = containerObject(container);
  if ((options.list ?? 'containers') === 'ephemeralContainers') return false;
  if (options.podSpec !== undefined && memberOf(options.podSpec, 'automountServiceAccountToken') === false)
    return false;
  const mounts = memberOf(obj, 'volumeMounts');
  if (!Array.isArray(mounts)) return true;
  return !mounts.some((m) => isPlainObject(m) && memberOf(m, 'mountPath') === SERVICE_ACCOUNT_TOKEN_MOUNT_PATH);
}
