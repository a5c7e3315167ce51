/**
 * `npm run fuzz -- --runs N [--seed S]`: the hostile-input property of test/api/fuzz.test.ts, run N
 * times, with a count per outcome (a hash, or the typed error code). Exits 1 with the shrunk
 * counterexample on a raw error or a changed input.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { hostileInputArb, releaseArb, runHostile, type Outcome } from '../support/hostile.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string' } } });
const runs = Number(values.runs);
const counts = new Map<Outcome, number>();
const started = performance.now();
const result = fc.check(
  fc.property(hostileInputArb, releaseArb, (input, release) => {
    const outcome = runHostile(input, release);
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }),
  { numRuns: runs, ...(values.seed === undefined ? {} : { seed: Number(values.seed) }) },
);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const [outcome, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${outcome.padEnd(22)} ${n}`);
console.log(`${result.numRuns} runs in ${seconds} s, seed ${result.seed}`);
if (result.failed) {
  console.error(fc.defaultReportMessage(result));
  process.exit(1);
}
