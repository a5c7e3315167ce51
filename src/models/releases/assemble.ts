/**
 * Turns the base release plus its chain of deltas into one complete, deep-frozen
 * {@link ReleaseModel} per release. Declarations are treated as immutable values: a change builds
 * new objects for what it touches, so releases share the declarations that did not change.
 */
import type { JsonEscapeMode } from '../json-escapes.js';
import type { BaseRelease, Change, ReleaseDelta, ReleaseSources } from '../dsl.js';
import { resolveKubeletFacts, type ResolvedKubeletFacts } from '../kubelet-facts.js';
import type { FieldDecl, ReleaseModel, TypeDecl } from '../model.js';

const ROOT = 'v1.Container';
const API_FILES = 'core/v1/*.go (type declarations reachable from Container)';
const APIMACHINERY_FILES = 'pkg/api/resource, pkg/util/intstr';
/** How the kube-models files spell each Go toolchain's escaping of BS and FF. */
const ESCAPES_IN_MODEL_FILES: Readonly<Record<JsonEscapeMode, string>> = {
  'pre-go1.22': 'go<1.22 (\\u0008 \\u000c)',
  'go1.22': 'go>=1.22 (\\b \\f)',
};

/** Assembles every release in order: `base`, then each delta applied to the one before it. */
export function assembleReleases(base: BaseRelease, deltas: readonly ReleaseDelta[]): ReleaseModel[] {
  let types = new Map<string, TypeDecl>();
  for (const decl of base.types) {
    if (types.has(decl.name)) throw new Error(`release ${base.version}: type ${decl.name} declared twice`);
    types.set(decl.name, cloneDecl(decl));
  }
  const facts = resolveKubeletFacts(base, deltas);
  const models = [buildModel(base.version, base.source, facts[0], types)];
  deltas.forEach((delta, i) => {
    types = new Map(types);
    for (const change of delta.changes) applyChange(types, change, delta.version);
    models.push(buildModel(delta.version, delta.source, facts[i + 1], types));
  });
  return models;
}

function buildModel(
  version: string,
  source: ReleaseSources,
  facts: ResolvedKubeletFacts | undefined,
  types: ReadonlyMap<string, TypeDecl>,
): ReleaseModel {
  if (facts?.version !== version) throw new Error(`release ${version}: kubelet facts out of step`);
  const tag = source.tag ?? `kubernetes-${version}.0`;
  const note = source.note === undefined ? {} : { note: source.note };
  return deepFreeze({
    version,
    root: ROOT,
    kubeletHashAlgorithm: facts.kubeletHashAlgorithm,
    hasHashWithoutResources: facts.hasHashWithoutResources,
    jsonEncoderEscapes: facts.jsonEscapes === null ? null : ESCAPES_IN_MODEL_FILES[facts.jsonEscapes],
    source: {
      'k8s.io/api': { tag, commit: source.api.commit, date: source.api.date, files: API_FILES, ...note },
      'k8s.io/apimachinery': {
        tag,
        commit: source.apimachinery.commit,
        date: source.apimachinery.date,
        files: APIMACHINERY_FILES,
      },
    },
    types: breadthFirst(types, version).map((decl) => withPromotedEmbeds(decl, types)),
  });
}

/**
 * encoding/json promotes the fields of an embedded struct whose tag gives no name, whatever
 * the options (`json:",inline"` up to 1.36, `json:""` from 1.37: typeFields reads only the
 * name), so the model marks such a field `inline` however it is tagged. Embedded pointers and
 * non-struct types (Quantity's `Format`, `*inf.Dec`) are not marked, as in the extracted files.
 */
function withPromotedEmbeds(decl: TypeDecl, types: ReadonlyMap<string, TypeDecl>): TypeDecl {
  if (!decl.fields?.some((f) => promoted(f, types) && f.inline !== true)) return decl;
  return {
    ...decl,
    fields: decl.fields.map((f) => {
      if (!promoted(f, types) || f.inline === true) return f;
      const { exported, jsonTag, ...head } = f;
      // The key sits where the extractor puts it (after `embedded`), so the JSON text is identical.
      return { ...head, inline: true, exported, jsonTag };
    }),
  };
}

function promoted(f: FieldDecl, types: ReadonlyMap<string, TypeDecl>): boolean {
  return f.embedded === true && f.jsonName === '' && types.get(f.goType)?.kind === 'struct';
}

/**
 * The extracted models list types breadth-first from `v1.Container` in the order their names
 * first appear in field types, so deltas need not say where a new type goes. Declared types
 * that nothing reaches, and references to undeclared types, are mistakes in a delta.
 */
function breadthFirst(types: ReadonlyMap<string, TypeDecl>, version: string): TypeDecl[] {
  const order: TypeDecl[] = [];
  const seen = new Set<string>([ROOT]);
  const queue = [ROOT];
  for (let i = 0; i < queue.length; i++) {
    const name = queue[i] as string;
    const decl = types.get(name);
    if (!decl) throw new Error(`release ${version}: type ${name} is referenced but not declared`);
    order.push(decl);
    const refs = [...(decl.fields ?? []).map((f) => f.goType), ...(decl.underlying ? [decl.underlying] : [])];
    for (const ref of refs.flatMap(namedTypesIn)) {
      if (!seen.has(ref)) {
        seen.add(ref);
        queue.push(ref);
      }
    }
  }
  const unreachable = [...types.keys()].filter((name) => !seen.has(name));
  if (unreachable.length > 0) {
    throw new Error(`release ${version}: declared but unreachable from ${ROOT}: ${unreachable.join(', ')}`);
  }
  return order;
}

/** Named types in a Go type string, left to right (`map[v1.ResourceName]resource.Quantity` → both). */
function namedTypesIn(typeString: string): string[] {
  // Every named type has a package qualifier; builtins (`string`, `map`) have no dot.
  return (typeString.match(/[\w.]+/g) ?? []).filter((token) => token.includes('.'));
}

function applyChange(types: Map<string, TypeDecl>, change: Change, version: string): void {
  const fail = (why: string): never => {
    throw new Error(`release ${version}: ${change.op}: ${why}`);
  };
  const existing = (name: string): TypeDecl => types.get(name) ?? fail(`no type ${name}`);
  const structFields = (name: string): FieldDecl[] => existing(name).fields ?? fail(`${name} is not a struct`);
  const indexOfField = (fields: readonly FieldDecl[], goName: string, type: string): number => {
    const i = fields.findIndex((f) => f.goName === goName);
    return i >= 0 ? i : fail(`${type} has no field ${goName}`);
  };
  const withFields = (name: string, fields: FieldDecl[]): void => {
    types.set(name, { ...existing(name), fields });
  };

  switch (change.op) {
    case 'addType':
      if (types.has(change.decl.name)) fail(`type ${change.decl.name} already exists`);
      types.set(change.decl.name, cloneDecl(change.decl));
      return;
    case 'removeType':
      existing(change.name);
      types.delete(change.name);
      return;
    case 'replaceType':
      existing(change.decl.name);
      types.set(change.decl.name, cloneDecl(change.decl));
      return;
    case 'copyType': {
      if (types.has(change.to)) fail(`type ${change.to} already exists`);
      types.set(change.to, { ...cloneDecl(existing(change.from)), name: change.to });
      return;
    }
    case 'renameType': {
      const decl = existing(change.from);
      if (types.has(change.to)) fail(`type ${change.to} already exists`);
      if (packageOf(change.from) !== packageOf(change.to)) fail('a rename cannot move a type to another package');
      types.delete(change.from);
      types.set(change.to, { ...decl, name: change.to });
      for (const [name, other] of types) {
        const renamed = renameReferences(other, change.from, change.to);
        if (renamed !== other) types.set(name, renamed);
      }
      return;
    }
    case 'addField': {
      const fields = structFields(change.type);
      if (fields.some((f) => f.goName === change.field.goName))
        fail(`${change.type} already has ${change.field.goName}`);
      const at = change.after === null ? 0 : indexOfField(fields, change.after, change.type) + 1;
      withFields(change.type, [...fields.slice(0, at), { ...change.field }, ...fields.slice(at)]);
      return;
    }
    case 'removeField': {
      const fields = structFields(change.type);
      const at = indexOfField(fields, change.goName, change.type);
      withFields(
        change.type,
        fields.filter((_, i) => i !== at),
      );
      return;
    }
    case 'replaceField': {
      const fields = structFields(change.type);
      const at = indexOfField(fields, change.field.goName, change.type);
      withFields(
        change.type,
        fields.map((f, i) => (i === at ? { ...change.field } : f)),
      );
      return;
    }
  }
}

/** `decl` with every mention of type `from` replaced by `to` (the same object if none). */
function renameReferences(decl: TypeDecl, from: string, to: string): TypeDecl {
  const rename = (ts: string): string => ts.replace(/[\w.]+/g, (token) => (token === from ? to : token));
  let changed = false;
  const fields = decl.fields?.map((f) => {
    const goType = rename(f.goType);
    if (goType === f.goType) return f;
    changed = true;
    // Go names an embedded field after its type, so the field is renamed with it.
    const goName = f.embedded && f.goName === shortName(from) ? shortName(to) : f.goName;
    return { ...f, goName, goType };
  });
  const next: TypeDecl = { ...decl };
  if (fields) next.fields = fields;
  for (const key of ['underlying', 'key', 'elem'] as const) {
    const value = decl[key];
    if (value !== undefined && rename(value) !== value) {
      next[key] = rename(value);
      changed = true;
    }
  }
  return changed ? next : decl;
}

function shortName(typeName: string): string {
  return typeName.slice(typeName.indexOf('.') + 1);
}

function packageOf(typeName: string): string {
  return typeName.slice(0, typeName.indexOf('.'));
}

/** A private copy, so freezing the assembled model never freezes a release file's constants. */
function cloneDecl(decl: TypeDecl): TypeDecl {
  const copy: TypeDecl = { ...decl };
  if (decl.fields) copy.fields = decl.fields.map((f) => ({ ...f }));
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
