/**
 * One compiled pipeline per release: decode (model of that release) → pre-image encoder → what
 * FNV-1a 32 is fed. Built on first use and cached, so the hot path never reads the model.
 */
import { decodeContainerTree, decoderFor } from '../decode/decode.js';
import { compileGoJsonEncoder } from '../encode/gojson.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { writeNameImageJson } from '../encode/name-image.js';
import type { ByteSink } from '../encode/sink.js';
import { compileSpewEncoder } from '../encode/spew.js';
import type { JsonPathSegment } from '../errors.js';
import type { GoStruct } from '../go/value.js';
import { releaseModel } from '../models/catalog.js';
import { resolveRoot, type StructType } from '../models/gotype.js';
import type { HashAlgorithmName } from '../models/model.js';
import type { ReleaseInfo } from '../releases/index.js';

export interface ReleasePipeline {
  readonly release: string;
  readonly algorithm: HashAlgorithmName;
  readonly root: StructType;
  /** Decodes what this release hashes (only name and image for 1.31+). */
  decode(container: unknown): GoStruct;
  /** Decodes the whole container with this release's model, whatever the algorithm hashes. */
  decodeFull(container: unknown): GoStruct;
  /** Writes the pre-image: spew text (legacy) or JSON bytes (json, name-image). */
  writePreimage(value: GoStruct, sink: ByteSink): void;
  /** Whether FNV is fed go-spew's `[]uint8` rendering of the pre-image rather than the pre-image itself. */
  readonly hashesSpewOfBytes: boolean;
  /** The same container with `Resources` set to the zero `ResourceRequirements` (1.27–1.30). */
  withoutResources(value: GoStruct): GoStruct;
}

const cache = new Map<string, ReleasePipeline>();

export function pipelineFor(info: ReleaseInfo, escapes?: JsonEscapeMode): ReleasePipeline {
  const mode = escapes ?? info.jsonEscapes ?? 'pre-go1.22';
  const key = `${info.release}/${mode}`;
  let p = cache.get(key);
  if (!p) {
    p = build(info, mode);
    cache.set(key, p);
  }
  return p;
}

function build(info: ReleaseInfo, mode: JsonEscapeMode): ReleasePipeline {
  const root = resolveRoot(releaseModel(info.release));
  const decodeFull = (c: unknown): GoStruct => decodeContainerTree(c, root);
  const resources = root.fields.find((f) => f.goName === 'Resources');
  const zeroResources = resources ? decoderFor(resources.type)(undefined, [] as JsonPathSegment[]) : null;
  const withoutResources = (v: GoStruct): GoStruct => (resources ? { ...v, Resources: zeroResources } : v);

  switch (info.algorithm) {
    case 'legacy': {
      const spew = compileSpewEncoder(root);
      return {
        release: info.release,
        algorithm: 'legacy',
        root,
        decode: decodeFull,
        decodeFull,
        writePreimage: spew,
        hashesSpewOfBytes: false,
        withoutResources,
      };
    }
    case 'json': {
      const json = compileGoJsonEncoder(root, mode);
      return {
        release: info.release,
        algorithm: 'json',
        root,
        decode: decodeFull,
        decodeFull,
        writePreimage: json,
        hashesSpewOfBytes: true,
        withoutResources,
      };
    }
    case 'name-image':
      return {
        release: info.release,
        algorithm: 'name-image',
        root,
        // Hashed are name and image, but a kubelet decodes the whole container: so does the tree path.
        decode: decodeFull,
        decodeFull,
        writePreimage: (v, sink) => {
          writeNameImageJson(sink, v.Name as string, v.Image as string, mode);
        },
        hashesSpewOfBytes: true,
        withoutResources,
      };
  }
}
