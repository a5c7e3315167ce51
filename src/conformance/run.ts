/**
 * Conformance: compute every expected row (case × release) and compare the algorithm, hash,
 * hashWithoutResources and pre-image with the judge's values. Rows of releases the library does not support are
 * counted as skipped, never as passed.
 */
import { hashContainer, hashContainerWithoutResources, preimage } from '../hashing/index.js';
import { KubeletHashError } from '../errors.js';
import { releaseInfo, supportedReleases } from '../releases/registry.js';
import type { ExpectedRow, FixtureCase } from './fixtures.js';

export interface Tally {
  matched: number;
  total: number;
}

export interface ReleaseTally {
  release: string;
  /** The release registry names the algorithm the judge used for the row. */
  algorithm: Tally;
  hash: Tally;
  hashWithoutResources: Tally;
  preimage: Tally;
  skipped: number;
}

export interface Mismatch {
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
    /** Counts a match in `tally` (whose total counts every row), or records the mismatch. */
    const compare = (
      tally: Tally,
      what: Mismatch['what'],
      expected: string,
      actual: string,
      same = expected === actual,
    ): void => {
      if (same) tally.matched++;
      else mismatches.push({ case: row.case, release: row.version, what, expected, actual });
    };
    t.algorithm.total++;
    compare(t.algorithm, 'algorithm', row.algorithm, releaseInfo(row.version).algorithm);
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
      compare(t.hash, 'hash', row.hash, hash, hash === row.hash && pre.hash === row.hash);
      compare(t.preimage, 'preimage', row.preimage, pre.text);
      if (row.hashWithoutResources !== undefined) {
        compare(
          t.hashWithoutResources,
          'hashWithoutResources',
          row.hashWithoutResources,
          hashContainerWithoutResources(c.container as object, opts),
        );
      }
    } catch (e) {
      const msg =
        e instanceof KubeletHashError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      mismatches.push({ case: row.case, release: row.version, what: 'error', expected: row.hash, actual: msg });
    }
  }

  const releases = [...tallies.values()].sort((a, b) => minor(a.release) - minor(b.release));
  return { releases, mismatches, rows: expected.length, skipped, ok: mismatches.length === 0 };
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
