/**
 * The data shape of one kubelet release's Go type closure: exactly the format of
 * `fixtures/kube-models/v1.N.json` (see its README), so an assembled model can be compared
 * with the extracted one field for field.
 */

/** `reflect.Kind` names that occur in the closures. */
export type DeclKind = 'struct' | 'string' | 'bool' | 'int' | 'int32' | 'int64' | 'uint' | 'map' | 'slice';

/** One struct field, in declaration order. */
export interface FieldDecl {
  /** Go field name; for an embedded field, its type's name (`Handler`, `LocalObjectReference`). */
  goName: string;
  /** `reflect.Type.String()` of the field's type: `*int64`, `[]v1.ContainerPort`, `v1.ResourceList`. */
  goType: string;
  /** JSON key; `""` for embedded (inlined) structs and for fields without a json tag name. */
  jsonName: string;
  omitempty: boolean;
  embedded?: boolean;
  inline?: boolean;
  exported: boolean;
  /** The raw `json:"…"` struct tag. */
  jsonTag: string;
}

/** One named Go type. */
export interface TypeDecl {
  /** `reflect.Type.String()`: `v1.Container`, `resource.Quantity`, `big.nat`. */
  name: string;
  pkgPath: string;
  kind: DeclKind;
  /** Non-struct named types: the underlying type (`string`, `map[v1.ResourceName]resource.Quantity`). */
  underlying?: string;
  key?: string;
  elem?: string;
  fields?: FieldDecl[];
  /** The type or its pointer implements `json.Marshaler` (Quantity, IntOrString, big.Int). */
  jsonCustomMarshal?: boolean;
  /** Not from `k8s.io/api/core/v1`. */
  external?: boolean;
}

/**
 * What `HashContainer` hashes: `legacy` (1.8–1.15) the go-spew text of the `v1.Container` struct,
 * `json` (1.16–1.30) its `json.Marshal` bytes, `name-image` (1.31+) the JSON of only name and image.
 *
 * @example
 * ```ts
 * import { releaseInfo, type HashAlgorithmName } from 'kubelet-hash';
 *
 * const eras: HashAlgorithmName[] = ['1.15', '1.16', '1.30', '1.31'].map((v) => releaseInfo(v).algorithm);
 * eras; // → ['legacy', 'json', 'json', 'name-image']
 * ```
 *
 * @group Hashing
 */
export type HashAlgorithmName = 'legacy' | 'json' | 'name-image';

/** Source commit facts recorded with each extracted model. */
interface SourceRef {
  tag: string;
  commit: string;
  date: string;
  files: string;
}

/** A release's full type closure (one kube-models file). */
export interface ReleaseModel {
  version: string;
  root: string;
  kubeletHashAlgorithm: HashAlgorithmName;
  hasHashWithoutResources: boolean;
  /** `encoding/json` escaping of BS/FF by the Go release that built this kubelet; `null` for legacy. */
  jsonEncoderEscapes: string | null;
  source: { 'k8s.io/api': SourceRef; 'k8s.io/apimachinery': SourceRef };
  /** Breadth-first from the root, in discovery order. */
  types: TypeDecl[];
}
