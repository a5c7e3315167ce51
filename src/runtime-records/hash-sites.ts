/**
 * Finds, in a scanned runtime record, each container's identity and every place its kubelet hash
 * text is stored, with the exact source span of each stored value.
 *
 * Where each runtime keeps the kubelet's CRI annotations:
 * - docker (dockershim, cri-dockerd): `Config.Labels["annotation.<key>"]`, in both `docker inspect`
 *   output and the daemon's config.v2.json.
 * - containerd (`crictl inspect`): `status.annotations` and `info.config.annotations` (the CRI config
 *   it keeps); `info.runtimeSpec.annotations` only when the node passes annotations through to OCI.
 * - CRI-O (`crictl inspect`): `status.annotations`, every annotation copied into
 *   `info.runtimeSpec.annotations`, and all of them JSON-encoded in
 *   `info.runtimeSpec.annotations["io.kubernetes.cri-o.Annotations"]` (what CRI-O restores from).
 */
import { RecordError, formatJsonPath } from '../errors.js';
import type { JsonPathSegment } from '../errors.js';
import { decodeJsonString, findMember, nodeAt, scanJson, toPlainValue } from '../json/spans.js';
import type { JsonNode, Span } from '../json/spans.js';
import {
  CONTAINER_NAME_LABEL,
  CRIO_ANNOTATIONS_KEY,
  DOCKER_ANNOTATION_PREFIX,
  POD_NAME_LABEL,
  POD_NAMESPACE_LABEL,
  POD_UID_LABEL,
  recordSchemas,
  isKubeletDockerContainer,
  validateWith,
} from './schemas.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/index.js';
import type { RecordKind, RuntimeRecord } from './types.js';

export type HashField = 'hash' | 'hashWithoutResources';

const KEY_OF: Readonly<Record<HashField, string>> = {
  hash: HASH_KEY,
  hashWithoutResources: HASH_WITHOUT_RESOURCES_KEY,
};

/** One stored copy of a hash. */
export interface HashSite {
  readonly field: HashField;
  /** Path for errors; for a copy inside an embedded JSON string, the string's path then the inner key. */
  readonly path: readonly JsonPathSegment[];
  /** Display path (see ContainerRecordInfo.hashLocations). */
  readonly location: string;
  /** The stored text, decoded. */
  readonly text: string;
  /** Source characters to replace to store a new hash: the string's content between its quotes. */
  readonly replace: Span;
}

/** A container found in a runtime record: its identity and every stored copy of its hashes. */
export interface RecordContainer {
  readonly containerId: string;
  readonly runtime: RuntimeRecord['runtime'];
  readonly containerName: string;
  readonly podName: string;
  readonly podNamespace: string;
  readonly podUid: string;
  /** The CRI attempt the record keeps (see {@link criAttempt}, {@link dockerNameAttempt}); absent when it keeps none. */
  readonly attempt?: number;
  /** In priority order: the copy the kubelet reads back comes first. */
  readonly sites: readonly HashSite[];
  /** Where the kubelet reads each hash from; named in errors when no copy is stored. */
  readonly primaryPath: Readonly<Record<HashField, readonly JsonPathSegment[]>>;
}

/** The copy of `field` the kubelet reads back (at `primaryPath`), if the record stores it there. */
export function primarySite(container: RecordContainer, field: HashField): HashSite | undefined {
  const want = container.primaryPath[field];
  return container.sites.find(
    (s) => s.field === field && s.path.length === want.length && s.path.every((seg, i) => seg === want[i]),
  );
}

/** Path without jq's leading dot: `status.annotations[…]`, `[0].Config.Labels[…]`. */
function displayPath(path: readonly JsonPathSegment[]): string {
  const s = formatJsonPath(path);
  return s.startsWith('.') ? s.slice(1) : s;
}

function plainAt(plain: unknown, path: readonly JsonPathSegment[]): unknown {
  let cur = plain;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function textAt(plain: unknown, path: readonly JsonPathSegment[]): string {
  const v = plainAt(plain, path);
  // The schema has already required these labels to be strings.
  return typeof v === 'string' ? v : '';
}

/** The copy at `mapPath[key]` when it is a string value; its path is reported under `base`. */
function directSite(
  root: JsonNode,
  mapPath: readonly JsonPathSegment[],
  key: string,
  field: HashField,
  base: readonly JsonPathSegment[],
): HashSite | undefined {
  const member = findMember(nodeAt(root, mapPath), key);
  if (member?.value.type !== 'string') return undefined;
  const path = [...base, ...mapPath, key];
  const node = member.value;
  return {
    field,
    path,
    location: displayPath(path),
    text: node.value,
    replace: { start: node.start + 1, end: node.end - 1 },
  };
}

/** Copies inside a string that holds a JSON object of annotations (CRI-O), mapped back to source offsets. */
export function embeddedSites(text: string, root: JsonNode, stringPath: readonly JsonPathSegment[]): HashSite[] {
  const holder = nodeAt(root, stringPath);
  if (holder?.type !== 'string') return [];
  const decoded = decodeJsonString(text, holder.start, () => {
    // The outer scan already accepted this string, so decoding it again cannot fail.
    throw new RecordError('INVALID_RECORD', stringPath, 'a JSON string');
  });
  const inner = scanJson(decoded.value, stringPath);
  validateWith(recordSchemas().crioEmbeddedAnnotationsSchema, toPlainValue(inner), stringPath);
  const sites: HashSite[] = [];
  for (const field of ['hash', 'hashWithoutResources'] as const) {
    const member = findMember(inner, KEY_OF[field]);
    if (member?.value.type !== 'string') continue;
    const v = member.value;
    const start = decoded.sourceOffsets[v.start + 1];
    const end = decoded.sourceOffsets[v.end - 1];
    if (start === undefined || end === undefined) continue;
    sites.push({
      field,
      path: [...stringPath, KEY_OF[field]],
      location: `${displayPath(stringPath)} | fromjson | ${formatJsonPath([KEY_OF[field]])}`,
      text: v.value,
      replace: { start, end },
    });
  }
  return sites;
}

/**
 * The copies in the string map at `mapPath` (keys `prefix` + the hash keys). `root` may be a part of
 * the scanned text (one `docker inspect` element): `base` is its path in the whole, which every
 * reported path starts with.
 */
export function mapSites(
  root: JsonNode,
  mapPath: readonly JsonPathSegment[],
  prefix = '',
  base: readonly JsonPathSegment[] = [],
): HashSite[] {
  const out: HashSite[] = [];
  for (const field of ['hash', 'hashWithoutResources'] as const) {
    const site = directSite(root, mapPath, prefix + KEY_OF[field], field, base);
    if (site) out.push(site);
  }
  return out;
}

export function identity(plain: unknown, labelsPath: readonly JsonPathSegment[]) {
  return {
    containerName: textAt(plain, [...labelsPath, CONTAINER_NAME_LABEL]),
    podName: textAt(plain, [...labelsPath, POD_NAME_LABEL]),
    podNamespace: textAt(plain, [...labelsPath, POD_NAMESPACE_LABEL]),
    podUid: textAt(plain, [...labelsPath, POD_UID_LABEL]),
  };
}

/** The largest CRI attempt (a uint32). */
const MAX_ATTEMPT = 0xffff_ffff;

/**
 * The attempt of a CRI `ContainerMetadata` object (`{name, attempt}`) as a runtime persisted it,
 * or `undefined` when `metadata` is not an object. Go's encoding/json (`omitempty`) and proto3
 * JSON leave attempt 0 out, so an object without `attempt` is attempt 0; an attempt that is not a
 * uint32 is refused (the runtime could not load it back either).
 */
export function criAttempt(metadata: unknown, path: readonly JsonPathSegment[]): number | undefined {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  if (!Object.hasOwn(metadata, 'attempt')) return 0;
  const attempt = (metadata as Record<string, unknown>)['attempt'];
  if (typeof attempt === 'number' && Number.isInteger(attempt) && attempt >= 0 && attempt <= MAX_ATTEMPT)
    return attempt;
  throw new RecordError(
    'INVALID_RECORD',
    [...path, 'attempt'],
    'the CRI container attempt as an integer from 0 to 4294967295',
    `found ${JSON.stringify(attempt)}`,
  );
}

/**
 * The attempt in a docker container name as dockershim and cri-dockerd write it
 * (`/k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`, sometimes a random suffix after it) and
 * read it back for the kubelet; `undefined` for a name of another shape.
 */
function dockerNameAttempt(name: unknown): number | undefined {
  if (typeof name !== 'string') return undefined;
  const parts = name.replace(/^\//, '').split('_');
  if ((parts.length !== 6 && parts.length !== 7) || parts[0] !== 'k8s') return undefined;
  const digits = parts[5] ?? '';
  if (!/^[0-9]{1,10}$/.test(digits)) return undefined;
  const attempt = Number(digits);
  return attempt <= MAX_ATTEMPT ? attempt : undefined;
}

/**
 * A docker container: `node` is its tree and `plain` its plain value; `base` is where it sits in the
 * scanned text (`[i]` in a `docker inspect` array, `[]` for a config.v2.json), which paths start with.
 */
function dockerContainer(
  node: JsonNode,
  plain: unknown,
  base: readonly JsonPathSegment[],
  idKey: 'Id' | 'ID',
): RecordContainer {
  const labels = ['Config', 'Labels'];
  const attempt = dockerNameAttempt(plainAt(plain, ['Name']));
  return {
    containerId: textAt(plain, [idKey]),
    runtime: 'docker',
    ...identity(plain, labels),
    ...(attempt !== undefined ? { attempt } : {}),
    sites: mapSites(node, labels, DOCKER_ANNOTATION_PREFIX, base),
    primaryPath: {
      hash: [...base, ...labels, DOCKER_ANNOTATION_PREFIX + HASH_KEY],
      hashWithoutResources: [...base, ...labels, DOCKER_ANNOTATION_PREFIX + HASH_WITHOUT_RESOURCES_KEY],
    },
  };
}

function crictlRuntime(plain: unknown): RuntimeRecord['runtime'] {
  const info = plainAt(plain, ['info']);
  if (info === null || typeof info !== 'object') return 'unknown';
  const specAnnotations = plainAt(info, ['runtimeSpec', 'annotations']);
  const keys = specAnnotations !== null && typeof specAnnotations === 'object' ? Object.keys(specAnnotations) : [];
  if (keys.some((k) => k.startsWith('io.kubernetes.cri-o.'))) return 'cri-o';
  if (
    keys.some((k) => k.startsWith('io.kubernetes.cri.')) ||
    Object.hasOwn(info, 'snapshotter') ||
    Object.hasOwn(info, 'runtimeType')
  ) {
    return 'containerd';
  }
  return 'unknown';
}

function crictlContainer(text: string, root: JsonNode, plain: unknown): RecordContainer {
  const specAnnotations = ['info', 'runtimeSpec', 'annotations'];
  const attempt = criAttempt(plainAt(plain, ['status', 'metadata']), ['status', 'metadata']);
  return {
    containerId: textAt(plain, ['status', 'id']),
    runtime: crictlRuntime(plain),
    ...identity(plain, ['status', 'labels']),
    ...(attempt !== undefined ? { attempt } : {}),
    sites: [
      ...mapSites(root, ['status', 'annotations']),
      ...mapSites(root, ['info', 'config', 'annotations']),
      ...mapSites(root, specAnnotations),
      ...embeddedSites(text, root, [...specAnnotations, CRIO_ANNOTATIONS_KEY]),
    ],
    primaryPath: {
      hash: ['status', 'annotations', HASH_KEY],
      hashWithoutResources: ['status', 'annotations', HASH_WITHOUT_RESOURCES_KEY],
    },
  };
}

/**
 * The container of one `docker inspect` element, if the kubelet created it. `element` is the
 * element's tree (spans in the whole text) and `plain` its plain value, already validated; paths
 * start with `index`, as if the whole array had been scanned.
 */
export function locateDockerInspectElement(
  element: JsonNode,
  plain: unknown,
  index: number,
): RecordContainer | undefined {
  if (!isKubeletDockerContainer(plain)) return undefined;
  return dockerContainer(element, plain, [index], 'Id');
}

/**
 * Every container of a validated record with its hash copies. `text` is the source `root` was
 * scanned from and `plain` its plain value (already checked against the kind's schema).
 */
export function locateRecordContainers(
  text: string,
  root: JsonNode,
  plain: unknown,
  kind: RecordKind,
): RecordContainer[] {
  switch (kind) {
    case 'docker-inspect':
      return (root.type === 'array' ? root.items : []).flatMap((element, i) => {
        const elementPlain = plainAt(plain, [i]);
        return isKubeletDockerContainer(elementPlain) ? [dockerContainer(element, elementPlain, [i], 'Id')] : [];
      });
    case 'docker-config-v2':
      return [dockerContainer(root, plain, [], 'ID')];
    case 'crictl-inspect':
      return [crictlContainer(text, root, plain)];
  }
}
