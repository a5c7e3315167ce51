/**
 * Comparison run: the compiled go-spew printer (specialised closures, pre-encoded fragments,
 * streaming into FNV) against the plain interpreted reference printer kept for the differential
 * tests (walks the model, builds a string, then hashes it).
 */
import { readFileSync } from 'node:fs';
import { bench, describe } from 'vitest';
import { readCases } from '../src/conformance/fixtures.js';
import { decodeContainerTree } from '../src/decode/decode.js';
import { Fnv32aSink } from '../src/encode/sink.js';
import { compileSpewEncoder } from '../src/encode/spew.js';
import { writeUtf8 } from '../src/encode/utf8.js';
import { releaseModel } from '../src/models/catalog.js';
import { resolveRoot } from '../src/models/gotype.js';
import { spewReference } from '../test/support/spew-reference.js';

const cases = readCases(readFileSync(new URL('../fixtures/oracle/cases.ndjson', import.meta.url), 'utf8'));
const root = resolveRoot(releaseModel('1.15'));
const compiled = compileSpewEncoder(root);

for (const id of ['k8s-sampleContainer', 'full-newest', 'many-env']) {
  const value = decodeContainerTree(cases.find((c) => c.id === id)!.container, root);
  describe(`legacy spew → FNV, 1.15, ${id}`, () => {
    bench('compiled encoder', () => {
      const fnv = new Fnv32aSink();
      compiled(value, fnv);
      fnv.sum32();
    });
    bench('reference printer', () => {
      const fnv = new Fnv32aSink();
      writeUtf8(fnv, spewReference(root, value));
      fnv.sum32();
    });
  });
}
