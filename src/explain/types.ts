/** Reasons `explainHashChange` reports; each is derived from the models, the decoded values or the pre-images. */
import type { JsonEscapeMode } from '../models/json-escapes.js';
import type { HashAlgorithmName } from '../models/model.js';

/**
 * What every reason has.
 *
 * @example
 * ```ts
 * import { explainHashChange, type HashChangeReasonBase } from 'kubelet-hash';
 *
 * const [reason]: HashChangeReasonBase[] = explainHashChange({ name: 'a', image: 'b' }, { from: '1.30', to: '1.31' }).reasons;
 * reason!.detail.endsWith("every container's hash changes"); // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface HashChangeReasonBase {
  /** One line for people. */
  detail: string;
}

/**
 * One cause of a hash change found by {@link explainHashChange}; switch on `kind`.
 *
 * @example
 * ```ts
 * import { explainHashChange, type HashChangeReason } from 'kubelet-hash';
 *
 * function describe(r: HashChangeReason): string {
 *   switch (r.kind) {
 *     case 'algorithm':
 *       return `${r.from} → ${r.to}`;
 *     case 'field-added':
 *     case 'field-removed':
 *       return `${r.kind} ${r.type}.${r.field}`;
 *     case 'field-dropped':
 *       return `${r.release} drops ${r.path}`;
 *     default:
 *       return r.kind;
 *   }
 * }
 * // `grpc` probes exist from 1.23 on: a 1.22 kubelet drops the field when it decodes the pod.
 * const probe = { name: 'a', image: 'b', livenessProbe: { grpc: { port: 8080 } } };
 * explainHashChange(probe, { from: '1.22', to: '1.23' }).reasons.map(describe); // → ['1.22 drops .livenessProbe.grpc']
 * explainHashChange(probe, { from: '1.30', to: '1.31' }).reasons.map(describe); // → ['json → name-image']
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type HashChangeReason =
  | (HashChangeReasonBase & {
      /** Both releases compute the same hash. */
      kind: 'no-change';
    })
  | (HashChangeReasonBase & {
      /** The releases hash different things (e.g. 1.30 → 1.31): every container's hash changes. */
      kind: 'algorithm';
      /** What the `from` release hashes. */
      from: HashAlgorithmName;
      /** What the `to` release hashes. */
      to: HashAlgorithmName;
    })
  /** A Go struct field exists in one release's type and not the other's, in a type the container reaches. */
  | (HashChangeReasonBase & {
      /** `field-added`: only the `to` release has the field; `field-removed`: only `from` has it. */
      kind: 'field-added' | 'field-removed';
      /** The struct type (`v1.VolumeMount`). */
      type: string;
      /** The Go field name (`SubPathExpr`). */
      field: string;
      /** The field's Go type as `reflect` prints it (`string`, `*v1.SecurityContext`). */
      goType: string;
      /** The release whose model has the field. */
      release: string;
      /** Where the container reaches the type (jq-style paths, at most a few). */
      reachedAt: string[];
      /** JSON eras: the field is written even when empty (no `omitempty`). */
      emittedWhenEmpty?: boolean;
    })
  | (HashChangeReasonBase & {
      /** Legacy era: a struct field the container reaches has another Go type in `to`. */
      kind: 'field-retyped';
      /** The struct type holding the field. */
      type: string;
      /** The Go field name. */
      field: string;
      /** The field's Go type in the `from` release. */
      fromType: string;
      /** The field's Go type in the `to` release. */
      toType: string;
      /** Where the container reaches the struct (jq-style paths, at most three). */
      reachedAt: string[];
    })
  | (HashChangeReasonBase & {
      /** The fields of a struct the container reaches are declared (legacy) or encoded (JSON) in another order. */
      kind: 'fields-reordered';
      /** The struct type (`an object` when the JSON-era model has no struct at that path). */
      type: string;
      /** Where the container reaches it (jq-style paths). */
      reachedAt: string[];
    })
  /** The container sets a field that one release's type does not have: that kubelet drops it on decode. */
  | (HashChangeReasonBase & {
      /** The container sets a field one release's types lack: that kubelet drops it when decoding the pod. */
      kind: 'field-dropped';
      /** The release whose types lack the field (its kubelet ignores the key). */
      release: string;
      /** The jq-style path of the dropped value in the container input. */
      path: string;
      /** The struct type that has the field, in the other release. */
      type: string;
      /** The Go field name, in the other release. */
      field: string;
    })
  /** Go 1.22's encoding/json writes BS/FF as `\b`/`\f`; older Go wrote `\u0008`/`\u000c`. */
  | (HashChangeReasonBase & {
      /** The releases were built with Go before/after 1.22, which escape BS/FF differently (`\u0008` vs `\b`). */
      kind: 'json-escaping';
      /** The `from` kubelet's escaping. */
      from: JsonEscapeMode;
      /** The `to` kubelet's escaping. */
      to: JsonEscapeMode;
      /** jq-style paths in the pre-image of the strings (or keys) holding BS or FF. */
      paths: string[];
    })
  /** The JSON pre-images differ here for no reason found above. */
  | (HashChangeReasonBase & {
      /** The JSON pre-images differ at `path` and no model or escaping reason accounts for it. */
      kind: 'json-difference';
      /** The jq-style path in the JSON pre-image. */
      path: string;
      /** The `from` pre-image's value there (numbers as {@link JsonNumber}); absent when only `to` has it. */
      from?: unknown;
      /** The `to` pre-image's value there; absent when only `from` has it. */
      to?: unknown;
    })
  | (HashChangeReasonBase & {
      /** The hashes differ but no model, value or pre-image difference was found. */
      kind: 'unexplained';
    });

/**
 * One release's side of an explanation.
 *
 * @example
 * ```ts
 * import { explainHashChange, type HashSide } from 'kubelet-hash';
 *
 * const side: HashSide = explainHashChange({ name: 'a', image: 'b' }, { from: '1.15', to: '1.16' }).from;
 * side; // → { release: '1.15', algorithm: 'legacy', hash: '31268e69', jsonEscapes: null }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface HashSide {
  /** The kubelet minor release (`1.14`). */
  release: string;
  /** What that release hashes. */
  algorithm: HashAlgorithmName;
  /** The hash it computes for the container (lowercase hex, as stored). */
  hash: string;
  /** The encoding/json BS/FF escaping used; null for the legacy (go-spew) era. */
  jsonEscapes: JsonEscapeMode | null;
  /** Present when the escaping came from the patch table (a patch version built with a newer Go): which Go, and the source. */
  toolchain?: string;
}

/**
 * What {@link explainHashChange} returns.
 *
 * @example
 * ```ts
 * import { explainHashChange, type HashChangeExplanation } from 'kubelet-hash';
 *
 * const e: HashChangeExplanation = explainHashChange({ name: 'a', image: 'b' }, { from: '1.31', to: '1.36' });
 * [e.changed, e.reasons]; // → [false, [{ kind: 'no-change', detail: 'both compute 646fef1b' }]]
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface HashChangeExplanation {
  /** The old release and its hash. */
  from: HashSide;
  /** The new release and its hash. */
  to: HashSide;
  /** Whether the two hashes differ. */
  changed: boolean;
  /** Why; `[{ kind: 'no-change' }]` when they do not differ, never empty. */
  reasons: HashChangeReason[];
  /** One line: `1.13 → 1.14: <from hash> → <to hash>; <each reason's detail>`, or `…: no change (<hash>)`. */
  summary: string;
}
