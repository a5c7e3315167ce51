import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests run the built binary: build it once per run.
    globalSetup: ['test/support/build-cli.ts'],
    // Generated hashers: a TypeError/RangeError is a bug to see, not a fallback (release-hashers.ts).
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 120_000,
    reporters: ['default', './test/support/real-systems-reporter.ts', './test/support/closing-line-reporter.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
