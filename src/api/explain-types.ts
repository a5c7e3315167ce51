/** Reasons `explainHashChange` reports; each is derived from the models, the decoded values or the pre-images. */
import type { JsonEscapeMode } from '../encode/gojson-string.js';
import type { HashAlgorithmName } from '../models/model.js';

/** What every reason has. */
export interface HashChangeReasonBase {
  /** One line for people. */
  detail: string;
}

export type HashChangeReason =
  | (HashChangeReasonBase & { kind: 'no-change' })
  | (HashChangeReasonBase & { kind: 'algorithm'; from: HashAlgorithmName; to: HashAlgorithmName })
  /** A Go struct field exists in one release's type and not the other's, in a type the container reaches. */
  | (HashChangeReasonBase & {
      kind: 'field-added' | 'field-removed';
      /** The struct type (`v1.VolumeMount`). */
      type: string;
      field: string;
      goType: string;
      /** The release whose model has the field. */
      release: string;
      /** Where the container reaches the type (jq-style paths, at most a few). */
      reachedAt: string[];
      /** JSON eras: the field is written even when empty (no `omitempty`). */
      emittedWhenEmpty?: boolean;
    })
  | (HashChangeReasonBase & { kind: 'field-retyped'; type: string; field: string; fromType: string; toType: string; reachedAt: string[] })
  | (HashChangeReasonBase & { kind: 'fields-reordered'; type: string; reachedAt: string[] })
  /** The container sets a field that one release's type does not have: that kubelet drops it on decode. */
  | (HashChangeReasonBase & { kind: 'field-dropped'; release: string; path: string; type: string; field: string })
  /** Go 1.22's encoding/json writes BS/FF as `\b`/`\f`; older Go wrote `\u0008`/`\u000c`. */
  | (HashChangeReasonBase & { kind: 'json-escaping'; from: JsonEscapeMode; to: JsonEscapeMode; paths: string[] })
  /** The JSON pre-images differ here for no reason found above. */
  | (HashChangeReasonBase & { kind: 'json-difference'; path: string; from?: unknown; to?: unknown })
  | (HashChangeReasonBase & { kind: 'unexplained' });

export interface HashSide {
  release: string;
  algorithm: HashAlgorithmName;
  hash: string;
  jsonEscapes: JsonEscapeMode | null;
}

export interface HashChangeExplanation {
  from: HashSide;
  to: HashSide;
  changed: boolean;
  reasons: HashChangeReason[];
  summary: string;
}
