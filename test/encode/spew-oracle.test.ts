/**
 * Conformance of the legacy-era printer with the oracle: every `legacy` row (1.8–1.15) of
 * fixtures/oracle/expected.ndjson, decoded with that release's model, must print the exact
 * pre-image and hash to the recorded FNV-1a 32. The interpreted reference printer must agree
 * with the compiled one on every row (differential harness).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeContainerTree } from '../../src/decode/decode.js';
import { compileSpewEncoder, type SpewEncoder } from '../../src/encode/spew.js';
import { BufferSink, Fnv32aSink } from '../../src/encode/sink.js';
import { parseJson, type JsonValue } from '../../src/json/parse.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot, type StructType } from '../../src/models/gotype.js';
import { spewReference } from '../support/spew-reference.js';

interface ExpectedRow {
  case: string;
  version: string;
  algorithm: string;
  hash: string;
  preimage: string;
}

const fixture = (name: string): string[] =>
  readFileSync(new URL(`../../fixtures/oracle/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

const containers = new Map<string, JsonValue>();
for (const line of fixture('cases.ndjson')) {
  const row = parseJson(line) as { case: string; container: JsonValue };
  containers.set(row.case, row.container);
}
const legacyRows = fixture('expected.ndjson')
  .map((l) => JSON.parse(l) as ExpectedRow)
  .filter((r) => r.algorithm === 'legacy');
const versions = [...new Set(legacyRows.map((r) => r.version))];

const releases = new Map<string, { root: StructType; print: SpewEncoder }>();
function release(version: string): { root: StructType; print: SpewEncoder } {
  let r = releases.get(version);
  if (!r) {
    const root = resolveRoot(releaseModel(version));
    r = { root, print: compileSpewEncoder(root) };
    releases.set(version, r);
  }
  return r;
}

it('covers every legacy release 1.8–1.15 and all 163 cases for each', () => {
  expect(versions).toEqual(['1.8', '1.9', '1.10', '1.11', '1.12', '1.13', '1.14', '1.15']);
  expect(containers.size).toBe(163);
  expect(legacyRows).toHaveLength(163 * 8);
});

describe.each(versions)('legacy spew pre-image, release %s', (version) => {
  const rows = legacyRows.filter((r) => r.version === version);

  it.each(rows.map((r) => [r.case, r] as const))('%s', (_name, row) => {
    const { root, print } = release(version);
    const value = decodeContainerTree(containers.get(row.case), root);

    const buffer = new BufferSink();
    print(value, buffer);
    const text = new TextDecoder().decode(buffer.bytes());
    expect(text).toBe(row.preimage);

    const fnv = new Fnv32aSink();
    print(value, fnv);
    expect(fnv.sum32().toString(16)).toBe(row.hash);

    expect(spewReference(root, value)).toBe(text);
  });
});
