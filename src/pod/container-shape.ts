/**
 * Is this value a container at all? A Pod, a List or a workload handed to a function that wants
 * one container would otherwise decode as an empty container (unknown fields are dropped, as the
 * kubelet drops them) and hash quietly. A container without `name` is refused too: the apiserver
 * requires one, so no kubelet ever hashed such a container.
 */
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { isPlainObject, memberOf } from '../decode/input.js';

/** Members that belong to Kubernetes objects (Pod, List, workloads) or pod specs, never to a container. */
const NOT_CONTAINER_KEYS: readonly string[] = [
  'apiVersion',
  'kind',
  'metadata',
  'spec',
  'status',
  'items',
  'template',
  'jobTemplate',
  'containers',
  'initContainers',
  'ephemeralContainers',
];

/**
 * Throws {@link DecodeError} `NOT_A_CONTAINER` when `json` carries members of a Pod, List, workload
 * or pod spec. Non-objects are left to the decoder, which reports them with its own error.
 */
export function checkContainerShape(json: unknown, path: readonly JsonPathSegment[] = []): void {
  if (!isPlainObject(json)) return;
  const found = NOT_CONTAINER_KEYS.filter((k) => memberOf(json, k) !== undefined);
  if (found.length > 0) {
    const kind = memberOf(json, 'kind');
    const what =
      typeof kind === 'string' ? `a ${kind}` : `an object with ${found.map((k) => JSON.stringify(k)).join(', ')}`;
    throw new DecodeError(
      'NOT_A_CONTAINER',
      path,
      'one container (`.spec.containers[i]`); pick it out of a Pod or workload first (locateContainers)',
      `found ${what}`,
    );
  }
}

/**
 * Throws {@link DecodeError} `MISSING_NAME` when the container object has no non-empty string
 * `name`. Run after decoding, so a malformed field is reported first.
 */
export function checkContainerName(json: unknown, path: readonly JsonPathSegment[] = []): void {
  if (!isPlainObject(json)) return;
  const name = memberOf(json, 'name');
  if (typeof name !== 'string' || name === '') {
    throw new DecodeError(
      'MISSING_NAME',
      [...path, 'name'],
      'the container name (the apiserver refuses a container without one)',
      name === undefined ? 'found no name' : `found ${JSON.stringify(name)}`,
    );
  }
}
