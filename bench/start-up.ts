/**
 * Start-up cost as whole processes against the built package (dist/, from `npm run build`):
 * `node -e "await import('kubelet-hash')"` (and `kubelet-hash/node`), `kubelet-hash --version` and
 * `--help`, each beside `node -e ""` (what Node itself costs), run in turns so a busy machine slows
 * all alike. Figures are wall milliseconds, min and median of the runs; `import ms` is the import
 * measured inside the fresh process (performance.now around the `await import`). bench/run.ts
 * reports them; `node .bench-build/bench/start-up.js [RUNS]` prints them alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL(import.meta.url.includes('/.bench-build/') ? '../../' : '../', import.meta.url));

export interface StartUpFigure {
  what: string;
  minMs: number;
  medianMs: number;
  /** For the imports: the `await import` alone, inside the process (min, median). */
  importMinMs?: number;
  importMedianMs?: number;
}

const timedImport = (spec: string): string =>
  `const t = performance.now(); await import(${JSON.stringify(spec)}); process.stdout.write(String(performance.now() - t));`;

const CASES: { what: string; args: string[]; timesImport: boolean }[] = [
  { what: 'node -e "" (Node alone)', args: ['-e', ''], timesImport: false },
  {
    what: "import('kubelet-hash')",
    args: ['--input-type=module', '-e', timedImport('kubelet-hash')],
    timesImport: true,
  },
  {
    what: "import('kubelet-hash/node')",
    args: ['--input-type=module', '-e', timedImport('kubelet-hash/node')],
    timesImport: true,
  },
  { what: 'kubelet-hash --version', args: ['dist/cli/main.js', '--version'], timesImport: false },
  { what: 'kubelet-hash --help', args: ['dist/cli/main.js', '--help'], timesImport: false },
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export function startUpFigures(runs = 21): StartUpFigure[] {
  if (!existsSync(`${PACKAGE}dist/index.js`)) throw new Error('start-up figures need the built package: npm run build');
  const wall = CASES.map(() => [] as number[]);
  const inside = CASES.map(() => [] as number[]);
  for (let round = -1; round < runs; round++) {
    CASES.forEach((c, i) => {
      const t = process.hrtime.bigint();
      // The package resolves itself by name from its own root (as its users' code resolves it).
      const out = execFileSync(process.execPath, c.args, { cwd: PACKAGE, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (round < 0) return; // the warm-up round fills the file cache
      wall[i]!.push(ms);
      if (c.timesImport) inside[i]!.push(Number(out));
    });
  }
  return CASES.map((c, i) => ({
    what: c.what,
    minMs: Math.min(...wall[i]!),
    medianMs: median(wall[i]!),
    ...(c.timesImport ? { importMinMs: Math.min(...inside[i]!), importMedianMs: median(inside[i]!) } : {}),
  }));
}

export function startUpLines(figures: StartUpFigure[]): string[] {
  const f = (n: number): string => n.toFixed(0);
  return [
    '| start-up (whole process) | wall min ms | wall median ms | import min ms | import median ms |',
    '|---|---:|---:|---:|---:|',
    ...figures.map(
      (r) =>
        `| ${r.what} | ${f(r.minMs)} | ${f(r.medianMs)} | ${r.importMinMs === undefined ? '' : f(r.importMinMs)} | ${r.importMedianMs === undefined ? '' : f(r.importMedianMs)} |`,
    ),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  console.log(startUpLines(startUpFigures(Number(process.argv[2] ?? '21'))).join('\n'));
}
