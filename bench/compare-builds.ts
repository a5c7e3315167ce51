/**
 * This checkout's hashing API against another commit's: for every era × container of the suite, the
 * two builds' `hashContainer` take turns batch by batch (object input, then JSON text), and the
 * median over rounds of this ÷ that is printed, with the geometric means. Paired like this, a change
 * of a few per cent shows through load that moves separate runs by 2×. Each build runs in a worker
 * thread of its own, new for every row (bench/support/compare-worker.ts: its own V8 isolate, so the
 * builds and the rows share no JIT state), and only one of them times at any moment.
 *
 * Run: `npm run bench:compare -- REF [--quick]` (REF: a commit, tag or branch). It checks REF out
 * into a temporary git worktree, runs `npm ci` and its own `tsc -p tsconfig.bench.json` there, and
 * removes the worktree afterwards. Both builds must export `hashContainer` and
 * `hashContainerWithoutResources` from `src/index.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CONTAINERS, ERAS, plain, toText } from './support/cases.js';
import type { CompareReply, CompareRequest, CompareRow } from './support/compare-worker.js';
import { geomean, median } from './support/timing.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const ref = args.find((a) => !a.startsWith('--'));
if (ref === undefined) {
  console.error('usage: npm run bench:compare -- REF [--quick]');
  process.exit(2);
}
// `pairs`: fresh worker pairs per row. Each worker's JIT settles its own way (one pair of a row can
// read 0.6 or 1.6 where the code did not change), so a row's figure is the median over its pairs.
const plan = quick
  ? { rounds: 7, batchNs: 1e6, warmupNs: 2e7, pairs: 3 }
  : { rounds: 11, batchNs: 2e6, warmupNs: 1e8, pairs: 5 };

const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
const tree = mkdtempSync(join(tmpdir(), `kh-bench-${commit}-`));
const run = (cmd: string, argv: string[], cwd: string): void => {
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
};
const here = dirname(fileURLToPath(import.meta.url));

/**
 * One build in a fresh worker: `ask` sends a request and resolves with its reply. Every row gets new
 * workers, so a row measures the code from a clean JIT state (as a process of its own would), not
 * whatever the rows before it left optimised or deoptimised in a shared isolate.
 */
function side(index: string): { ask: (r: CompareRequest) => Promise<CompareReply>; stop: () => Promise<number> } {
  const worker = new Worker(join(here, 'support', 'compare-worker.js'), { workerData: { index } });
  let pending: { resolve: (r: CompareReply) => void; reject: (e: Error) => void } | undefined;
  let failed: Error | undefined;
  worker.on('message', (reply: CompareReply) => pending?.resolve(reply));
  worker.on('error', (e) => {
    failed = e;
    pending?.reject(e);
  });
  return {
    ask: (request) =>
      new Promise((resolve, reject) => {
        if (failed !== undefined) {
          reject(failed);
          return;
        }
        pending = { resolve, reject };
        worker.postMessage(request);
      }),
    stop: () => worker.terminate(),
  };
}

/** This ÷ that for one row, from a fresh pair of workers: the medians over rounds, object and text. */
async function comparePair(row: CompareRow, what: string): Promise<[number, number]> {
  const [theirs, ours] = [side(theirIndex), side(ourIndex)];
  try {
    const prepared = [await theirs.ask({ op: 'prepare', row, plan }), await ours.ask({ op: 'prepare', row, plan })];
    const hashes = prepared.map((p) => (p.op === 'prepared' ? p.hashes.join(' ') : p.op));
    if (hashes[0] !== hashes[1]) throw new Error(`${what}: the builds disagree (${hashes.join(' vs ')})`);
    // All four take turns in every round, and each round gives this ÷ that for both inputs: the
    // pairs see the same moment of the machine (measured separately, the pairs drifted apart).
    const objectRounds: number[] = [];
    const textRounds: number[] = [];
    for (let r = 0; r < plan.rounds; r++) {
      const ta = await timed(theirs, 'object');
      const tb = await timed(ours, 'object');
      const xa = await timed(theirs, 'text');
      const xb = await timed(ours, 'text');
      objectRounds.push(tb / ta);
      textRounds.push(xb / xa);
    }
    return [median(objectRounds), median(textRounds)];
  } finally {
    await Promise.all([theirs.stop(), ours.stop()]);
  }
}

const timed = async (build: ReturnType<typeof side>, input: 'object' | 'text'): Promise<number> => {
  const reply = await build.ask({ op: 'time', input });
  if (reply.op !== 'timed') throw new Error(`expected a timing, got ${reply.op}`);
  return reply.ns;
};

const theirIndex = join(tree, '.bench-build', 'src', 'index.js');
const ourIndex = join(here, '..', 'src', 'index.js');

try {
  console.log(`building ${ref} (${commit}) in ${tree} …`);
  run('git', ['-C', repo, 'worktree', 'add', '--detach', '--force', tree, commit], repo);
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], tree);
  run('npx', ['tsc', '-p', 'tsconfig.bench.json'], tree);
  // Their compiled copy reads fixtures/ next to itself, as `npm run bench` arranges.
  symlinkSync('../fixtures', join(tree, '.bench-build', 'fixtures'));

  const objectRatios: number[] = [];
  const textRatios: number[] = [];
  console.log(`\n| release | container | object: this ÷ ${commit} | text: this ÷ ${commit} |\n|---|---|---:|---:|`);
  for (const { version, withoutResources } of ERAS) {
    for (const [container, id] of CONTAINERS) {
      const object = plain(id);
      const row: CompareRow = { version, withoutResources, object, text: toText(object) };
      const objectPairs: number[] = [];
      const textPairs: number[] = [];
      for (let pair = 0; pair < plan.pairs; pair++) {
        const [objectRatio, textRatio] = await comparePair(row, `${version} ${container}`);
        objectPairs.push(objectRatio);
        textPairs.push(textRatio);
      }
      const objectRatio = median(objectPairs);
      const textRatio = median(textPairs);
      objectRatios.push(objectRatio);
      textRatios.push(textRatio);
      console.log(`| ${version} | ${container} | ${objectRatio.toFixed(2)} | ${textRatio.toFixed(2)} |`);
    }
  }
  console.log(
    `\ngeometric mean, this ÷ ${commit}: object ${geomean(objectRatios).toFixed(3)}, text ${geomean(textRatios).toFixed(3)}` +
      ` (below 1: this checkout is faster)`,
  );
} finally {
  execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', tree], { stdio: 'ignore' });
}
