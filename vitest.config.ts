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
    // The suites that run a kubelet mostly wait (each in a mount namespace of its own,
    // test/support/mount-namespace.ts), and vitest's default of one worker fewer than the cores (1 on
    // a 2-core machine) would run everything else after them with the CPU idle. Two workers more
    // than cores: kubelet suites beside the cores' worth of CPU-bound files; the sequencer
    // (test/support/real-first-sequencer.ts) orders them so.
    maxWorkers: availableParallelism() + 2,
    sequence: { sequencer: RealFirstSequencer },
    reporters: ['default', './test/support/real-systems-reporter.ts', './test/support/closing-line-reporter.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
