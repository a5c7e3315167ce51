/**
 * Test order for a whole run. The suites that run a kubelet (a cluster's, or static pods') mostly
 * wait, and only one runs at a time on a machine (machine-lock.ts): they form one chain, the longest
 * path of the run. The chain starts at once (the two cluster suites first: one runs, the other waits
 * for the lock on its own worker), the CPU-bound files run beside it on the other workers
 * (vitest.config.ts runs more workers than cores for that), and the kubelet suites come last, when
 * they no longer hold a worker another file could use. Left to vitest, a clean clone has no timings
 * yet and orders by file size, which starts the cluster suites (small files over large support
 * modules) last, and the run then ends with nothing but waiting.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files by when they should start; a file no pattern names goes between the last two. */
const ORDER = [
  /\/test\/real\/cluster-[^/]*\.test\.ts$/,
  /\/test\/hash\/go-differential\.test\.ts$/,
  /\/test\/cli\/cli-binary\.test\.ts$/,
  /\/test\/real\/(?!kubelet-)[^/]*\.test\.ts$/,
  /* everything else */
  /\/test\/real\/kubelet-[^/]*\.test\.ts$/,
];
const OTHERS = ORDER.length - 1;

const rank = (spec: TestSpecification): number => {
  const i = ORDER.findIndex((pattern) => pattern.test(spec.moduleId.replaceAll('\\', '/')));
  return i === -1 ? OTHERS - 0.5 : i;
};

export default class RealFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's own order (cached durations) stays.
    return ordered
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map((x) => x.spec);
  }
}
