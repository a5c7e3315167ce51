/**
 * The one engine call: from a container (object or JSON text) to a release's hash, Go value and
 * typed errors. Only this module knows the fused path: it tries the fused hasher, runs the container
 * checks in one order (decode, then shape, then name) under one path root, and falls back to
 * decode → encode on the original input. Every front end (the hashing API, the kubelet's behaviour,
 * explain, node planning) goes through here, so one bad container gives one error everywhere.
 */
import type { ContainerFields } from '../pod/input-types.js';
import { KubeletHashError, type JsonPathSegment } from '../errors.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import type { GoStruct } from '../go/value.js';
import { hashValue } from './compute.js';
import { fusedHash, fusedTextHash, fusedTextHashWith, NO_FUSED_HASH, type TextShape } from './fused/entry.js';
import type { KubeletRelease } from './release.js';
import { pipelineFor, type ReleasePipeline } from './pipeline.js';
import { parseJson } from '../json/parse.js';
import { checkContainerMembers, checkContainerName, checkContainerShape } from '../pod/container-shape.js';
import type { ReleaseInfo } from '../releases/index.js';

/**
 * A container as `.spec.containers[i]` of a pod the apiserver serves: a parsed object, or its JSON
 * text. Give the text (or bigints) when int64 fields exceed 2^53 or a quantity is written as a
 * JSON number whose spelling matters (`1E3`); the object is never modified.
 *
 * @example
 * ```ts
 * import { hashContainer, type ContainerInput } from 'kubelet-hash';
 *
 * const asObject: ContainerInput = { name: 'app', image: 'busybox', securityContext: { runAsUser: 2n ** 60n } };
 * const asText: ContainerInput = '{"name":"app","image":"busybox","securityContext":{"runAsUser":1152921504606846976}}';
 * hashContainer(asObject, { kubeletVersion: '1.29' }) === hashContainer(asText, { kubeletVersion: '1.29' }); // → true
 * ```
 *
 * @group Hashing
 */
export type ContainerInput = string | ContainerFields | object;

/**
 * The container checks a front end asks for. The order is fixed: decode (a malformed field wins),
 * then shape (a Pod, List, workload or pod spec is no container), then name.
 */
export interface ContainerChecks {
  /** Refuse a Pod/List/workload/pod spec (`NOT_A_CONTAINER`); off only where the caller located the container. */
  shape: boolean;
  /** Refuse a container without a non-empty string name (`MISSING_NAME`). */
  requireName: boolean;
  /** Where the container sits in the caller's document: every container error is rooted here. */
  path: readonly JsonPathSegment[];
}

/** The checks of the single-container API: shape and name, errors rooted at the container. */
export const CONTAINER_CHECKS: ContainerChecks = Object.freeze({ shape: true, requireName: true, path: [] });

/** Decoding only, for containers a caller has located (and name-checked) in a pod itself. */
export const DECODE_ONLY: ContainerChecks = Object.freeze({ shape: false, requireName: false, path: [] });

/** The container as a JSON value (text parsed once, numbers kept as source text). */
export function containerJson(container: ContainerInput): unknown {
  return typeof container === 'string' ? parseJson(container) : container;
}

/** A container decoded for one release: its compiled pipeline and Go value. */
export interface DecodedContainer {
  pipeline: ReleasePipeline;
  value: GoStruct;
}

/**
 * Decodes `json` (a value from {@link containerJson}) with `info`'s model, without container
 * checks. `full` decodes every field even where the release hashes only name and image.
 */
export function decodeFor(json: unknown, info: ReleaseInfo, escapes?: JsonEscapeMode, full = false): DecodedContainer {
  const pipeline = pipelineFor(info, escapes);
  return { pipeline, value: full ? pipeline.decodeFull(json) : pipeline.decode(json) };
}

/** Runs `run`, re-rooting a typed error at the container's place in the caller's document. */
function rooted<T>(path: readonly JsonPathSegment[], run: () => T): T {
  if (path.length === 0) return run();
  try {
    return run();
  } catch (e) {
    throw e instanceof KubeletHashError ? e.withPathPrefix(path) : e;
  }
}

/** Shape and name checks of a parsed container that decoded. */
function checkJson(json: unknown, checks: ContainerChecks): void {
  if (checks.shape) checkContainerShape(json);
  if (checks.requireName) checkContainerName(json);
}

/**
 * Decodes `container` for `info` and runs `checks`: decode, then shape, then name, errors rooted at
 * `checks.path`. `full` decodes every field even where the release hashes only name and image.
 */
export function decodeAndCheckContainer(
  container: ContainerInput,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  full: boolean,
  checks: ContainerChecks,
): DecodedContainer & { json: unknown } {
  return rooted(checks.path, () => {
    const json = containerJson(container);
    const decoded = decodeFor(json, info, escapes, full);
    checkJson(json, checks);
    return { ...decoded, json };
  });
}

/** The fused hash of either input, with what a text scan saw (null for objects, whose checks read them directly). */
function fusedWithShape(
  container: ContainerInput,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources: boolean,
): { hash: number; shape: TextShape | null } {
  if (typeof container !== 'string')
    return { hash: fusedHash(container, info, escapes, withoutResources), shape: null };
  return fusedTextHash(container, info, escapes, withoutResources);
}

/**
 * The checks after the fused hasher succeeded (which implies the decode succeeds): objects are
 * read directly; for text the scan's {@link TextShape} decides, and only text that fails a check is
 * parsed, to raise the same error with the same wording.
 */
function checkFused(container: ContainerInput, checks: ContainerChecks, shape: TextShape | null): void {
  if (!checks.shape && !checks.requireName) return;
  // No closure on the usual call (errors already rooted at the container): this runs on every hash.
  if (checks.path.length === 0) checkFusedHere(container, checks, shape);
  else rooted(checks.path, () => checkFusedHere(container, checks, shape));
}

function checkFusedHere(container: ContainerInput, checks: ContainerChecks, shape: TextShape | null): void {
  if (typeof container !== 'string') {
    if (checks.shape) checkContainerMembers(container, checks.requireName);
    else checkContainerName(container);
  } else if (shape === null || (checks.shape && shape.notContainerKey) || (checks.requireName && !shape.hasName))
    checkJson(parseJson(container), checks);
}

/**
 * `HashContainer` (or, with `withoutResources`, `HashContainerWithoutResources`) of `container` as
 * a kubelet of `info` computes it: the fused hasher where it can, else decode → encode; the
 * container checks and errors as {@link decodeAndCheckContainer}'s. The caller checks that the release has
 * the without-resources hash.
 */
export function hashContainerInput(
  container: ContainerInput,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  withoutResources: boolean,
  checks: ContainerChecks,
): number {
  if (typeof container !== 'string') {
    // Objects first, without the pair: this is the hot path.
    const fused = fusedHash(container, info, escapes, withoutResources);
    if (fused !== NO_FUSED_HASH) {
      checkFused(container, checks, null);
      return fused;
    }
  } else {
    const fused = fusedTextHash(container, info, escapes, withoutResources);
    if (fused.hash !== NO_FUSED_HASH) {
      checkFused(container, checks, fused.shape);
      return fused.hash;
    }
  }
  const { pipeline: p, value } = decodeAndCheckContainer(container, info, escapes, false, checks);
  return hashValue(p, withoutResources ? p.withoutResources(value) : value);
}

/**
 * {@link hashContainerInput} through a kubelet handle: its compiled hashers are called directly, so
 * nothing about the release is looked up per call (the controller's hot path).
 */
export function hashContainerWith(
  k: KubeletRelease,
  container: ContainerInput,
  withoutResources: boolean,
  checks: ContainerChecks,
): number {
  if (typeof container !== 'string') {
    const fn = withoutResources ? k.hasher.withoutResources : k.hasher.hash;
    const fused = fn === null ? NO_FUSED_HASH : fn(container);
    if (fused !== NO_FUSED_HASH) {
      if (checks.shape || checks.requireName) checkFused(container, checks, null);
      return fused;
    }
  } else {
    const textFn = withoutResources ? k.hasher.textWithoutResources : k.hasher.text;
    if (textFn !== null) {
      const fused = fusedTextHashWith(container, textFn);
      if (fused.hash !== NO_FUSED_HASH) {
        checkFused(container, checks, fused.shape);
        return fused.hash;
      }
    }
  }
  const { pipeline: p, value } = decodeAndCheckContainer(container, k.info, k.jsonEscapes, false, checks);
  return hashValue(p, withoutResources ? p.withoutResources(value) : value);
}

/**
 * The hash without building a value tree, when the fused hasher can give it (no checks, no
 * errors): node planning uses it to find copies of one spec before hashing them for real.
 */
export function quickHash(container: object, info: ReleaseInfo, escapes?: JsonEscapeMode): number | undefined {
  const h = fusedHash(container, info, escapes);
  return h === NO_FUSED_HASH ? undefined : h;
}

export interface ReleaseHashes extends DecodedContainer {
  hash: bigint;
  /** HashContainerWithoutResources; computed on first call. */
  withoutResources: () => bigint;
  /** The container as a JSON value (text parsed on first read). */
  readonly json: unknown;
  /** Whether text input has been parsed (then {@link ReleaseHashes.json} is free to reuse). */
  readonly parsed: boolean;
}

/**
 * Hashes `container` for `info` (what that kubelet computes) after the same checks as
 * {@link hashContainerInput}. The value tree is decoded only if a caller reads it (explain does,
 * restart verdicts do not); fused success implies the decode succeeds, so no error moves.
 * `knownHash` is {@link quickHash}'s result when the caller has it.
 */
export function hashesFor(
  container: ContainerInput,
  info: ReleaseInfo,
  escapes: JsonEscapeMode | undefined,
  checks: ContainerChecks,
  knownHash?: number,
): ReleaseHashes {
  const { hash: fused, shape } =
    knownHash === undefined ? fusedWithShape(container, info, escapes, false) : { hash: knownHash, shape: null };
  if (fused === NO_FUSED_HASH) {
    const { pipeline, value, json } = decodeAndCheckContainer(container, info, escapes, false, checks);
    let wr: bigint | undefined;
    return {
      pipeline,
      value,
      json,
      parsed: typeof container === 'string',
      hash: BigInt(hashValue(pipeline, value)),
      withoutResources: () => (wr ??= BigInt(hashValue(pipeline, pipeline.withoutResources(value)))),
    };
  }
  // A known hash came from an object, which the checks read directly; text needs the scan's shape.
  if (knownHash === undefined || typeof container !== 'string') checkFused(container, checks, shape);
  let json: unknown;
  let parsed = false;
  const jsonOf = (): unknown => {
    if (!parsed) [json, parsed] = [containerJson(container), true];
    return json;
  };
  let decoded: DecodedContainer | undefined;
  const decode = (): DecodedContainer => (decoded ??= decodeFor(jsonOf(), info, escapes));
  let wr: bigint | undefined;
  return {
    get pipeline() {
      return pipelineFor(info, escapes);
    },
    get value() {
      return decode().value;
    },
    get json() {
      return jsonOf();
    },
    get parsed() {
      return parsed && typeof container === 'string';
    },
    hash: BigInt(fused),
    withoutResources: () => {
      if (wr === undefined) {
        const h = fusedHash(container, info, escapes, true);
        if (h !== NO_FUSED_HASH) wr = BigInt(h);
        else {
          const { pipeline, value } = decode();
          wr = BigInt(hashValue(pipeline, pipeline.withoutResources(value)));
        }
      }
      return wr;
    },
  };
}
