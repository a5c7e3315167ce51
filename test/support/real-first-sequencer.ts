/**
 * Test order for a whole run: the suites that spend their time waiting on real systems (a cluster, a
 * kubelet syncing pods, a daemon starting) go first, longest first, so that they wait while the
 * CPU-bound files run beside them on the other workers (vitest.config.ts runs more workers than
 * cores for that reason). Left to vitest, a clean clone has no timings yet and orders by file size,
 * which starts the cluster suites (small files over large support modules) last, and the run then
 * ends with nothing but waiting.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Waiting suites by how long each waits, longest first; a file not named keeps vitest's order after them. */
const WAITING_FIRST = [
  /\/test\/real\/cluster-[^/]*\.test\.ts$/,
  /\/test\/real\/kubelet-[^/]*\.test\.ts$/,
  /\/test\/hash\/go-differential\.test\.ts$/,
  /\/test\/cli\/cli-binary\.test\.ts$/,
  /\/test\/real\/[^/]*\.test\.ts$/,
];

const rank = (spec: TestSpecification): number => {
  const i = WAITING_FIRST.findIndex((pattern) => pattern.test(spec.moduleId.replaceAll('\\', '/')));
  return i === -1 ? WAITING_FIRST.length : i;
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
