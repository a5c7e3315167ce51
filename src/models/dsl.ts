/**
 * The vocabulary the release files are written in: Go declarations (`struct`, `named`, `field`,
 * `embed`) that expand to the kube-models data shape exactly as the extractor wrote it, and the
 * delta operations (`addField`, `renameType`, …) that turn one release's model into the next.
 */
import type { JsonEscapeMode } from './json-escapes.js';
import type { DeclKind, FieldDecl, HashAlgorithmName, TypeDecl } from './model.js';

/** Go package qualifier (as `reflect.Type.String()` prints it) → import path. */
const PACKAGE_PATHS: Readonly<Record<string, string>> = {
  v1: 'k8s.io/api/core/v1',
  resource: 'k8s.io/apimachinery/pkg/api/resource',
  intstr: 'k8s.io/apimachinery/pkg/util/intstr',
  inf: 'gopkg.in/inf.v0',
  big: 'math/big',
};
const CORE_V1 = 'k8s.io/api/core/v1';

const BASIC_KINDS: ReadonlySet<string> = new Set(['string', 'bool', 'int', 'int32', 'int64', 'uint']);

// ---------------------------------------------------------------------------------------------
// Go declarations
// ---------------------------------------------------------------------------------------------

/**
 * A named struct field. `jsonTag` is the raw `json:"…"` tag ('' when the field has none); the
 * JSON name and omitempty follow encoding/json's reading of it: only the exact option
 * `omitempty` counts (1.12's `omitEmpty` does not), an untagged exported field keeps its Go
 * name, and unexported fields have no JSON name at all.
 */
export function field(goName: string, goType: string, jsonTag = ''): FieldDecl {
  const exported = isExported(goName);
  const { name, options } = parseTag(jsonTag);
  const decl: FieldDecl = {
    goName,
    goType,
    jsonName: !exported ? '' : name !== '' ? name : goName,
    omitempty: options.includes('omitempty'),
    exported,
    jsonTag,
  };
  return withInline(decl, options);
}

/**
 * An anonymous (embedded) field: Go names it after its type (`v1.Handler` → `Handler`,
 * `*inf.Dec` → `Dec`); its JSON name is empty because encoding/json promotes its fields.
 */
export function embed(goType: string, jsonTag = ''): FieldDecl {
  const goName = goType.replace(/^\*/, '').replace(/^[^.]*\./, '');
  const { name, options } = parseTag(jsonTag);
  const decl: FieldDecl = {
    goName,
    goType,
    jsonName: name,
    omitempty: options.includes('omitempty'),
    embedded: true,
    exported: isExported(goName),
    jsonTag,
  };
  return withInline(decl, options);
}

/** A named struct type; its package comes from the qualifier in `name` (`v1.`, `resource.`). */
export function struct(name: string, fields: readonly FieldDecl[], opts: { jsonCustomMarshal?: true } = {}): TypeDecl {
  const pkgPath = packagePath(name);
  const decl: TypeDecl = { name, pkgPath, kind: 'struct', fields: [...fields] };
  if (opts.jsonCustomMarshal) decl.jsonCustomMarshal = true;
  if (pkgPath !== CORE_V1) decl.external = true;
  return decl;
}

/**
 * A named non-struct type, given by its underlying Go type: `named('v1.Protocol', 'string')`,
 * `named('v1.ResourceList', 'map[v1.ResourceName]resource.Quantity')`, `named('big.nat', '[]big.Word')`.
 */
export function named(name: string, underlying: string): TypeDecl {
  const pkgPath = packagePath(name);
  let decl: TypeDecl;
  if (underlying.startsWith('map[')) {
    const close = underlying.indexOf(']');
    const key = underlying.slice(4, close);
    if (close < 0 || key.includes('[')) throw new Error(`named ${name}: unsupported map type ${underlying}`);
    decl = { name, pkgPath, kind: 'map', underlying, key, elem: underlying.slice(close + 1) };
  } else if (underlying.startsWith('[]')) {
    decl = { name, pkgPath, kind: 'slice', underlying, elem: underlying.slice(2) };
  } else if (BASIC_KINDS.has(underlying)) {
    decl = { name, pkgPath, kind: underlying as DeclKind, underlying };
  } else {
    throw new Error(`named ${name}: underlying type ${underlying} is not a basic, map or slice type`);
  }
  if (pkgPath !== CORE_V1) decl.external = true;
  return decl;
}

function isExported(goName: string): boolean {
  const first = goName.charAt(0);
  return first !== first.toLowerCase() && first === first.toUpperCase();
}

function parseTag(jsonTag: string): { name: string; options: string[] } {
  const [name = '', ...options] = jsonTag.split(',');
  return { name, options };
}

/** The extracted models carry an `inline` key only on fields whose tag says `,inline`. */
function withInline(decl: FieldDecl, options: readonly string[]): FieldDecl {
  if (!options.includes('inline')) return decl;
  // Rebuild so the key sits where the extractor put it (after `embedded`), keeping JSON output identical.
  const { exported, jsonTag, ...head } = decl;
  return { ...head, inline: true, exported, jsonTag };
}

function packagePath(typeName: string): string {
  const qualifier = typeName.slice(0, typeName.indexOf('.'));
  const path = PACKAGE_PATHS[qualifier];
  if (path === undefined) throw new Error(`unknown Go package qualifier in type name ${typeName}`);
  return path;
}

// ---------------------------------------------------------------------------------------------
// Releases and deltas
// ---------------------------------------------------------------------------------------------

/**
 * A kubelet feature gate's state in one release (kube_features.go), as
 * {@link ReleaseInfo.featureGates} lists it.
 *
 * @example
 * ```ts
 * import { releaseInfo, type FeatureGateInfo } from 'kubelet-hash';
 *
 * const resize: FeatureGateInfo | undefined = releaseInfo('1.33').featureGates.InPlacePodVerticalScaling;
 * resize; // → { default: true, stage: 'beta', locked: false }
 * releaseInfo('1.35').featureGates.InPlacePodVerticalScaling; // → { default: true, stage: 'GA', locked: true }
 * ```
 *
 * @group Releases
 */
export interface FeatureGateInfo {
  /** Default when the kubelet's --feature-gates does not mention it. */
  readonly default: boolean;
  /** Maturity of the gate in this release (alpha gates are off by default). */
  readonly stage: 'alpha' | 'beta' | 'GA' | 'deprecated';
  /** GA and locked: the kubelet refuses to start with the gate set against its default. */
  readonly locked: boolean;
}

/**
 * The kubelet feature gates that change how the hash is used (not how it is computed).
 *
 * @example
 * ```ts
 * import { releaseInfo, type GateName } from 'kubelet-hash';
 * const gates = Object.keys(releaseInfo('1.30').featureGates) as GateName[];
 * gates; // → ['InPlacePodVerticalScaling', 'SidecarContainers']
 * ```
 *
 * @group Releases
 */
export type GateName =
  | 'ChangeContainerStatusOnKubeletRestart'
  | 'ContainerRestartRules'
  | 'InPlacePodLevelResourcesVerticalScaling'
  | 'InPlacePodVerticalScaling'
  | 'LegacySidecarContainers'
  | 'PodLevelResources'
  | 'RestartAllContainersOnContainerExits'
  | 'SidecarContainers';

/** Alpha: off unless the kubelet's --feature-gates turns it on. */
export const ALPHA_OFF: FeatureGateInfo = Object.freeze({ default: false, stage: 'alpha', locked: false });
/** Beta: on unless turned off. */
export const BETA_ON: FeatureGateInfo = Object.freeze({ default: true, stage: 'beta', locked: false });
/** Deprecated and off: a behaviour that was always on, now off unless the gate turns it back on. */
export const DEPRECATED_OFF: FeatureGateInfo = Object.freeze({ default: false, stage: 'deprecated', locked: false });
/** GA and locked on: the kubelet refuses `Gate=false`. */
export const GA_LOCKED: FeatureGateInfo = Object.freeze({ default: true, stage: 'GA', locked: true });
/**
 * A gate removed from kube_features.go; the kubelet refuses the name (`unrecognized feature gate`).
 * A GA, locked gate's behaviour stays on; a deprecated gate's (off by default) is gone with it.
 */
export const REMOVED = 'removed';

/**
 * What a release's kubelet does with a container hash. A delta states only what changes in its
 * release and inherits the rest from the release before it.
 */
export interface KubeletFacts {
  /** What `HashContainer` hashes. */
  kubeletHashAlgorithm: HashAlgorithmName;
  /** `HashContainerWithoutResources` exists (in-place pod resize, 1.27–1.30). */
  hasHashWithoutResources: boolean;
  /** encoding/json's BS/FF escaping by the Go that built the `.0` release; null while the hash is not JSON. */
  jsonEscapes: JsonEscapeMode | null;
  /** Running sidecars are restarted when their hash changes (with SidecarContainers on). */
  restartsSidecarsOnHashChange: boolean;
  /** Stage of each gate that exists in this release; a delta lists only the gates that change. */
  featureGates: Readonly<Partial<Record<GateName, FeatureGateInfo>>>;
  /** GA gates removed in this or an earlier release: their behaviour is always on (derived from {@link REMOVED}). */
  retiredGates: readonly GateName[];
}

/**
 * The Go release that built later patches of a minor, when it is not the `.0` build's and its
 * encoding/json escapes differently: patches from `fromPatch` on write `escapes`.
 *
 * @example
 * ```ts
 * import { releaseInfo, type PatchToolchain } from 'kubelet-hash';
 *
 * const later: PatchToolchain | null = releaseInfo('1.29').laterPatchToolchain;
 * [later?.fromPatch, later?.go, later?.escapes]; // → [7, 'go1.22.5', 'go1.22']
 * releaseInfo('1.30').laterPatchToolchain; // → null
 * ```
 *
 * @group Releases
 */
export interface PatchToolchain {
  /** The first patch release built with the newer Go (`7` for 1.29.7). */
  readonly fromPatch: number;
  /** That Go release (`go1.22.5`). */
  readonly go: string;
  /** encoding/json's BS/FF escaping of that Go. */
  readonly escapes: JsonEscapeMode;
  /** Where this was read (cherry-pick PR, release notes). */
  readonly source: string;
}

/** Facts of one release only, never inherited by the next. */
interface ReleaseOnlyFacts {
  /**
   * Later patch releases were rebuilt with a newer Go whose encoding/json escapes differently
   * (1.27.16, 1.28.12+ and 1.29.7+ were built with Go 1.22.5: kubernetes#125898, #125897, #125896).
   */
  laterPatchToolchain?: PatchToolchain;
}

/** A delta's gate changes: a new stage, or {@link REMOVED}. */
export type GateChanges = Readonly<Partial<Record<GateName, FeatureGateInfo | typeof REMOVED>>>;

/**
 * The upstream commits a release's model was read from. The tag is `kubernetes-<version>.0` unless
 * `tag` names another one (1.37: `v0.37.0`, the `kubernetes-1.37.0` tags being unavailable); `note` says why.
 */
export interface ReleaseSources {
  api: { commit: string; date: string };
  apimachinery: { commit: string; date: string };
  /** The tag of both repositories when it is not `kubernetes-<version>.0`. */
  tag?: string;
  /** Why another tag was read (kept in the model's `k8s.io/api` source). */
  note?: string;
}

/** The first release, declared in full. */
export interface BaseRelease {
  version: string;
  source: ReleaseSources;
  kubelet: KubeletFacts & ReleaseOnlyFacts;
  /** Every type of the closure; order is irrelevant (the assembler orders them breadth-first). */
  types: readonly TypeDecl[];
}

/** A later release: the previous one plus `changes`; kubelet facts not given are inherited. */
export interface ReleaseDelta {
  version: string;
  source: ReleaseSources;
  kubelet?: Partial<Omit<KubeletFacts, 'featureGates' | 'retiredGates'>> &
    ReleaseOnlyFacts & { featureGates?: GateChanges };
  changes: readonly Change[];
}

export type Change =
  | { readonly op: 'addType'; readonly decl: TypeDecl }
  | { readonly op: 'removeType'; readonly name: string }
  | { readonly op: 'replaceType'; readonly decl: TypeDecl }
  | { readonly op: 'renameType'; readonly from: string; readonly to: string }
  | { readonly op: 'copyType'; readonly from: string; readonly to: string }
  | { readonly op: 'addField'; readonly type: string; readonly field: FieldDecl; readonly after: string | null }
  | { readonly op: 'removeField'; readonly type: string; readonly goName: string }
  | { readonly op: 'replaceField'; readonly type: string; readonly field: FieldDecl };

/** Where a new field goes: after an existing field, or first in the struct. */
export type FieldPosition = { readonly after: string } | { readonly first: true };

/** A type that becomes reachable from `v1.Container` in this release. */
export function addType(decl: TypeDecl): Change {
  return { op: 'addType', decl };
}

/** A type that is no longer reachable. */
export function removeType(name: string): Change {
  return { op: 'removeType', name };
}

/** A type whose declaration changes (kind, underlying type) while its name stays. */
export function replaceType(decl: TypeDecl): Change {
  return { op: 'replaceType', decl };
}

/**
 * A type renamed upstream: the declaration and every reference to it move to the new name, and
 * an embedded field of that type takes the new name too (Go names embedded fields after their type).
 */
export function renameType(from: string, to: string): Change {
  return { op: 'renameType', from, to };
}

/** A new type declared exactly like an existing one (the first step of splitting a type in two). */
export function copyType(from: string, to: string): Change {
  return { op: 'copyType', from, to };
}

export function addField(type: string, newField: FieldDecl, position: FieldPosition): Change {
  return { op: 'addField', type, field: newField, after: 'after' in position ? position.after : null };
}

export function removeField(type: string, goName: string): Change {
  return { op: 'removeField', type, goName };
}

/** A field whose Go type or tag changes in place; matched by its Go name. */
export function replaceField(type: string, newField: FieldDecl): Change {
  return { op: 'replaceField', type, field: newField };
}
