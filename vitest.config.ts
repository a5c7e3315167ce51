import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import RealFirstSequencer from './test/support/real-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests run the built binary: build it once per run.
    globalSetup: ['test/support/build-cli.ts'],
    // Generated hashers: a TypeError/RangeError is a bug to see, not a fallback (release-hashers.ts).
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 120_000,
    // The real-system suites mostly wait (a cluster syncing, a kubelet restarting): vitest's default of
    // one worker fewer than the cores (1 on a 2-core machine) runs them one after another with the CPU
    // idle. Two more workers than cores lets them wait side by side while the CPU-bound files run;
    // the sequencer starts them first.
    maxWorkers: availableParallelism() + 2,
    sequence: { sequencer: RealFirstSequencer },
    reporters: ['default', './test/support/real-systems-reporter.ts', './test/support/closing-line-reporter.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
