/**
 * Internal: hash one container for several releases without re-parsing its text, and get the
 * decoded value alongside (explain and predict compare those trees).
 */
import type { JsonEscapeMode } from '../encode/gojson-string.js';
import type { GoStruct } from '../go/value.js';
import { hashValue } from '../hash/compute.js';
import { pipelineFor, type ReleasePipeline } from '../hash/pipeline.js';
import { parseJson } from '../json/parse.js';
import type { ReleaseInfo } from '../releases/registry.js';
import type { ContainerInput } from './hash.js';

/** The container as a JSON value (text parsed once, numbers kept as source text). */
export function containerJson(container: ContainerInput): unknown {
  return typeof container === 'string' ? parseJson(container) : container;
}

export interface ReleaseHashes {
  pipeline: ReleasePipeline;
  value: GoStruct;
  hash: bigint;
  /** HashContainerWithoutResources; computed on first call. */
  withoutResources(): bigint;
}

/** Decodes `json` for `info` and hashes it (what that kubelet computes). */
export function hashesFor(json: unknown, info: ReleaseInfo, escapes?: JsonEscapeMode): ReleaseHashes {
  const pipeline = pipelineFor(info, escapes);
  const value = pipeline.decode(json);
  let wr: bigint | undefined;
  return {
    pipeline,
    value,
    hash: BigInt(hashValue(pipeline, value)),
    withoutResources: () => (wr ??= BigInt(hashValue(pipeline, pipeline.withoutResources(value)))),
  };
}
