/**
 * Test order for a whole run. The suites that run a kubelet (a cluster's, or static pods') mostly
 * wait (side by side, each in a mount namespace of its own: mount-namespace.ts); the cluster suites
 * are the longest paths of the run. They start at once, the CPU-bound files run beside them on the
 * other workers (vitest.config.ts runs more workers than cores for that), and the static-pod kubelet
 * suites come last, when they no longer hold a worker another file could use. Left to vitest, a clean clone has no timings
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
