/**
 * Start-up cost as whole processes against the built package (dist/, from `npm run build`):
 * `node -e "await import('kubelet-hash')"` (and `kubelet-hash/node`), `kubelet-hash --version` and
 * `--help`, each beside `node -e ""` (what Node itself costs). Every round runs each case once, in
 * turns, so a busy machine slows all alike, and a case's cost over Node is taken within its round
 * (its wall time minus that round's `node -e ""`). Figures are wall milliseconds, min and median of
 * the rounds; `inside` is the `await import` alone, timed in the fresh process (performance.now).
 * `cpu` is the child's own CPU time (user + system, read at its exit by a one-line `-r` preload
 * that every case, bare Node included, carries), which a shared machine inflates far less than wall
 * time. The goals (issue 26, on a quiet machine): the import under 60 ms over bare Node, `--version`
 * under 150 ms as a whole process. bench/run.ts reports them; `node .bench-build/bench/start-up.js
 * [ROUNDS]` prints them alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL(import.meta.url.includes('/.bench-build/') ? '../../' : '../', import.meta.url));

/** min and median of a case's rounds, in ms. */
export interface MinMedian {
  min: number;
  median: number;
}

export interface StartUpFigure {
  what: string;
  /** The whole process. */
  wall: MinMedian;
  /** Wall time minus `node -e ""` of the same round (absent for `node -e ""` itself). */
  overNode?: MinMedian;
  /** For the imports: the `await import` alone, inside the process. */
  inside?: MinMedian;
  /** The process's own CPU time (user + system), and that minus `node -e ""`'s of the same round. */
  cpu: MinMedian;
  cpuOverNode?: MinMedian;
  /** The goal this case is held to, if any. */
  goal?: { of: 'wall' | 'overNode'; ms: number };
}

export interface StartUpReport {
  rounds: number;
  /** os.loadavg() (1, 5, 15 minutes) before the first round and after the last. */
  loadBefore: number[];
  loadAfter: number[];
  figures: StartUpFigure[];
}

const timedImport = (spec: string): string =>
  `const t = performance.now(); await import(${JSON.stringify(spec)}); process.stdout.write(String(performance.now() - t));`;

const CASES: { what: string; args: string[]; timesImport: boolean; goal?: StartUpFigure['goal'] }[] = [
  { what: 'node -e "" (Node alone)', args: ['-e', ''], timesImport: false },
  {
    what: "import('kubelet-hash')",
    args: ['--input-type=module', '-e', timedImport('kubelet-hash')],
    timesImport: true,
    goal: { of: 'overNode', ms: 60 },
  },
  {
    what: "import('kubelet-hash/node')",
    args: ['--input-type=module', '-e', timedImport('kubelet-hash/node')],
    timesImport: true,
  },
  {
    what: 'kubelet-hash --version',
    args: ['dist/cli/main.js', '--version'],
    timesImport: false,
    goal: { of: 'wall', ms: 150 },
  },
  { what: 'kubelet-hash --help', args: ['dist/cli/main.js', '--help'], timesImport: false },
];

const minMedian = (xs: number[]): MinMedian => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]! };
};

const CPU_MARK = '@kubelet-hash-bench-cpu ';

export function startUpFigures(rounds = 21): StartUpReport {
  if (!existsSync(`${PACKAGE}dist/index.js`)) throw new Error('start-up figures need the built package: npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'kh-start-up-'));
  const preload = join(dir, 'cpu-at-exit.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\n${CPU_MARK}' + (u.user + u.system) / 1000 + '\\n'); });\n`,
  );
  const wall = CASES.map(() => [] as number[]);
  const over = CASES.map(() => [] as number[]);
  const inside = CASES.map(() => [] as number[]);
  const cpu = CASES.map(() => [] as number[]);
  const cpuOver = CASES.map(() => [] as number[]);
  const loadBefore = loadavg();
  try {
    for (let round = -1; round < rounds; round++) {
      const times = CASES.map((c) => {
        const t = process.hrtime.bigint();
        // The package resolves itself by name from its own root (as its users' code resolves it).
        const run = spawnSync(process.execPath, ['-r', preload, ...c.args], { cwd: PACKAGE, encoding: 'utf8' });
        const ms = Number(process.hrtime.bigint() - t) / 1e6;
        if (run.status !== 0) throw new Error(`${c.what} failed: ${run.stderr}`);
        const mark = run.stderr.lastIndexOf(CPU_MARK);
        return { ms, out: run.stdout, cpuMs: Number(run.stderr.slice(mark + CPU_MARK.length)) };
      });
      if (round < 0) continue; // the warm-up round fills the file cache
      CASES.forEach((c, i) => {
        wall[i]!.push(times[i]!.ms);
        over[i]!.push(times[i]!.ms - times[0]!.ms);
        cpu[i]!.push(times[i]!.cpuMs);
        cpuOver[i]!.push(times[i]!.cpuMs - times[0]!.cpuMs);
        if (c.timesImport) inside[i]!.push(Number(times[i]!.out));
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    rounds,
    loadBefore,
    loadAfter: loadavg(),
    figures: CASES.map((c, i) => ({
      what: c.what,
      wall: minMedian(wall[i]!),
      ...(i > 0 ? { overNode: minMedian(over[i]!) } : {}),
      ...(c.timesImport ? { inside: minMedian(inside[i]!) } : {}),
      cpu: minMedian(cpu[i]!),
      ...(i > 0 ? { cpuOverNode: minMedian(cpuOver[i]!) } : {}),
      ...(c.goal ? { goal: c.goal } : {}),
    })),
  };
}

export function startUpLines(report: StartUpReport): string[] {
  const f = (n: number): string => n.toFixed(0);
  const pair = (m: MinMedian | undefined): string => (m === undefined ? '' : `${f(m.min)} / ${f(m.median)}`);
  const load = (l: number[]): string => l.map((x) => x.toFixed(1)).join(' ');
  const verdict = (r: StartUpFigure): string => {
    if (r.goal === undefined) return '';
    const m = r.goal.of === 'wall' ? r.wall : r.overNode!;
    const what = r.goal.of === 'wall' ? 'whole process' : 'over Node';
    return `${what} < ${r.goal.ms}: min ${m.min < r.goal.ms ? 'meets' : 'MISSES'}, median ${m.median < r.goal.ms ? 'meets' : 'MISSES'}`;
  };
  return [
    `start-up, ${report.rounds} rounds in turns; load average ${load(report.loadBefore)} before, ${load(report.loadAfter)} after`,
    '| start-up (whole process) | wall ms min / median | over `node -e ""` min / median | import inside min / median | CPU ms min / median | CPU over `node -e ""` | goal |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...report.figures.map(
      (r) =>
        `| ${r.what} | ${pair(r.wall)} | ${pair(r.overNode)} | ${pair(r.inside)} | ${pair(r.cpu)} | ${pair(r.cpuOverNode)} | ${verdict(r)} |`,
    ),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  console.log(startUpLines(startUpFigures(Number(process.argv[2] ?? '21'))).join('\n'));
}
