/**
 * The test suite `npm run mutation` runs against each mutant. With STRYKER_ROOMS set (see
 * stryker.config.mjs) it is the tests of those rooms, test/<room>/**. Without it, the default run
 * over src/quantity, src/encode and src/decode: the tests that exercise those stages directly (unit,
 * property, oracle and conformance tests). Front-end tests (CLI, kubelet behaviour, explain, runtime
 * records) reach the same code only through slower paths and are left out to keep a run within
 * reach of two cores. The real-system suites (test/real/) never run under mutation.
 */
import process from 'node:process';
import { defineConfig } from 'vitest/config';

const rooms = (process.env.STRYKER_ROOMS ?? '').split(',').filter((r) => r !== '');
const ENGINE_STAGES = [
  'test/quantity/*.test.ts',
  'test/encode/gojson*.test.ts',
  'test/encode/spew*.test.ts',
  'test/encode/encode*.test.ts',
  'test/decode/decode*.test.ts',
  'test/decode/go-semantics.test.ts',
  'test/conformance/conformance.test.ts',
  'test/hash/properties.test.ts',
  'test/models/legacy-properties.test.ts',
  'test/hash/vectors.test.ts',
  'test/api/fuzz.test.ts',
  'test/encode/deep-properties.test.ts',
];

export default defineConfig({
  test: {
    include: rooms.length > 0 ? rooms.map((r) => `test/${r}/**/*.test.ts`) : ENGINE_STAGES,
    exclude: ['**/*.integration.test.ts', '**/node_modules/**'],
    testTimeout: 120_000,
    isolate: false,
    pool: 'threads',
  },
});
