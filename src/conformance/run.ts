/**
 * Conformance: compute every expected row (case × release) and compare the algorithm, hash,
 * hashWithoutResources and pre-image with the judge's values. Rows of releases the library does not support are
 * counted as skipped, never as passed.
 */
import { hashValue, preimageAndHash } from '../hash/compute.js';
import { formatHash } from '../hash/format.js';
import { decodeFor } from '../hash/hashes-for.js';
import { resolveHashOptions, type HashOptions } from '../hash/options.js';
import * as hashing from '../hash-api/index.js';

// Oracle rows include nameless containers (HashContainer's arithmetic), which the public functions
// refuse (no apiserver serves one): those rows run through the engine's decode-and-hash path, every
// other row through the public functions.
const named = (c: object): boolean => {
  const name = (c as { name?: unknown }).name;
  return typeof name === 'string' && name !== '';
};
function decoded(container: object, options: HashOptions) {
  const { info, jsonEscapes } = resolveHashOptions(options);
  return decodeFor(container, info, jsonEscapes);
}
function hashContainer(container: object, options: HashOptions): string {
  if (named(container)) return hashing.hashContainer(container, options);
  const { pipeline, value } = decoded(container, options);
  return formatHash(hashValue(pipeline, value));
}
function hashContainerWithoutResources(container: object, options: HashOptions): string {
  if (named(container)) return hashing.hashContainerWithoutResources(container, options);
  const { pipeline, value } = decoded(container, options);
  return formatHash(hashValue(pipeline, pipeline.withoutResources(value)));
}
function preimage(container: object, options: HashOptions): { text: string; hash: string } {
  if (named(container)) return hashing.preimage(container, options);
  const { pipeline, value } = decoded(container, options);
  const { preimage: bytes, hash } = preimageAndHash(pipeline, value);
  return { text: new TextDecoder().decode(bytes), hash: formatHash(hash) };
}
import { KubeletHashError } from '../errors.js';
import { releaseInfo, supportedReleases } from '../releases/index.js';
import type { ExpectedRow, FixtureCase } from './fixtures.js';

export interface Tally {
  matched: number;
  total: number;
}

interface ReleaseTally {
  release: string;
  /** The release registry names the algorithm the judge used for the row. */
  algorithm: Tally;
  hash: Tally;
  hashWithoutResources: Tally;
  preimage: Tally;
  skipped: number;
}

interface Mismatch {
  case: string;
  release: string;
  what: 'algorithm' | 'hash' | 'hashWithoutResources' | 'preimage' | 'error' | 'missing-case';
  expected: string;
  actual: string;
}

export interface ConformanceReport {
  releases: ReleaseTally[];
  mismatches: Mismatch[];
  rows: number;
  skipped: number;
  /** No mismatch, and at least one row compared: a run over nothing is no pass. */
  ok: boolean;
}

export function runConformance(cases: readonly FixtureCase[], expected: readonly ExpectedRow[]): ConformanceReport {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const supported = new Set(supportedReleases());
  const tallies = new Map<string, ReleaseTally>();
  const mismatches: Mismatch[] = [];
  let skipped = 0;

  for (const row of expected) {
    let t = tallies.get(row.version);
    if (!t) {
      t = {
        release: row.version,
        algorithm: zero(),
        hash: zero(),
        hashWithoutResources: zero(),
        preimage: zero(),
        skipped: 0,
      };
      tallies.set(row.version, t);
    }
    if (!supported.has(row.version)) {
      t.skipped++;
      skipped++;
      continue;
    }
    const c = byId.get(row.case);
    t.algorithm.total++;
    const algorithm = releaseInfo(row.version).algorithm;
    if (algorithm === row.algorithm) t.algorithm.matched++;
    else
      mismatches.push({
        case: row.case,
        release: row.version,
        what: 'algorithm',
        expected: row.algorithm,
        actual: algorithm,
      });
    t.hash.total++;
    t.preimage.total++;
    if (row.hashWithoutResources !== undefined) t.hashWithoutResources.total++;
    if (!c) {
      mismatches.push({ case: row.case, release: row.version, what: 'missing-case', expected: row.case, actual: '' });
      continue;
    }
    const opts = { kubeletVersion: row.version };
    try {
      const pre = preimage(c.container as object, opts);
      const hash = hashContainer(c.container as object, opts);
      if (hash === row.hash && pre.hash === row.hash) t.hash.matched++;
      else mismatches.push({ case: row.case, release: row.version, what: 'hash', expected: row.hash, actual: hash });
      if (pre.text === row.preimage) t.preimage.matched++;
      else
        mismatches.push({
          case: row.case,
          release: row.version,
          what: 'preimage',
          expected: row.preimage,
          actual: pre.text,
        });
      if (row.hashWithoutResources !== undefined) {
        const hwr = hashContainerWithoutResources(c.container as object, opts);
        if (hwr === row.hashWithoutResources) t.hashWithoutResources.matched++;
        else
          mismatches.push({
            case: row.case,
            release: row.version,
            what: 'hashWithoutResources',
            expected: row.hashWithoutResources,
            actual: hwr,
          });
      }
    } catch (e) {
      const msg =
        e instanceof KubeletHashError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      mismatches.push({ case: row.case, release: row.version, what: 'error', expected: row.hash, actual: msg });
    }
  }

  const releases = [...tallies.values()].sort((a, b) => minor(a.release) - minor(b.release));
  const compared = expected.length - skipped;
  return { releases, mismatches, rows: expected.length, skipped, ok: mismatches.length === 0 && compared > 0 };
}

function zero(): Tally {
  return { matched: 0, total: 0 };
}

function minor(release: string): number {
  return Number(release.split('.')[1]);
}

/** A short diff of two pre-images: the first differing position with context from each. */
export function diffPreimage(expected: string, actual: string, context = 60): string {
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const from = Math.max(0, i - context);
  const show = (s: string): string => JSON.stringify(s.slice(from, i + context));
  return `first difference at character ${i}\n  expected: …${show(expected)}…\n  actual:   …${show(actual)}…`;
}
