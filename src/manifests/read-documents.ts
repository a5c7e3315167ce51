/**
 * Reading manifests as kubectl reads them: JSON or YAML (told apart like kubectl does, by a
 * leading `{` or `[`), YAML streams of several documents, NDJSON and concatenated JSON, `kind:
 * List`/`PodList` items. YAML becomes the JSON kubectl would send (see `yaml-scalars.ts`), so the
 * hash of a YAML manifest is the hash of what the apiserver receives. Every value keeps its place in
 * the source text, so an error's JSON path can be shown as a line and column.
 */
import type { CST, Document, Node } from 'yaml';
import { yamlNow } from '../on-demand.js';
import { DecodeError, type JsonPathSegment } from '../errors.js';
import { fitsInt64 } from '../go/ints.js';
import { JsonNumber } from '../json/number.js';
import { MAX_JSON_DEPTH, parseJsonStream, tooDeep, type JsonValue } from '../json/parse.js';
import { LineIndex } from '../json/line-index.js';
import { PathOffsets } from '../json/path-offsets.js';
import { resolvePlain, resolveTagged, type YamlScalar } from './yaml-scalars.js';

/**
 * A line and column in the source text, both counted from 1 (columns in UTF-16 code units).
 *
 * @example
 * ```ts
 * import { readDocuments, type SourcePosition } from 'kubelet-hash';
 * const at: SourcePosition | null = readDocuments('name: web\nimage: nginx\n')[0]!.positionOf(['image']);
 * at; // → { line: 2, column: 8 }
 * ```
 *
 * @group Hashing
 */
export interface SourcePosition {
  /** Line number, from 1. */
  line: number;
  /** Column number, from 1. */
  column: number;
}

/**
 * One document of a manifest stream, as {@link readDocuments} returns it.
 *
 * @example
 * ```ts
 * import { readDocuments, type ManifestDocument } from 'kubelet-hash';
 * const [doc]: ManifestDocument[] = readDocuments('{"name": "web", "image": "nginx"}');
 * doc!.format; // → 'json'
 * doc!.positionOf(['image']); // → { line: 1, column: 26 }
 * ```
 *
 * @group Hashing
 */
export interface ManifestDocument {
  /** Its index among the stream's non-empty documents, from 0. */
  index: number;
  /** How it was written. */
  format: 'json' | 'yaml';
  /** Its content as JSON values ({@link parseJson}'s shape: JsonNumber numbers, null-prototype objects). */
  value: JsonValue;
  /** Where the value at `path` (relative to this document) starts in the text; the nearest existing ancestor for a missing member. */
  positionOf(path: readonly JsonPathSegment[]): SourcePosition | null;
}

/**
 * A Kubernetes object (or bare container) of a manifest stream, after List items are expanded.
 *
 * @example
 * ```ts
 * import { manifestObjects, readDocuments, type ManifestObject } from 'kubelet-hash';
 * const objects: ManifestObject[] = manifestObjects(readDocuments('kind: List\nitems:\n- {kind: Pod, metadata: {name: a}}\n'));
 * objects[0]!.path; // → ['items', 0]
 * objects[0]!.value['kind']; // → 'Pod'
 * ```
 *
 * @group Hashing
 */
export interface ManifestObject {
  /** The document it is in. */
  document: ManifestDocument;
  /** Its path inside the document: `[]`, or `['items', 3]` for an item of a List. */
  path: JsonPathSegment[];
  /** The object itself. */
  value: { [key: string]: JsonValue };
}

/**
 * Splits a text into its documents. JSON (the text starts with `{` or `[`) is read with
 * {@link parseJson}'s rules, as a stream of values; anything else is YAML, converted the way
 * kubectl converts it. Empty and `null` documents are skipped, as kubectl skips them. Throws
 * {@link DecodeError} `INVALID_JSON`/`INVALID_YAML` whose detail names the line and column.
 *
 * @example
 * ```ts
 * import { readDocuments } from 'kubelet-hash';
 * const docs = readDocuments('name: web\nimage: nginx\n---\nname: db\nimage: postgres\nports: [{containerPort: 5432}]\n');
 * docs.length; // → 2
 * docs[1]!.positionOf(['ports', 0, 'containerPort']); // → { line: 6, column: 25 }
 * ```
 *
 * @group Hashing
 */
export function readDocuments(text: string): ManifestDocument[] {
  // Editors on some systems save a byte-order mark; it is not part of the document.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body);
  if (first && (first[0] === '{' || first[0] === '[')) return readJson(body);
  return readYaml(body);
}

/**
 * The objects of a manifest stream: each document, with the items of a List (`kind: List`,
 * `PodList`, any `…List` with `items`) and of a top-level JSON array taken one by one.
 *
 * @example
 * ```ts
 * import { manifestObjects, readDocuments } from 'kubelet-hash';
 * const list = 'kind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c, image: x}]}\n';
 * manifestObjects(readDocuments(list)).map((o) => o.path); // → [['items', 0]]
 * ```
 *
 * @group Hashing
 */
export function manifestObjects(documents: readonly ManifestDocument[]): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const document of documents) {
    const v = document.value;
    const items = Array.isArray(v) ? v : isList(v) ? v['items'] : null;
    const base: JsonPathSegment[] = Array.isArray(v) ? [] : ['items'];
    if (!items) {
      out.push({ document, path: [], value: asObject(v, []) });
      continue;
    }
    items.forEach((item, i) => out.push({ document, path: [...base, i], value: asObject(item, [...base, i]) }));
  }
  return out;
}

function isList(v: JsonValue): v is { [key: string]: JsonValue[] } {
  if (!isObject(v) || !Array.isArray(v['items'])) return false;
  const kind = v['kind'];
  return typeof kind === 'string' && kind.endsWith('List');
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function asObject(v: JsonValue, path: JsonPathSegment[]): { [key: string]: JsonValue } {
  if (!isObject(v))
    throw new DecodeError('INVALID_TYPE', path, 'a Kubernetes object, a List of them, or a container object');
  return v;
}

function readJson(text: string): ManifestDocument[] {
  const values = parseJsonStream(text).filter((v) => v.value !== null);
  const lines = new LineIndex(text);
  return values.map(({ value, start }, index) => {
    let offsets: PathOffsets | undefined;
    return {
      index,
      format: 'json' as const,
      value,
      positionOf(path: readonly JsonPathSegment[]): SourcePosition | null {
        offsets ??= new PathOffsets(text, start);
        return lines.at(offsets.offsetOf(path));
      },
    };
  });
}

/** Where each member of a converted YAML collection came from (offset of its value node). */
type Offsets = WeakMap<object, Map<JsonPathSegment, number>>;

/**
 * Refuses a YAML stream nested deeper than JSON may be, before it is composed: the yaml package's
 * composer recurses once per level, so a deep enough text would overflow the stack inside it. The
 * concrete syntax tree comes from its parser, which keeps an explicit stack; this walk does too.
 */
function checkYamlDepth(tokens: readonly CST.Token[], position: (offset: number) => SourcePosition): void {
  const stack: [CST.Token, number][] = [];
  for (const t of tokens) if (t.type === 'document' && t.value) stack.push([t.value, 0]);
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [token, depth] = top;
    if (depth > MAX_JSON_DEPTH) {
      const at = position(token.offset);
      throw tooDeep(`nested more than ${MAX_JSON_DEPTH} levels at line ${at.line}, column ${at.column}`);
    }
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    for (const item of token.items) {
      if (item.key) stack.push([item.key, depth + 1]);
      if (item.value) stack.push([item.value, depth + 1]);
    }
  }
}

function readYaml(text: string): ManifestDocument[] {
  const lines = new LineIndex(text);
  const position = (offset: number): SourcePosition => lines.at(offset);
  // The yaml package loads here, on the first YAML input (JSON never needs it).
  const { Parser, Composer } = yamlNow();
  // parseAllDocuments, in its two stages: the depth is checked between them.
  const tokens = Array.from(new Parser().parse(text));
  checkYamlDepth(tokens, position);
  const composer = new Composer({ schema: 'failsafe', version: '1.1', uniqueKeys: false, merge: false });
  const list = Array.from(composer.compose(tokens));
  const out: ManifestDocument[] = [];
  for (const doc of list) {
    const error = doc.errors[0];
    if (error) {
      const at = position(error.pos[0]);
      const what = (error.message.split(/ at line \d+, column \d+/)[0] ?? '').trim();
      throw new DecodeError(
        'INVALID_YAML',
        [],
        'YAML that kubectl can read',
        `${what} at line ${at.line}, column ${at.column}`,
      );
    }
    if (doc.contents === null) continue;
    const offsets: Offsets = new WeakMap();
    const converter = new YamlToJson(doc, offsets, position, 2 * text.length + 100_000);
    const value = converter.convert(doc.contents, [], 0);
    if (value === null) continue;
    const rootOffset = doc.contents.range[0];
    out.push({
      index: out.length,
      format: 'yaml',
      value,
      positionOf(path: readonly JsonPathSegment[]): SourcePosition | null {
        let offset = rootOffset;
        let cur: JsonValue | undefined = value;
        for (const seg of path) {
          if (typeof cur !== 'object' || cur === null || cur instanceof JsonNumber) break;
          const at = offsets.get(cur)?.get(seg);
          if (at === undefined) break;
          offset = at;
          cur = Array.isArray(cur) ? cur[seg as number] : cur[seg as string];
        }
        return position(offset);
      },
    });
  }
  return out;
}

/** Where a parsed node starts in the source (the parser sets `range` on every node it reads). */
function startOf(node: Node): number {
  return node.range?.[0] ?? 0;
}

/** The source text of a scalar: the failsafe schema leaves every value a string, an empty one null. */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

/** Converts one YAML document to the JSON values kubectl would send, recording source offsets. */
class YamlToJson {
  private budget: number;
  private readonly yaml = yamlNow();
  constructor(
    private readonly doc: Document,
    private readonly offsets: Offsets,
    private readonly position: (offset: number) => SourcePosition,
    budget: number,
  ) {
    this.budget = budget;
  }

  private fail(node: Node | null | undefined, path: JsonPathSegment[], expected: string, problem: string): never {
    const at = node?.range ? this.position(node.range[0]) : null;
    const where = at ? ` at line ${at.line}, column ${at.column}` : '';
    throw new DecodeError('INVALID_YAML', path, expected, `${problem}${where}`);
  }

  /** Follows an alias to the node it names. */
  private target(node: Node, path: JsonPathSegment[]): Node {
    if (!this.yaml.isAlias(node)) return node;
    const t = node.resolve(this.doc);
    if (!t)
      this.fail(node, path, 'an alias to an anchor defined earlier in the document', `unknown anchor *${node.source}`);
    return t;
  }

  convert(input: Node | null, path: JsonPathSegment[], depth: number): JsonValue {
    if (input === null) return null;
    if (depth > MAX_JSON_DEPTH) {
      // Aliases can nest what the text does not: the same limit, counted through them.
      const at = input.range ? this.position(input.range[0]) : null;
      const where = at ? ` at line ${at.line}, column ${at.column}` : '';
      throw tooDeep(`nested more than ${MAX_JSON_DEPTH} levels (aliases included)${where}`).withPathPrefix(path);
    }
    if (--this.budget < 0)
      this.fail(input, path, 'a document whose aliases do not multiply its size', 'alias expansion too large');
    const node = this.target(input, path);
    if (this.yaml.isScalar(node)) return this.scalar(node, path);
    if (this.yaml.isSeq(node)) {
      const arr: JsonValue[] = [];
      const at = new Map<JsonPathSegment, number>();
      node.items.forEach((item, i) => {
        at.set(i, (item as Node | null)?.range?.[0] ?? startOf(node));
        arr.push(this.convert(item as Node | null, [...path, i], depth + 1));
      });
      this.offsets.set(arr, at);
      return arr;
    }
    if (this.yaml.isMap(node)) {
      const obj = Object.create(null) as { [key: string]: JsonValue };
      this.offsets.set(obj, new Map());
      this.fillMap(obj, node, path, depth, new Set());
      return obj;
    }
    return this.fail(node, path, 'a scalar, a sequence or a mapping', 'unsupported node');
  }

  /** Sets the members of mapping `node` into `obj` in order, as goyaml.v2 does (merges included). */
  private fillMap(
    obj: { [key: string]: JsonValue },
    node: Node,
    path: JsonPathSegment[],
    depth: number,
    explicit: Set<string>,
  ): void {
    if (!this.yaml.isMap(node))
      this.fail(node, path, 'a mapping (or a sequence of mappings) to merge with <<', 'found another node');
    let at = this.offsets.get(obj);
    if (at === undefined) this.offsets.set(obj, (at = new Map<JsonPathSegment, number>()));
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const valueNode = pair.value as Node | null;
      if (
        this.yaml.isScalar(keyNode) &&
        keyNode.source === '<<' &&
        keyNode.type === 'PLAIN' &&
        (!keyNode.tag || keyNode.tag.endsWith(':merge'))
      ) {
        this.merge(obj, valueNode, path, depth);
        continue;
      }
      const key = this.key(keyNode, path);
      if (explicit.has(key)) {
        this.fail(
          keyNode,
          [...path, key],
          'each key once in a mapping',
          `${JSON.stringify(key)} is repeated (kubectl would keep one silently)`,
        );
      }
      explicit.add(key);
      at.set(key, valueNode?.range?.[0] ?? keyNode?.range?.[0] ?? startOf(node));
      obj[key] = this.convert(valueNode, [...path, key], depth + 1);
    }
  }

  private merge(obj: { [key: string]: JsonValue }, value: Node | null, path: JsonPathSegment[], depth: number): void {
    if (value === null)
      return this.fail(value, path, 'a mapping (or a sequence of mappings) to merge with <<', 'found nothing');
    const target = this.target(value, path);
    // Earlier mappings of a sequence take precedence, so they are applied last.
    const sources = this.yaml.isSeq(target)
      ? [...target.items].reverse().map((n) => this.target(n as Node, path))
      : [target];
    for (const s of sources) this.fillMap(obj, s, path, depth + 1, new Set());
  }

  /** A mapping key as sigs.k8s.io/yaml turns it into a JSON key. */
  private key(node: Node | null, path: JsonPathSegment[]): string {
    const target = node === null ? null : this.target(node, path);
    const expected = 'a mapping key that is text, an integer or a boolean';
    if (!this.yaml.isScalar(target)) return this.fail(node, path, expected, 'found a collection');
    const r = this.resolve(target, path);
    if (r.kind === 'string') return r.value;
    if (r.kind === 'bool') return String(r.value);
    // Only int64 keys are converted; sigs.k8s.io/yaml refuses goyaml's uint64, big-integer and float keys.
    if (r.kind === 'number' && r.tag === '!!int' && /^-?[0-9]+$/.test(r.text) && fitsInt64(BigInt(r.text)))
      return r.text;
    return this.fail(node, path, expected, `found ${r.kind === 'number' ? `the ${r.tag.slice(2)} ${r.text}` : r.kind}`);
  }

  private resolve(
    node: Node & { value: unknown; type?: string; tag?: string; source?: string },
    path: JsonPathSegment[],
  ): YamlScalar {
    const text = scalarText(node.value);
    const plain = node.type === 'PLAIN';
    if (node.tag && node.tag !== '!') {
      const r = resolveTagged(node.tag, text);
      if (typeof r === 'string') return this.fail(node, path, 'a value that fits its tag', r);
      return r;
    }
    return plain && node.tag !== '!' ? resolvePlain(text) : { kind: 'string', value: text };
  }

  private scalar(node: Node & { value: unknown }, path: JsonPathSegment[]): JsonValue {
    const r = this.resolve(node, path);
    switch (r.kind) {
      case 'null':
        return null;
      case 'bool':
        return r.value;
      case 'number':
        return new JsonNumber(r.text);
      case 'string':
        if (/\p{Cs}/u.test(r.value)) this.fail(node, path, 'valid Unicode text', 'found an unpaired surrogate');
        return r.value;
      case 'unsendable':
        return this.fail(node, path, 'a value kubectl can send as JSON', r.reason);
    }
  }
}
