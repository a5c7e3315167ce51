/**
 * Plain `JSON.parse` input against the oracle, and the strict parser against `JSON.parse`.
 *
 * A container a caller got from `JSON.parse` has lost number spellings (`1E3` → 1000) and escape
 * spellings; where nothing was lost the oracle must hold for it exactly as for the JSON text.
 */
import { fc, test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DecodeError, JsonNumber, parseJson, supportedReleases } from '../../src/index.js';
import { hashingWithoutNameCheck } from '../../src/hash-api/hash.js';
import { parseWithSource, type SourceNode } from '../support/json-source.js';
import { oracleRow } from '../support/oracle.js';

// The oracle includes nameless containers (HashContainer's arithmetic), which the public functions
// refuse; JSON.parse input is what is tested here (the name check is in api-misuse.test.ts).
const { hashContainer, preimage } = hashingWithoutNameCheck;

const CASE_LINES = readFileSync(new URL('../../fixtures/oracle/cases.ndjson', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');

/** JSON.parse keeps everything: every number re-spells as written, no string was written with escapes. */
function lossless(node: SourceNode): boolean {
  switch (node.kind) {
    case 'number':
      return String(Number(node.text)) === node.text && Math.abs(Number(node.text)) <= Number.MAX_SAFE_INTEGER;
    case 'string':
      return node.raw === node.text;
    case 'array':
      return node.items.every(lossless);
    case 'object':
      return node.members.every(([, v]) => lossless(v));
    default:
      return true;
  }
}

/** parseJson's tree as JSON.parse would build it (numbers as JS numbers, ordinary objects). */
function plain(v: unknown): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: plain(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

describe('the oracle with JSON.parse input', () => {
  const lines = CASE_LINES.filter((line) => lossless(parseWithSource(line)));

  it('every lossless case hashes and pre-images as the oracle says, in every release', () => {
    expect(lines.length).toBeGreaterThan(CASE_LINES.length / 2);
    for (const line of lines) {
      const { case: id, container } = JSON.parse(line) as { case: string; container: object };
      for (const release of supportedReleases()) {
        const row = oracleRow(id, release);
        const options = { kubeletVersion: release };
        expect(hashContainer(container, options), `${id}@${release}`).toBe(row.hash);
        expect(preimage(container, options).text, `${id}@${release}`).toBe(row.preimage);
      }
    }
  });
});

describe('parseJson against JSON.parse', () => {
  test.prop([fc.json({ maxDepth: 4 })], { numRuns: 300 })(
    'accepts what JSON.parse accepts (no repeated keys) and builds the same value',
    (text) => {
      expect(plain(parseJson(text))).toEqual(JSON.parse(text));
    },
  );

  test.prop([fc.json({ maxDepth: 3 }), fc.nat(), fc.string({ unit: 'binary-ascii', maxLength: 3 })], { numRuns: 300 })(
    'on mangled text: refuses everything JSON.parse refuses, with a typed error; what it accepts, JSON.parse reads alike',
    (text, at, insert) => {
      const i = at % (text.length + 1);
      const mangled = text.slice(0, i) + insert + text.slice(i + (at % 3));
      let expected: unknown;
      try {
        expected = JSON.parse(mangled);
      } catch {
        expect(() => parseJson(mangled)).toThrow(DecodeError);
        return;
      }
      let got: unknown;
      try {
        got = parseJson(mangled);
      } catch (e) {
        // Stricter than JSON.parse only where Go and the apiserver disagree with it: repeated keys, unpaired surrogates.
        expect(e).toBeInstanceOf(DecodeError);
        expect((e as DecodeError).message).toMatch(/repeated|surrogate/i);
        return;
      }
      expect(plain(got)).toEqual(expected);
    },
  );
});
