/**
 * `explainHashChange`: why two kubelet releases compute different hashes for one container, at
 * field level. Nothing here is written per release: every reason is derived from the two releases'
 * type models, the decoded values and the pre-images.
 */
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { formatJsonPath, type JsonPathSegment } from '../errors.js';
import { preimageAndHash } from '../hash/compute.js';
import { formatHash } from '../hash/format.js';
import { parseJson } from '../json/parse.js';
import { releaseModel } from '../models/catalog.js';
import { deref, type GoType, type StructType } from '../models/gotype.js';
import type { HashAlgorithmName, TypeDecl } from '../models/model.js';
import type { ReleaseInfo } from '../releases/index.js';
import { RELEASE_PAIR_FIELDS, resolvePair, type ReleasePair, type ReleaseSide } from '../hash/release.js';
import { readOptionFields } from '../option-fields.js';
import { droppedFields, lookupJsonKey } from './input-fields.js';
import { diffJson, stringsWithBsFf, type JsonDifference } from './json-diff.js';
import { reachedStructs } from './reached-types.js';
import type { HashChangeExplanation, HashChangeReason, HashSide } from './types.js';
import { CONTAINER_CHECKS, hashesFor, type ContainerInput, type ReleaseHashes } from '../hash/hashes-for.js';

/**
 * Options of {@link explainHashChange}: the two releases to compare.
 *
 * @example
 * ```ts
 * import { explainHashChange, type ExplainOptions } from 'kubelet-hash';
 *
 * const options: ExplainOptions = { from: '1.29', to: '1.29', fromJsonEscapes: 'pre-go1.22', toJsonEscapes: 'go1.22' };
 * const explanation = explainHashChange({ name: 'app', image: 'busybox', args: ['\f'] }, options);
 * explanation.reasons.map((r) => r.kind); // → ['json-escaping']
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type ExplainOptions = ReleasePair;

function algorithmText(a: HashAlgorithmName): string {
  if (a === 'legacy') return 'the go-spew text of the v1.Container struct (every field of every reached struct)';
  if (a === 'json') return "the container's JSON encoding (go-spew of the bytes)";
  return 'the JSON of only its name and image';
}

interface Side {
  info: ReleaseInfo;
  escapes: JsonEscapeMode | null;
  h: ReleaseHashes;
  toolchain?: string;
}

/**
 * Why releases `from` and `to` hash `container` differently (or `no-change`), with a one-line
 * `summary`. Every reason is derived from the two releases' Go type models, the decoded values
 * and the pre-images: nothing is written per release. Throws the errors of {@link hashContainer} (a container without a name
 * included), in one order: the options, then the container at `from`, then at `to`.
 *
 * @example
 * ```ts
 * import { explainHashChange } from 'kubelet-hash';
 *
 * const container = { name: 'a', image: 'b', volumeMounts: [{ name: 'v', mountPath: '/v' }] };
 * const why = explainHashChange(container, { from: '1.13', to: '1.14' });
 * why.changed; // → true
 * why.reasons.map((r) => (r.kind === 'field-added' ? `${r.type}.${r.field} at ${r.reachedAt.join(', ')}` : r.kind)); // → ['v1.VolumeMount.SubPathExpr at .volumeMounts[0]']
 * explainHashChange(container, { from: '1.16', to: '1.26' }).summary; // → '1.16 → 1.26: no change (64c9b4cf)'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function explainHashChange(container: ContainerInput, options: ExplainOptions): HashChangeExplanation {
  const opts = readOptionFields<ReleasePair>(options, ['options'], {
    fields: RELEASE_PAIR_FIELDS,
    required: ['from', 'to'],
    expected: 'an options object such as { from: "1.13", to: "1.14" }',
  });
  // The two-release order (translateHash's too): both releases, then the container as the `from`
  // kubelet checks it, then as the `to` kubelet does (the checks of hashContainer).
  const pair = resolvePair(opts, 'options');
  const side = ({ info, escapes, toolchain }: ReleaseSide): Side => ({
    info,
    escapes: info.algorithm === 'legacy' ? null : (escapes ?? info.jsonEscapes),
    h: hashesFor(container, info, escapes, CONTAINER_CHECKS),
    ...(toolchain === undefined ? {} : { toolchain }),
  });
  const a = side(pair.from);
  const b = side(pair.to);
  const show = (s: Side): HashSide => ({
    release: s.info.release,
    algorithm: s.info.algorithm,
    hash: formatHash(s.h.hash),
    jsonEscapes: s.escapes,
    ...(s.toolchain === undefined ? {} : { toolchain: s.toolchain }),
  });
  const from = show(a);
  const to = show(b);

  let reasons: HashChangeReason[];
  if (a.h.hash === b.h.hash) {
    reasons = [{ kind: 'no-change', detail: `both compute ${from.hash}` }];
  } else if (a.info.algorithm !== b.info.algorithm) {
    reasons = [
      {
        kind: 'algorithm',
        from: a.info.algorithm,
        to: b.info.algorithm,
        detail: `${from.release} hashes ${algorithmText(a.info.algorithm)}, ${to.release} hashes ${algorithmText(b.info.algorithm)}: every container's hash changes`,
      },
    ];
  } else if (a.info.algorithm === 'legacy') {
    reasons = [...modelReasons(a, b), ...droppedReasons(a.h.json, a, b, null)];
  } else {
    reasons = jsonReasons(a.h.json, a, b);
  }
  if (reasons.length === 0)
    reasons = [
      { kind: 'unexplained', detail: 'the hashes differ but no model, value or pre-image difference was found' },
    ];
  const head =
    a.h.hash === b.h.hash
      ? `${from.release} → ${to.release}: no change (${from.hash})`
      : `${from.release} → ${to.release}: ${from.hash} → ${to.hash}`;
  const summary = a.h.hash === b.h.hash ? head : `${head}; ${reasons.map((r) => r.detail).join('; ')}`;
  return { from, to, changed: a.h.hash !== b.h.hash, reasons, summary };
}

// --- legacy: the struct layouts of the types the container reaches ---------------------------

function declsByName(release: string): Map<string, TypeDecl> {
  return new Map(releaseModel(release).types.map((t) => [t.name, t]));
}

function modelReasons(a: Side, b: Side): HashChangeReason[] {
  const reachedA = reachedStructs(a.h.value, a.h.pipeline.root);
  const reachedB = reachedStructs(b.h.value, b.h.pipeline.root);
  const declsA = declsByName(a.info.release);
  const declsB = declsByName(b.info.release);
  const names = [...new Set([...reachedA.keys(), ...reachedB.keys()])];
  const out: HashChangeReason[] = [];
  for (const name of names) {
    const da = declsA.get(name);
    const db = declsB.get(name);
    // A type only one release has is reached through a field whose type changed: reported there.
    if (!da?.fields || !db?.fields) continue;
    const reachedAt = [...new Set([...(reachedA.get(name) ?? []), ...(reachedB.get(name) ?? [])])].slice(0, 3);
    const where = reachedAt.map((p) => (p === '.' ? 'the container itself' : p)).join(', ');
    const fa = new Map(da.fields.map((f) => [f.goName, f]));
    const fb = new Map(db.fields.map((f) => [f.goName, f]));
    for (const f of db.fields) {
      const old = fa.get(f.goName);
      if (!old) {
        out.push({
          kind: 'field-added',
          type: name,
          field: f.goName,
          goType: f.goType,
          release: b.info.release,
          reachedAt,
          detail: `${name}.${f.goName} (${f.goType}) exists in ${b.info.release} but not in ${a.info.release}, and go-spew prints every field of ${name}, which this container reaches at ${where}`,
        });
      } else if (old.goType !== f.goType) {
        out.push({
          kind: 'field-retyped',
          type: name,
          field: f.goName,
          fromType: old.goType,
          toType: f.goType,
          reachedAt,
          detail: `${name}.${f.goName} is ${old.goType} in ${a.info.release} and ${f.goType} in ${b.info.release} (reached at ${where})`,
        });
      }
    }
    for (const f of da.fields) {
      if (!fb.has(f.goName)) {
        out.push({
          kind: 'field-removed',
          type: name,
          field: f.goName,
          goType: f.goType,
          release: a.info.release,
          reachedAt,
          detail: `${name}.${f.goName} (${f.goType}) exists in ${a.info.release} but not in ${b.info.release}, and this container reaches ${name} at ${where}`,
        });
      }
    }
    const sharedA = da.fields.map((f) => f.goName).filter((n) => fb.has(n));
    const sharedB = db.fields.map((f) => f.goName).filter((n) => fa.has(n));
    if (sharedA.some((n, i) => n !== sharedB[i])) {
      out.push({
        kind: 'fields-reordered',
        type: name,
        reachedAt,
        detail: `the fields of ${name} are declared in another order in ${b.info.release} (reached at ${where})`,
      });
    }
  }
  return out;
}

// --- fields the container sets that one release does not know ---------------------------------

function droppedReasons(json: unknown, a: Side, b: Side, differences: JsonDifference[] | null): HashChangeReason[] {
  const out: HashChangeReason[] = [];
  for (const d of droppedFields(json, a.h.pipeline.root, b.h.pipeline.root)) {
    // JSON eras: only a drop that shows in the pre-images explains anything (e.g. not for name-image).
    if (differences && !differences.some((x) => startsWith(x.path, d.path))) continue;
    const [release, knownIn] =
      d.droppedBy === 'a' ? [a.info.release, b.info.release] : [b.info.release, a.info.release];
    const path = formatJsonPath(d.path);
    out.push({
      kind: 'field-dropped',
      release,
      path,
      type: d.type,
      field: d.field,
      detail: `the container sets ${path} (${d.type}.${d.field} in ${knownIn}), which ${release}'s types do not have: that kubelet drops it when decoding the pod`,
    });
  }
  return out;
}

function startsWith(path: readonly JsonPathSegment[], prefix: readonly JsonPathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
}

// --- JSON eras: the two pre-images ------------------------------------------------------------

function parsedPreimage(s: Side): unknown {
  return parseJson(new TextDecoder().decode(preimageAndHash(s.h.pipeline, s.h.value).preimage));
}

function jsonReasons(json: unknown, a: Side, b: Side): HashChangeReason[] {
  const pa = parsedPreimage(a);
  const pb = parsedPreimage(b);
  const out: HashChangeReason[] = [];
  if (a.escapes !== b.escapes && a.escapes && b.escapes) {
    const paths = [...new Set([...stringsWithBsFf(pa), ...stringsWithBsFf(pb)].map((p) => formatJsonPath(p)))];
    if (paths.length > 0) {
      out.push({
        kind: 'json-escaping',
        from: a.escapes,
        to: b.escapes,
        paths,
        detail: `${a.info.release} was built with ${a.escapes} encoding/json and ${b.info.release} with ${b.escapes}: BS/FF in ${paths.join(', ')} are written ${a.escapes === 'go1.22' ? '\\b/\\f' : '\\u0008/\\u000c'} vs ${b.escapes === 'go1.22' ? '\\b/\\f' : '\\u0008/\\u000c'}`,
      });
    }
  }
  const { differences, reordered } = diffJson(pa, pb);
  const dropped = droppedReasons(json, a, b, differences);
  out.push(...dropped);
  const droppedPaths = dropped.map((r) => (r.kind === 'field-dropped' ? r.path : ''));
  const added = new Map<string, HashChangeReason & { kind: 'field-added' | 'field-removed' }>();
  for (const d of differences) {
    const path = formatJsonPath(d.path);
    if (droppedPaths.some((p) => path === p || path.startsWith(p + '.') || path.startsWith(p + '['))) continue;
    const emitted = d.kind === 'value' ? null : fieldOnlyIn(d, a, b);
    if (emitted) {
      const key = `${emitted.kind}/${emitted.type}.${emitted.field}`;
      const seen = added.get(key);
      if (seen) {
        if (seen.reachedAt.length < 3) seen.reachedAt.push(path);
      } else {
        added.set(key, emitted);
        out.push(emitted);
      }
      continue;
    }
    out.push({ kind: 'json-difference', path, from: d.a, to: d.b, detail: `the JSON differs at ${path}` });
  }
  for (const r of added.values()) r.detail += ` (at ${r.reachedAt.join(', ')})`;
  for (const p of reordered) {
    const t = deref(typeAt(b.h.pipeline.root, p));
    const name = t?.kind === 'struct' ? t.name : 'an object';
    out.push({
      kind: 'fields-reordered',
      type: name,
      reachedAt: [formatJsonPath(p)],
      detail: `the fields of ${name} are encoded in another order (at ${formatJsonPath(p)})`,
    });
  }
  return out;
}

/** A key present in one pre-image only, explained by a field one model has and writes even when empty. */
function fieldOnlyIn(
  d: JsonDifference,
  a: Side,
  b: Side,
): (HashChangeReason & { kind: 'field-added' | 'field-removed' }) | null {
  const key = d.path[d.path.length - 1];
  if (typeof key !== 'string') return null;
  const parent = d.path.slice(0, -1);
  const [has, lacks] = d.kind === 'only-b' ? [b, a] : [a, b];
  const hasParent = deref(typeAt(has.h.pipeline.root, parent));
  const lacksParent = deref(typeAt(lacks.h.pipeline.root, parent));
  if (hasParent?.kind !== 'struct') return null;
  const field = lookupJsonKey(hasParent, key);
  if (!field || field.field.omitempty) return null;
  if (lacksParent?.kind === 'struct' && lookupJsonKey(lacksParent, key)) return null;
  const kind = d.kind === 'only-b' ? 'field-added' : 'field-removed';
  const type = field.owner.name;
  return {
    kind,
    type,
    field: field.field.goName,
    goType: field.field.type.name,
    release: has.info.release,
    reachedAt: [formatJsonPath(d.path)],
    emittedWhenEmpty: true,
    detail: `${type}.${field.field.goName} exists in ${has.info.release} but not in ${lacks.info.release} and is written even when empty (no omitempty)`,
  };
}

/** The Go type at a JSON path of the pre-image, or null when the model has nothing there. */
function typeAt(root: StructType, path: readonly JsonPathSegment[]): GoType | null {
  let t: GoType | null = root;
  for (const seg of path) {
    t = deref(t);
    if (!t) return null;
    if (t.kind === 'struct' && typeof seg === 'string') t = lookupJsonKey(t, seg)?.field.type ?? null;
    else if (t.kind === 'slice' && typeof seg === 'number') t = t.elem;
    else if (t.kind === 'map' && typeof seg === 'string') t = t.elem;
    else return null;
  }
  return t;
}
