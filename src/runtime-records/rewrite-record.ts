/** Rewrites the stored kubelet hash(es) of a runtime record in place, leaving every other character alone. */
import { lazySchema } from '../on-demand.js';
import { HashMismatchError, OptionError, parseWith, RecordError } from '../errors.js';
import { primarySite, type HashField, type RecordContainer } from './hash-sites.js';
import type { Span } from '../json/spans.js';
import { parseRecord } from './parse-record.js';
import { assertCanonicalHash, parseHash, storedHashValue } from '../hash/format.js';
import { HASH_KEY, HASH_WITHOUT_RESOURCES_KEY } from '../releases/index.js';
import type { HashChange } from './types.js';

const hashPairSchema = lazySchema((z) =>
  z.object(
    {
      hash: z.string('hash text (a string)'),
      hashWithoutResources: z.string('hashWithoutResources text (a string) when given').optional(),
    },
    'an object { hash, hashWithoutResources? }',
  ),
);

const hashChangeSchema = lazySchema((z) =>
  z.object(
    {
      from: hashPairSchema(),
      to: hashPairSchema(),
      containerId: z.string('a container id (a string) when given').optional(),
    },
    'an object { from, to, containerId? }',
  ),
);

function checkChangeShape(change: unknown): void {
  parseWith(hashChangeSchema(), change, (issue) => new OptionError('INVALID_OPTION', issue.path, issue.message));
}

function selectContainer(containers: readonly RecordContainer[], containerId: string | undefined): RecordContainer {
  const ids = containers.map((c) => c.containerId);
  if (containerId === undefined) {
    const only = containers.length === 1 ? containers[0] : undefined;
    if (only) return only;
    throw new OptionError(
      'INVALID_OPTION',
      ['containerId'],
      `a containerId choosing one of the ${containers.length} containers`,
      `ids: ${ids.join(', ')}`,
    );
  }
  const exact = containers.filter((c) => c.containerId === containerId);
  const matches =
    exact.length > 0 ? exact : containers.filter((c) => containerId !== '' && c.containerId.startsWith(containerId));
  const [match, ...others] = matches;
  if (match && others.length === 0) return match;
  throw new OptionError(
    'INVALID_OPTION',
    ['containerId'],
    'the id, or a unique prefix of it, of a container in the record',
    `${matches.length === 0 ? 'no container matches' : 'several containers match'} ${JSON.stringify(containerId)}; ids: ${ids.join(', ')}`,
  );
}

interface Edit {
  readonly span: Span;
  readonly text: string;
}

/** Checks every stored copy of one hash against the expected value and plans replacing each. */
function planField(
  container: RecordContainer,
  field: HashField,
  fromText: string,
  toText: string,
  edits: Edit[],
): void {
  const expected = parseHash(fromText, ['from', field]);
  const key = field === 'hash' ? HASH_KEY : HASH_WITHOUT_RESOURCES_KEY;
  const sites = container.sites.filter((s) => s.field === field);
  if (!primarySite(container, field)) {
    // Rewriting other copies would not change what the kubelet reads (0), so refuse.
    const where = container.primaryPath[field];
    const what =
      sites.length === 0
        ? 'the record stores none'
        : `only copies the kubelet does not read (${sites.map((s) => s.location).join(', ')})`;
    if (expected !== 0n) {
      throw new HashMismatchError('HASH_MISMATCH', where, `stored ${key} ${fromText}`, `${what}; the kubelet reads 0`);
    }
    throw new RecordError('INVALID_RECORD', where, `a stored ${key} to rewrite`, what);
  }
  for (const site of sites) {
    // The kubelet compares numbers, so "0311670a" and "311670A" both equal 311670a; unreadable text is 0.
    if (storedHashValue(site.text) !== expected) {
      throw new HashMismatchError(
        'HASH_MISMATCH',
        site.path,
        `stored ${key} ${fromText}`,
        `found ${JSON.stringify(site.text)} at ${site.location}`,
      );
    }
    // Already the wanted text: leave its bytes (and any escapes in them) alone, so from = to is a no-op.
    if (site.text !== toText) edits.push({ span: site.replace, text: toText });
  }
}

function applyEdits(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.span.start - b.span.start);
  let out = '';
  let pos = 0;
  for (const e of sorted) {
    out += text.slice(pos, e.span.start) + e.text;
    pos = e.span.end;
  }
  return out + text.slice(pos);
}

/** Checks a change's shape and texts as {@link rewriteRuntimeRecord} does, before any record is read. */
export function checkHashChange(change: HashChange): void {
  checkChangeShape(change);
  assertCanonicalHash(change.to.hash, ['to', 'hash']);
  if (change.to.hashWithoutResources !== undefined) {
    assertCanonicalHash(change.to.hashWithoutResources, ['to', 'hashWithoutResources']);
    if (change.from.hashWithoutResources === undefined) {
      throw new OptionError(
        'INVALID_OPTION',
        ['from', 'hashWithoutResources'],
        'the stored hashWithoutResources, since to.hashWithoutResources is given',
      );
    }
  }
  parseHash(change.from.hash, ['from', 'hash']);
}

/**
 * Returns `text` with the stored kubelet hash(es) of one container replaced by `change.to`, and
 * every other character (whitespace, key order, escapes, other labels, trailing newline) untouched.
 * Pure: neither `text` nor `change` is modified.
 *
 * - Every stored copy is rewritten (containerd: status and config annotations, plus the OCI spec's
 *   when passed through; CRI-O: status, OCI spec and the JSON inside `io.kubernetes.cri-o.Annotations`;
 *   docker: the container's `annotation.` label).
 * - Refuses with {@link HashMismatchError} (naming the copy's path) when any stored copy differs
 *   from `change.from.hash`, compared as the kubelet does: hex parsed as uint64, a missing or
 *   unparsable copy counting as 0.
 * - `hashWithoutResources` is rewritten only when `change.to.hashWithoutResources` is given; then
 *   `change.from.hashWithoutResources` is required and checked the same way. When `to` has no
 *   hashWithoutResources, a stored one is left untouched (a kubelet without the
 *   InPlacePodVerticalScaling gate never reads it, one with the gate compares it separately).
 * - `change.containerId` picks the container of a docker inspect array (required when it holds
 *   more than one); for other records it must match the record's id when given.
 * - Stored copies are never added: a record storing no hash cannot be rewritten ({@link RecordError}).
 *
 * @example
 * ```ts
 * import { rewriteRuntimeRecord, readRuntimeRecords, HashMismatchError } from 'kubelet-hash';
 *
 * const record = JSON.stringify({
 *   status: {
 *     id: 'c0ffee',
 *     labels: {
 *       'io.kubernetes.pod.name': 'web-0',
 *       'io.kubernetes.pod.namespace': 'default',
 *       'io.kubernetes.pod.uid': 'uid-1',
 *       'io.kubernetes.container.name': 'web',
 *     },
 *     annotations: { 'io.kubernetes.container.hash': '590c88e0' },
 *   },
 * });
 * const rewritten = rewriteRuntimeRecord(record, { from: { hash: '590c88e0' }, to: { hash: 'e220f96' } });
 * readRuntimeRecords(rewritten)[0]!.hash; // → 'e220f96'
 * // Only the hash bytes change.
 * rewritten === record.replace('590c88e0', 'e220f96'); // → true
 * try {
 *   rewriteRuntimeRecord(record, { from: { hash: '311670a' }, to: { hash: 'e220f96' } });
 * } catch (e) {
 *   e instanceof HashMismatchError && e.path; // → ['status', 'annotations', 'io.kubernetes.container.hash']
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function rewriteRuntimeRecord(text: string, change: HashChange): string {
  checkHashChange(change);
  const { containers } = parseRecord(text);
  return rewriteLocated(text, selectContainer(containers, change.containerId), change);
}

/**
 * The rewrite of one already located container (its hash sites found in `text`), for stores that
 * locate containers in their own formats (containerd's CRI metadata, CRI-O's config.json).
 * `change` must have passed the checks of {@link rewriteRuntimeRecord}.
 */
export function rewriteLocated(text: string, container: RecordContainer, change: HashChange): string {
  const { from, to } = change;
  const rewriteWithoutResources = to.hashWithoutResources !== undefined;
  const edits: Edit[] = [];
  planField(container, 'hash', from.hash, to.hash, edits);
  if (rewriteWithoutResources) {
    planField(
      container,
      'hashWithoutResources',
      from.hashWithoutResources as string,
      to.hashWithoutResources as string,
      edits,
    );
  }
  return applyEdits(text, edits);
}
