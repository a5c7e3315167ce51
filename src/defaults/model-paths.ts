/**
 * Whether a JSON path inside a container names a field of one release's `v1.Container` model, so
 * defaulting never adds a field the release does not have (startupProbe before 1.16, grpc before
 * 1.23, resizePolicy before 1.27…).
 */
import type { ReleaseModel } from '../models/model.js';
import { releaseModel } from '../models/catalog.js';
import { deref, resolveRoot, type GoField, type StructType } from '../models/gotype.js';

/** The Go field a path ends at, or null when the release lacks a step of the path. */
export function fieldAt(release: string, path: readonly string[]): GoField | null {
  let type = deref(rootOf(releaseModel(release)));
  let field: GoField | null = null;
  for (const step of path) {
    if (step === '*') {
      // Step into a slice element: the field just reached must be a slice.
      if (field?.type.kind !== 'slice') return null;
      type = deref(field.type.elem);
      continue;
    }
    if (type?.kind !== 'struct') return null;
    field = jsonField(type, step);
    if (field === null) return null;
    type = deref(field.type);
  }
  return field;
}

const roots = new WeakMap<ReleaseModel, StructType>();

function rootOf(model: ReleaseModel): StructType {
  let root = roots.get(model);
  if (!root) {
    root = resolveRoot(model);
    roots.set(model, root);
  }
  return root;
}

/** The field a JSON key decodes into, looking through inlined embedded structs such as v1.ProbeHandler. */
function jsonField(type: StructType, key: string): GoField | null {
  for (const f of type.fields) {
    if (f.inline) {
      const found = jsonField(f.type, key);
      if (found) return found;
    } else if (f.jsonName === key) {
      return f;
    }
  }
  return null;
}
