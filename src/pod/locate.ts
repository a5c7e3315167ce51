/**
 * Finding containers in the documents people have at hand: a bare container, a Pod, a pod spec,
 * or a workload with a pod template (Deployment, StatefulSet, DaemonSet, Job, CloneSet…).
 */
import { DecodeError, formatJsonPath, type JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';

/** The pod-spec list a container is declared in (`spec.<list>[i]`); it decides its role for the kubelet. */
export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

/** One container found in a document by {@link locateContainers}. */
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

const LISTS: readonly ContainerList[] = ['initContainers', 'containers', 'ephemeralContainers'];
const OBJECT_KEYS: readonly string[] = ['apiVersion', 'kind', 'metadata', 'spec', 'template'];

/** Every container in `doc`, init containers first, in document order. */
export function locateContainers(doc: unknown): LocatedContainer[] {
  if (!isPlainObject(doc)) throw new DecodeError('INVALID_TYPE', [], 'a Pod, a pod spec, a workload with spec.template, or a container object');
  const found = findPodSpec(doc);
  if (!found) {
    // A bare container: no pod-spec lists and none of the keys a Kubernetes object has.
    if (!OBJECT_KEYS.some((k) => k in doc)) {
      return [{ list: 'containers', index: 0, name: typeof doc['name'] === 'string' ? doc['name'] : '', path: [], container: doc }];
    }
    throw new DecodeError('INVALID_TYPE', [], 'a Pod, a pod spec, a workload with spec.template, or a container object', 'found no containers');
  }
  const { spec, path } = found;
  const out: LocatedContainer[] = [];
  // Containers are matched by name (predictions, upgrade plans), and the apiserver refuses a pod
  // whose containers, init containers and ephemeral containers share a name.
  const seen = new Map<string, JsonPathSegment[]>();
  for (const list of LISTS) {
    const arr = spec[list];
    if (arr === undefined || arr === null) continue;
    if (!Array.isArray(arr)) throw new DecodeError('INVALID_TYPE', [...path, list], 'an array of containers');
    arr.forEach((c: unknown, index: number) => {
      const p = [...path, list, index];
      if (!isPlainObject(c)) throw new DecodeError('INVALID_TYPE', p, 'a container object');
      const name = typeof c['name'] === 'string' ? c['name'] : '';
      const first = seen.get(name);
      if (first) {
        throw new DecodeError('DUPLICATE_CONTAINER_NAME', [...p, 'name'], 'a container name unique within the pod', `${JSON.stringify(name)} is also the name at ${formatJsonPath(first)}`);
      }
      seen.set(name, p);
      out.push({ list, index, name, path: p, container: c });
    });
  }
  return out;
}

function findPodSpec(doc: Record<string, unknown>): { spec: Record<string, unknown>; path: JsonPathSegment[] } | null {
  const candidates: JsonPathSegment[][] = [[], ['spec'], ['spec', 'template', 'spec'], ['spec', 'jobTemplate', 'spec', 'template', 'spec'], ['template', 'spec']];
  for (const path of candidates) {
    let cur: unknown = doc;
    for (const seg of path) cur = isPlainObject(cur) ? cur[seg as string] : undefined;
    if (isPlainObject(cur) && LISTS.some((l) => Array.isArray(cur[l]))) return { spec: cur, path };
  }
  return null;
}
