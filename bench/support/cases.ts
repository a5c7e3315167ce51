/** The containers and eras the benchmark suite measures (bench/run.ts, bench/compare-builds.ts). */
import { hashedBytes } from '../../src/hash/compute.js';
import { containerJson, decodeFor } from '../../src/hash/hashes-for.js';
import { releaseInfo } from '../../src/index.js';
import { oracleCases } from '../../test/support/oracle.js';

export const toText = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x));
const cases = oracleCases();
export const plain = (id: string): object => JSON.parse(toText(cases.find((c) => c.id === id)!.container)) as object;
/** The oracle case whose 1.29 pre-image has the median size: a typical container. */
function medianCase(): string {
  const sizes = cases
    .map((c) => {
      try {
        const { pipeline, value } = decodeFor(containerJson(c.container as object), releaseInfo('1.29'));
        return { id: c.id, n: hashedBytes(pipeline, value).length };
      } catch {
        return null;
      }
    })
    .filter((x): x is { id: string; n: number } => x !== null)
    .sort((a, b) => a.n - b.n);
  return sizes[Math.floor(sizes.length / 2)]!.id;
}
export const CONTAINERS: [string, string][] = [
  ['minimal', 'minimal-name-image'],
  ['sampleContainer', 'k8s-sampleContainer'],
  ['median', medianCase()],
  ['full-newest', 'full-newest'],
];
export const ERAS: { era: string; version: string; withoutResources: boolean }[] = [
  { era: 'legacy', version: '1.8', withoutResources: false },
  { era: 'legacy', version: '1.15', withoutResources: false },
  { era: 'json', version: '1.16', withoutResources: false },
  // The release a Go judge runs kubelet's own HashContainer for (the ÷ Go kubelet column).
  { era: 'json', version: '1.20', withoutResources: false },
  { era: 'json', version: '1.29', withoutResources: false },
  { era: 'without-resources', version: '1.30', withoutResources: true },
  { era: 'name+image', version: '1.36', withoutResources: false },
];
