/**
 * The test suite `npm run mutation` runs against each mutant of src/quantity, src/encode and
 * src/decode: the tests that exercise those stages directly (unit, property, oracle and
 * conformance tests). Front-end tests (CLI, kubelet behaviour, explain, runtime records) reach the
 * same code only through slower paths and are left out to keep a run within reach of two cores.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/quantity*.test.ts',
      'test/gojson*.test.ts',
      'test/spew*.test.ts',
      'test/encode*.test.ts',
      'test/decode*.test.ts',
      'test/go-semantics.test.ts',
      'test/conformance.test.ts',
      'test/properties.test.ts',
      'test/legacy-properties.test.ts',
      'test/vectors.test.ts',
      'test/fuzz.test.ts',
      'test/deep-properties.test.ts',
    ],
    testTimeout: 120_000,
    isolate: false,
    pool: 'threads',
  },
});
