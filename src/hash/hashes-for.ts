/**
 * Decode once, hash for many: the one path from a container (object or JSON text) to a release's
 * Go value and hash. The hashing API, the kubelet's behaviour and explain all go through here.
 */
import type { JsonEscapeMode } from '../models/json-escapes.js';
import type { GoStruct } from '../go/value.js';
import { hashValue } from './compute.js';
import { fusedHash, NO_FUSED_HASH } from './fused/entry.js';
import { pipelineFor, type ReleasePipeline } from './pipeline.js';
import { parseJson } from '../json/parse.js';
import type { ReleaseInfo } from '../registry/registry.js';

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
export type ContainerInput = string | object;

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
 * Decodes `json` (a value from {@link containerJson}) with `info`'s model. `full` decodes every
 * field even where the release hashes only name and image (validation).
 */
export function decodeFor(json: unknown, info: ReleaseInfo, escapes?: JsonEscapeMode, full = false): DecodedContainer {
  const pipeline = pipelineFor(info, escapes);
  return { pipeline, value: full ? pipeline.decodeFull(json) : pipeline.decode(json) };
}

export interface ReleaseHashes extends DecodedContainer {
  hash: bigint;
  /** HashContainerWithoutResources; computed on first call. */
  withoutResources: () => bigint;
}

/**
 * Decodes `json` for `info` and hashes it (what that kubelet computes). The hash comes from the
 * fused hasher where it can; the value tree is then decoded only if a caller reads it (explain
 * does, restart verdicts do not). Fused success implies the decode succeeds, so no error moves.
 * `knownFused` is `fusedHash(json, info, escapes)` when the caller has already computed it.
 */
export function hashesFor(
  json: unknown,
  info: ReleaseInfo,
  escapes?: JsonEscapeMode,
  knownFused?: number,
): ReleaseHashes {
  // A JS string here is a JSON string value (not a container), which only the decoder reports.
  const fused = knownFused ?? (typeof json === 'string' ? NO_FUSED_HASH : fusedHash(json, info, escapes));
  if (fused === NO_FUSED_HASH) {
    const { pipeline, value } = decodeFor(json, info, escapes);
    let wr: bigint | undefined;
    return {
      pipeline,
      value,
      hash: BigInt(hashValue(pipeline, value)),
      withoutResources: () => (wr ??= BigInt(hashValue(pipeline, pipeline.withoutResources(value)))),
    };
  }
  let decoded: DecodedContainer | undefined;
  const decode = (): DecodedContainer => (decoded ??= decodeFor(json, info, escapes));
  let wr: bigint | undefined;
  return {
    get pipeline() {
      return pipelineFor(info, escapes);
    },
    get value() {
      return decode().value;
    },
    hash: BigInt(fused),
    withoutResources: () => {
      if (wr === undefined) {
        const h = fusedHash(json, info, escapes, true);
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
