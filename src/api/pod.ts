/**
 * Finding containers in the documents people have at hand: a bare container, a Pod, a pod spec,
 * or a workload with a pod template (Deployment, StatefulSet, DaemonSet, Job, CloneSet…).
 */
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';

export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

export interface LocatedContainer {
  list: ContainerList;
  index: number;
  name: string;
  /** JSON path of the container inside the document. */
  path: JsonPathSegment[];
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
  for (const list of LISTS) {
    const arr = spec[list];
    if (arr === undefined || arr === null) continue;
    if (!Array.isArray(arr)) throw new DecodeError('INVALID_TYPE', [...path, list], 'an array of containers');
    arr.forEach((c: unknown, index: number) => {
      const p = [...path, list, index];
      if (!isPlainObject(c)) throw new DecodeError('INVALID_TYPE', p, 'a container object');
      out.push({ list, index, name: typeof c['name'] === 'string' ? c['name'] : '', path: p, container: c });
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
