/**
 * The changes between two pod templates (or two Pods' metadata and spec), as JSON-patch-like
 * operations with paths from the template root (`['spec','containers',0,'image']`). Containers
 * are compared per list index, as the apiserver and OpenKruise compare them, on the values the
 * release model decodes (quantities by value, `[]`/`{}` as absent); the rest of the template is
 * compared as JSON with `null`, `[]` and `{}` counting as absent, as a Go round trip with
 * `omitempty` leaves them.
 */
import { formatJsonPath, KubeletHashError, type JsonPathSegment } from '../errors.js';
import { deepEqual, diffGoValuePaths } from '../go/value-diff.js';
import { DECODE_ONLY, hashesFor } from '../hash/hashes-for.js';
import type { ReleaseInfo } from '../releases/index.js';
import { isPlainObject } from '../decode/input.js';
import { CONTAINER_LISTS } from '../pod/locate.js';

/** How one value changed: only in the new template, only in the old one, or in both and different. */
type ChangeOp = 'add' | 'remove' | 'replace';

/** One change of a template. */
export interface TemplateChange {
  op: ChangeOp;
  /** From the template root: `['spec', 'containers', 0, 'env']`, `['metadata', 'labels', 'app']`. */
  path: JsonPathSegment[];
}

/** A pod template as the rules read it: its metadata and pod spec (either may be missing). */
export interface PodTemplateParts {
  metadata: unknown;
  spec: unknown;
}

/** `spec.containers[0].env`: a change's path as people and apiserver messages write it. */
export function fieldPath(path: readonly JsonPathSegment[]): string {
  return formatJsonPath(path).replace(/^\./, '');
}

/** The member at `path`, or undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly JsonPathSegment[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (typeof seg === 'number') v = Array.isArray(v) ? (v as unknown[])[seg] : undefined;
    else v = isPlainObject(v) ? v[seg] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** null, `[]`, `{}` and missing values: what `omitempty` leaves out and the apiserver stores as nil. */
export function isAbsent(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).every((k) => isAbsent(v[k]));
  return false;
}

/**
 * The changes from `before` to `after`; containers decoded with `info`'s model, their decode
 * errors rooted at `root` (where the template sits in the document: `['spec', 'template']`).
 */
export function diffTemplates(
  before: PodTemplateParts,
  after: PodTemplateParts,
  info: ReleaseInfo,
  root: readonly JsonPathSegment[] = [],
): TemplateChange[] {
  const out: TemplateChange[] = [];
  const a = isPlainObject(before.spec) ? before.spec : {};
  const b = isPlainObject(after.spec) ? after.spec : {};
  const lists = new Set<string>(CONTAINER_LISTS);
  const rest = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !lists.has(k)));
  // Member by member: a metadata or spec whose only other member is new is not an added `spec`
  // (an empty map counts as absent), so every change is named by its own field.
  const members = (x: unknown, y: unknown, top: string) => {
    const ox = isPlainObject(x) ? x : {};
    const oy = isPlainObject(y) ? y : {};
    for (const k of new Set([...Object.keys(ox), ...Object.keys(oy)])) diffJson(ox[k], oy[k], [top, k], out);
  };
  members(before.metadata, after.metadata, 'metadata');
  members(rest(a), rest(b), 'spec');
  for (const list of CONTAINER_LISTS) diffContainerList(a[list], b[list], ['spec', list], info, out, root);
  return out;
}

function diffContainerList(
  a: unknown,
  b: unknown,
  path: JsonPathSegment[],
  info: ReleaseInfo,
  out: TemplateChange[],
  root: readonly JsonPathSegment[],
): void {
  const la = Array.isArray(a) ? (a as unknown[]) : [];
  const lb = Array.isArray(b) ? (b as unknown[]) : [];
  if (la.length !== lb.length) {
    out.push({ op: la.length === 0 ? 'add' : lb.length === 0 ? 'remove' : 'replace', path });
    return;
  }
  la.forEach((ca, i) => {
    const cb = lb[i];
    const p = [...path, i];
    if (!isPlainObject(ca) || !isPlainObject(cb)) {
      // Not containers (the front ends refuse those before): a change of the element as a whole.
      if (!deepEqual(ca, cb)) out.push({ op: 'replace', path: p });
      return;
    }
    // Decode errors are rooted where the container sits in the document.
    const at = [...root, ...p];
    const { pipeline } = hashesFor(ca, info, undefined, { ...DECODE_ONLY, path: at });
    hashesFor(cb, info, undefined, { ...DECODE_ONLY, path: at });
    const decode = (x: unknown) => {
      try {
        return pipeline.decodeFull(x);
      } catch (e) {
        throw e instanceof KubeletHashError ? e.withPathPrefix(at) : e;
      }
    };
    const va = decode(ca);
    const vb = decode(cb);
    for (const sub of diffGoValuePaths(pipeline.root, va, vb)) {
      const inA = !isAbsent(valueAt(ca, sub));
      const inB = !isAbsent(valueAt(cb, sub));
      out.push({ op: inA && inB ? 'replace' : inB ? 'add' : 'remove', path: [...p, ...sub] });
    }
  });
}

/** JSON diff with absent values normalised; arrays of equal length element by element. */
function diffJson(a: unknown, b: unknown, path: JsonPathSegment[], out: TemplateChange[]): void {
  const absentA = isAbsent(a);
  const absentB = isAbsent(b);
  if (absentA && absentB) return;
  if (absentA || absentB) {
    out.push({ op: absentA ? 'add' : 'remove', path });
    return;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const oa = a;
    const ob = b;
    for (const k of new Set([...Object.keys(oa), ...Object.keys(ob)])) diffJson(oa[k], ob[k], [...path, k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => diffJson(x, (b as unknown[])[i], [...path, i], out));
    return;
  }
  if (!deepEqual(a, b)) out.push({ op: 'replace', path });
}
