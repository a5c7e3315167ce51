/**
 * Whether a JSON path inside a container names a field of one release's `v1.Container` model, so
 * defaulting never adds a field the release does not have (startupProbe before 1.16, grpc before
 * 1.23, resizePolicy before 1.27…).
 */
import type { FieldDecl, ReleaseModel, TypeDecl } from '../models/model.js';
import { releaseModel } from '../models/catalog.js';

/** The Go field a path ends at: its declaration, or null when the release lacks a step of the path. */
export function fieldAt(release: string, path: readonly string[]): FieldDecl | null {
  const model = releaseModel(release);
  const types = typesOf(model);
  let type = types.get(model.root);
  let field: FieldDecl | null = null;
  for (const step of path) {
    if (step === '*') {
      // Step into a slice element: the field just reached must be a slice.
      if (field === null || !field.goType.startsWith('[]')) return null;
      type = types.get(elementName(field.goType));
      continue;
    }
    if (type === undefined) return null;
    field = jsonField(type, step, types);
    if (field === null) return null;
    type = types.get(elementName(field.goType));
  }
  return field;
}

const byModel = new WeakMap<ReleaseModel, Map<string, TypeDecl>>();

function typesOf(model: ReleaseModel): Map<string, TypeDecl> {
  let m = byModel.get(model);
  if (!m) {
    m = new Map(model.types.map((t) => [t.name, t]));
    byModel.set(model, m);
  }
  return m;
}

/** `*v1.Probe` → `v1.Probe`; `[]v1.ContainerPort` → `v1.ContainerPort`. */
function elementName(goType: string): string {
  return goType.replace(/^(\*|\[\])+/, '');
}

/** The field a JSON key decodes into, looking through embedded (inlined) structs such as v1.ProbeHandler. */
function jsonField(type: TypeDecl, key: string, types: Map<string, TypeDecl>): FieldDecl | null {
  for (const f of type.fields ?? []) {
    if (f.embedded && f.jsonName === '') {
      const inner = types.get(elementName(f.goType));
      const found = inner ? jsonField(inner, key, types) : null;
      if (found) return found;
    } else if (f.jsonName === key) {
      return f;
    }
  }
  return null;
}
