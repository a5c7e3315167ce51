/**
 * Is this value a container at all? A Pod, a List or a workload handed to a function that wants
 * one container would otherwise decode as an empty container (unknown fields are dropped, as the
 * kubelet drops them) and hash quietly. A container without `name` is refused too: the apiserver
 * requires one, so no kubelet ever hashed such a container.
 */
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { isPlainObject, memberOf } from '../decode/input.js';

/** Members that belong to Kubernetes objects (Pod, List, workloads) or pod specs, never to a container. */
export const NOT_CONTAINER_KEYS: readonly string[] = [
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
 * Whether one of the object's own enumerable members (those `memberOf` reads) is a
 * {@link NOT_CONTAINER_KEYS} member with a value. This runs on every hash: a probe compiled from
 * the list reads the eleven names as static property loads (a few ns, where a loop over the names
 * or the object's keys costs 10–100 ns); only a hit is confirmed member by member.
 */
function hasNotContainerKey(json: Record<string, unknown>): boolean {
  return anyDefined(json) && NOT_CONTAINER_KEYS.some((k) => memberOf(json, k) !== undefined);
}

const anyDefined = compileProbe(NOT_CONTAINER_KEYS);

/** `o.k1 !== undefined || o.k2 !== undefined || …`; without code generation (CSP), the plain loop. */
function compileProbe(keys: readonly string[]): (o: Record<string, unknown>) => boolean {
  try {
    const body = `return ${keys.map((k) => `o[${JSON.stringify(k)}] !== undefined`).join(' || ')};`;
    // Generated from the list so the names stay in one place; the static loads are the point.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    return new Function('o', body) as (o: Record<string, unknown>) => boolean;
  } catch (err) {
    if (!(err instanceof EvalError)) throw err;
    return (o) => keys.some((k) => o[k] !== undefined);
  }
}

/**
 * Throws {@link DecodeError} `NOT_A_CONTAINER` when `json` carries members of a Pod, List, workload
 * or pod spec. Non-objects are left to the decoder, which reports them with its own error.
 */
export function checkContainerShape(json: unknown, path: readonly JsonPathSegment[] = []): void {
  if (isPlainObject(json) && hasNotContainerKey(json)) throw notAContainer(json, path);
}

/**
 * Throws {@link DecodeError} `MISSING_NAME` when the container object has no non-empty string
 * `name`. Run after decoding, so a malformed field is reported first.
 */
export function checkContainerName(json: unknown, path: readonly JsonPathSegment[] = []): void {
  if (isPlainObject(json) && !hasName(json)) throw missingName(json, path);
}

/** {@link checkContainerShape}, then (with `requireName`) {@link checkContainerName}, of an object already known to be a JSON object (the fused hashers check that). */
export function checkContainerMembers(json: object, requireName: boolean): void {
  const members = json as Record<string, unknown>;
  if (hasNotContainerKey(members)) throw notAContainer(members, []);
  if (requireName && !hasName(members)) throw missingName(members, []);
}

function hasName(json: Record<string, unknown>): boolean {
  const name = memberOf(json, 'name');
  return typeof name === 'string' && name !== '';
}

function notAContainer(json: Record<string, unknown>, path: readonly JsonPathSegment[]): DecodeError {
  const found = NOT_CONTAINER_KEYS.filter((k) => memberOf(json, k) !== undefined);
  const kind = memberOf(json, 'kind');
  const what =
    typeof kind === 'string' ? `a ${kind}` : `an object with ${found.map((k) => JSON.stringify(k)).join(', ')}`;
  return new DecodeError(
    'NOT_A_CONTAINER',
    path,
    'one container (`.spec.containers[i]`); pick it out of a Pod or workload first (locateContainers)',
    `found ${what}`,
  );
}

function missingName(json: Record<string, unknown>, path: readonly JsonPathSegment[]): DecodeError {
  const name = memberOf(json, 'name');
  return new DecodeError(
    'MISSING_NAME',
    [...path, 'name'],
    'the container name (the apiserver refuses a container without one)',
    name === undefined ? 'found no name' : `found ${JSON.stringify(name)}`,
  );
}
