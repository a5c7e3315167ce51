/**
 * This checkout's hashing API against another commit's, in one process: for every era × container
 * of the suite, the two builds' `hashContainer` take turns batch by batch (object input, then JSON
 * text), and the median over rounds of this ÷ that is printed, with the geometric means. Paired
 * like this, a change of a few per cent shows through load that moves separate runs by 2×.
 *
 * Run: `npm run bench:compare -- REF [--quick]` (REF: a commit, tag or branch). It checks REF out
 * into a temporary git worktree, runs `npm ci` and its own `tsc -p tsconfig.bench.json` there, and
 * removes the worktree afterwards. Both builds must export `hashContainer` and
 * `hashContainerWithoutResources` from `src/index.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ours from '../src/index.js';
import { CONTAINERS, ERAS, plain, toText } from './support/cases.js';
import { geomean, median, timingLoop, warmedBatchSize } from './support/timing.js';

type HashApi = Pick<typeof ours, 'hashContainer' | 'hashContainerWithoutResources'>;

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const ref = args.find((a) => !a.startsWith('--'));
if (ref === undefined) {
  console.error('usage: npm run bench:compare -- REF [--quick]');
  process.exit(2);
}
const plan = quick ? { rounds: 7, batchNs: 1e6, warmupNs: 2e7 } : { rounds: 15, batchNs: 2e6, warmupNs: 3e7 };

const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
const tree = mkdtempSync(join(tmpdir(), `kh-bench-${commit}-`));
const run = (cmd: string, argv: string[], cwd: string): void => {
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
};

try {
  console.log(`building ${ref} (${commit}) in ${tree} …`);
  run('git', ['-C', repo, 'worktree', 'add', '--detach', '--force', tree, commit], repo);
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], tree);
  run('npx', ['tsc', '-p', 'tsconfig.bench.json'], tree);
  // Their compiled copy reads fixtures/ next to itself, as `npm run bench` arranges.
  symlinkSync('../fixtures', join(tree, '.bench-build', 'fixtures'));
  const theirs = (await import(pathToFileURL(join(tree, '.bench-build', 'src', 'index.js')).href)) as HashApi;

  // Both builds hash every case of the suite a few hundred times before anything is timed, so the
  // first row does not measure which build's code the JIT optimised first: without this, the first
  // row (1.8 minimal text) came out at 3–4× in run after run, and at 1.0 when measured second.
  for (const api of [theirs, ours])
    for (const { version, withoutResources } of ERAS) {
      const hash = withoutResources ? api.hashContainerWithoutResources : api.hashContainer;
      for (const [, id] of CONTAINERS)
        for (const input of [plain(id), toText(plain(id))])
          for (let i = 0; i < 300; i++) hash(input, { kubeletVersion: version });
    }

  const objectRatios: number[] = [];
  const textRatios: number[] = [];
  console.log(`\n| release | container | object: this ÷ ${commit} | text: this ÷ ${commit} |\n|---|---|---:|---:|`);
  for (const { version, withoutResources } of ERAS) {
    const pick = (api: HashApi) => (withoutResources ? api.hashContainerWithoutResources : api.hashContainer);
    const [a, b] = [pick(theirs), pick(ours)];
    const opts = { kubeletVersion: version };
    for (const [container, id] of CONTAINERS) {
      const obj = plain(id);
      const text = toText(obj);
      // All four take turns in every round, and each round gives this ÷ that for both inputs: the
      // pairs see the same moment of the machine (measured separately, the pairs drifted apart).
      const loops = [() => a(obj, opts), () => b(obj, opts), () => a(text, opts), () => b(text, opts)].map(timingLoop);
      const sizes = loops.map((loop) => warmedBatchSize(loop, plan));
      const objectRounds: number[] = [];
      const textRounds: number[] = [];
      for (let r = 0; r < plan.rounds; r++) {
        const [ta, tb, xa, xb] = loops.map((loop, k) => loop(sizes[k]!)) as [number, number, number, number];
        objectRounds.push(tb / ta);
        textRounds.push(xb / xa);
      }
      const object = median(objectRounds);
      const textual = median(textRounds);
      objectRatios.push(object);
      textRatios.push(textual);
      console.log(`| ${version} | ${container} | ${object.toFixed(2)} | ${textual.toFixed(2)} |`);
    }
  }
  console.log(
    `\ngeometric mean, this ÷ ${commit}: object ${geomean(objectRatios).toFixed(3)}, text ${geomean(textRatios).toFixed(3)}` +
      ` (below 1: this checkout is faster)`,
  );
} finally {
  execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', tree], { stdio: 'ignore' });
}
