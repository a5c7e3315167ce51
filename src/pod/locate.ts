/**
 * Finding containers in the documents people have at hand: a bare container, a Pod, a pod spec,
 * or a workload with a pod template (Deployment, StatefulSet, DaemonSet, Job, CloneSet…).
 */
import { DecodeError, formatJsonPath, type JsonPathSegment } from '../errors.js';
import { hasToJson, isPlainObject, memberOf } from '../decode/input.js';

/**
 * The pod-spec list a container is declared in (`spec.<list>[i]`); it decides its role for the kubelet.
 *
 * @example
 * ```ts
 * import { containerChanged, type ContainerList } from 'kubelet-hash';
 *
 * const list: ContainerList = 'initContainers';
 * const init = { name: 'migrate', image: 'busybox' };
 * // Init containers ran to completion: the kubelet never compares their hash.
 * containerChanged(init, { hash: '0' }, { kubeletVersion: '1.29', containerList: list }).rule; // → 'not-compared'
 * ```
 *
 * @group Hashing
 */
export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

/**
 * One container found in a document by {@link locateContainers}.
 *
 * @example
 * ```ts
 * import { locateContainers, type LocatedContainer } from 'kubelet-hash';
 *
 * const [first]: LocatedContainer[] = locateContainers({ spec: { containers: [{ name: 'web', image: 'nginx' }] } });
 * first; // → { list: 'containers', index: 0, name: 'web', path: ['spec', 'containers', 0], container: { name: 'web', image: 'nginx' } }
 * ```
 *
 * @group Hashing
 */
export interface LocatedContainer {
  /** The pod-spec list holding it (`containers` for a bare container). */
  list: ContainerList;
  /** Its index in that list. */
  index: number;
  /** Its `name`, or `''` when the container has no string name. */
  name: string;
  /** JSON path of the container inside the document. */
  path: JsonPathSegment[];
  /** The container object itself, as found in the document (not copied). */
  container: Record<string, unknown>;
}

/** The pod spec's container lists, in the order they are reported. */
export const CONTAINER_LISTS = [
  'initContainers',
  'containers',
  'ephemeralContainers',
] as const satisfies readonly ContainerList[];
const OBJECT_KEYS: readonly string[] = ['apiVersion', 'kind', 'metadata', 'spec', 'template'];

/**
 * Every container in `doc` (a bare container, a Pod, a pod spec, or a workload with a pod template),
 * init containers first, in document order. Throws {@link DecodeError} `INVALID_TYPE` when `doc`
 * holds no containers, and `DUPLICATE_CONTAINER_NAME` when two share a name (the apiserver refuses
 * such a pod).
 *
 * @example
 * ```ts
 * import { locateContainers, hashContainer } from 'kubelet-hash';
 *
 * const deployment = {
 *   apiVersion: 'apps/v1',
 *   kind: 'Deployment',
 *   spec: { template: { spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: 'nginx' }] } } },
 * };
 * const found = locateContainers(deployment);
 * found.map((c) => `${c.list}/${c.name}`); // → ['initContainers/init', 'containers/app']
 * found.map((c) => hashContainer(c.container, { kubeletVersion: '1.29' })); // → ['26817de9', '65b95dba']
 * ```
 *
 * @group Hashing
 */
export function locateContainers(doc: unknown): LocatedContainer[] {
  if (!isPlainObject(doc) || hasToJson(doc)) {
    throw new DecodeError(
      'INVALID_TYPE',
      [],
      'a Pod, a pod spec, a workload with spec.template, or a container object',
    );
  }
  const found = findPodSpec(doc);
  if (!found) {
    // A bare container: no pod-spec lists and none of the keys a Kubernetes object has.
    if (!OBJECT_KEYS.some((k) => memberOf(doc, k) !== undefined)) {
      return [{ list: 'containers', index: 0, name: nameOf(doc), path: [], container: doc }];
    }
    throw new DecodeError(
      'INVALID_TYPE',
      [],
      'a Pod, a pod spec, a workload with spec.template, or a container object',
      'found no containers',
    );
  }
  const { spec, path } = found;
  const out: LocatedContainer[] = [];
  // Containers are matched by name (predictions, upgrade plans), and the apiserver refuses a pod
  // whose containers, init containers and ephemeral containers share a name.
  const seen = new Map<string, JsonPathSegment[]>();
  for (const list of CONTAINER_LISTS) {
    const arr = memberOf(spec, list);
    if (arr === undefined || arr === null) continue;
    if (!Array.isArray(arr)) throw new DecodeError('INVALID_TYPE', [...path, list], 'an array of containers');
    arr.forEach((c: unknown, index: number) => {
      const p = [...path, list, index];
      if (!isPlainObject(c)) throw new DecodeError('INVALID_TYPE', p, 'a container object');
      const name = nameOf(c);
      const first = seen.get(name);
      if (first) {
        throw new DecodeError(
          'DUPLICATE_CONTAINER_NAME',
          [...p, 'name'],
          'a container name unique within the pod',
          `${JSON.stringify(name)} is also the name at ${formatJsonPath(first)}`,
        );
      }
      seen.set(name, p);
      out.push({ list, index, name, path: p, container: c });
    });
  }
  return out;
}

/** The pod spec inside a Pod, pod spec, workload or CronJob, with its path; null when there is none. */
export function findPodSpec(
  doc: Record<string, unknown>,
): { spec: Record<string, unknown>; path: JsonPathSegment[] } | null {
  const candidates: JsonPathSegment[][] = [
    [],
    ['spec'],
    ['spec', 'template', 'spec'],
    ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
    ['template', 'spec'],
  ];
  for (const path of candidates) {
    let cur: unknown = doc;
    for (const seg of path) cur = isPlainObject(cur) ? memberOf(cur, seg as string) : undefined;
    if (isPlainObject(cur) && CONTAINER_LISTS.some((l) => Array.isArray(memberOf(cur, l)))) return { spec: cur, path };
  }
  return null;
}

/** A container's `name` as JSON.stringify would send it, or `''`. */
function nameOf(c: Record<string, unknown>): string {
  const name = memberOf(c, 'name');
  return typeof name === 'string' ? name : '';
}
