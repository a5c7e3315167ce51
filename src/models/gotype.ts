/**
 * Resolved Go types: the model's type strings (`*v1.Probe`, `[]string`, `map[K]V`) turned into a
 * graph the decoder and encoders walk. `name` is always `reflect.Type.String()`, which is what
 * go-spew prints in `(…)` annotations.
 */
import type { FieldDecl, ReleaseModel, TypeDecl } from './model.js';

type ScalarKind = 'string' | 'bool' | 'int' | 'int32' | 'int64' | 'uint';

export interface ScalarType {
  readonly kind: ScalarKind;
  readonly name: string;
}
export interface PointerType {
  readonly kind: 'ptr';
  readonly name: string;
  readonly elem: GoType;
}
export interface SliceType {
  readonly kind: 'slice';
  readonly name: string;
  readonly elem: GoType;
}
export interface MapType {
  readonly kind: 'map';
  readonly name: string;
  readonly key: GoType;
  readonly elem: GoType;
}
export interface StructType {
  readonly kind: 'struct';
  readonly name: string;
  readonly fields: readonly GoField[];
  /** Marshals through its own `MarshalJSON` (Quantity, IntOrString, big.Int). */
  readonly jsonCustomMarshal: boolean;
}
export type GoType = ScalarType | PointerType | SliceType | MapType | StructType;

interface GoFieldCommon {
  readonly goName: string;
  readonly jsonName: string;
  readonly omitempty: boolean;
  /** Anonymous field: spew prints it under its type name (`Handler:`). */
  readonly embedded: boolean;
  readonly exported: boolean;
}

/**
 * A struct field. `inline` (decided once, here) marks an embedded struct without a JSON name:
 * encoding/json promotes its fields into the parent's object, so it has no JSON key of its own.
 */
export type GoField =
  | (GoFieldCommon & { readonly inline: true; readonly type: StructType })
  | (GoFieldCommon & { readonly inline: false; readonly type: GoType });

const SCALARS: ReadonlySet<string> = new Set(['string', 'bool', 'int', 'int32', 'int64', 'uint']);

/** The Go type names with their own JSON encoding; encoders special-case them by name. */
export const QUANTITY_TYPE = 'resource.Quantity';
export const INT_OR_STRING_TYPE = 'intstr.IntOrString';

/** Resolves every type string of a model to a shared {@link GoType} node (memoised per model). */
export class TypeResolver {
  private readonly decls: Map<string, TypeDecl>;
  private readonly cache = new Map<string, GoType>();

  constructor(model: Pick<ReleaseModel, 'types'>) {
    this.decls = new Map(model.types.map((t) => [t.name, t]));
  }

  resolve(typeString: string): GoType {
    const hit = this.cache.get(typeString);
    if (hit) return hit;
    const made = this.build(typeString);
    this.cache.set(typeString, made);
    return made;
  }

  private build(ts: string): GoType {
    if (ts.startsWith('*')) return { kind: 'ptr', name: ts, elem: this.resolve(ts.slice(1)) };
    if (ts.startsWith('[]')) return { kind: 'slice', name: ts, elem: this.resolve(ts.slice(2)) };
    if (ts.startsWith('map[')) {
      const close = matchingBracket(ts, 3);
      return { kind: 'map', name: ts, key: this.resolve(ts.slice(4, close)), elem: this.resolve(ts.slice(close + 1)) };
    }
    const decl = this.decls.get(ts);
    if (!decl) {
      if (SCALARS.has(ts)) return { kind: ts as ScalarKind, name: ts };
      throw new Error(`model has no declaration for Go type ${ts}`);
    }
    return this.fromDecl(decl);
  }

  private fromDecl(decl: TypeDecl): GoType {
    switch (decl.kind) {
      case 'struct': {
        // Placeholder first so a self-referential struct would resolve to the same node.
        const node: { kind: 'struct'; name: string; fields: GoField[]; jsonCustomMarshal: boolean } = {
          kind: 'struct',
          name: decl.name,
          fields: [],
          jsonCustomMarshal: decl.jsonCustomMarshal === true,
        };
        this.cache.set(decl.name, node);
        for (const f of decl.fields ?? []) node.fields.push(this.field(f));
        return node;
      }
      case 'slice':
        return { kind: 'slice', name: decl.name, elem: this.resolve(requireProp(decl, 'elem')) };
      case 'map':
        return {
          kind: 'map',
          name: decl.name,
          key: this.resolve(requireProp(decl, 'key')),
          elem: this.resolve(requireProp(decl, 'elem')),
        };
      default:
        return { kind: decl.kind, name: decl.name };
    }
  }

  private field(f: FieldDecl): GoField {
    const type = this.resolve(f.goType);
    const common = {
      goName: f.goName,
      jsonName: f.jsonName,
      omitempty: f.omitempty,
      embedded: f.embedded === true,
      exported: f.exported,
    };
    return f.embedded === true && f.jsonName === '' && type.kind === 'struct'
      ? { ...common, inline: true, type }
      : { ...common, inline: false, type };
  }
}

function requireProp(decl: TypeDecl, prop: 'elem' | 'key'): string {
  const v = decl[prop];
  if (v === undefined) throw new Error(`model declares ${decl.name} (${decl.kind}) without ${prop}`);
  return v;
}

function matchingBracket(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '[') depth++;
    else if (s[i] === ']' && --depth === 0) return i;
  }
  throw new Error(`unbalanced brackets in Go type ${s}`);
}

/** The type a (chain of) pointer(s) points to; any other type as it is. */
export function deref(t: GoType | null): GoType | null {
  while (t?.kind === 'ptr') t = t.elem;
  return t;
}

/** The root type (`v1.Container`) of a model, resolved. */
export function resolveRoot(model: Pick<ReleaseModel, 'types' | 'root'>): StructType {
  const root = new TypeResolver(model).resolve(model.root);
  if (root.kind !== 'struct') throw new Error(`model root ${model.root} is not a struct`);
  return root;
}
