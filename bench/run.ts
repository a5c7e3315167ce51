/**
 * The benchmark suite: ns/op of the public hashing API for every era × container, object and JSON
 * text input, beside a bare FNV-1a pass over exactly the bytes FNV consumes (the physical limit),
 * measured interleaved in one run; heap after 1,000,000 (and 2,000,000) hashes vs after 1,000; planUpgrade on a
 * node-sized fleet and on a 50 MB node-wide `docker inspect`; the CLI's `hash` over generated 5 MB and 50 MB
 * PodLists (time, peak RSS, growth). Prints a table and writes
 * `bench/results.json`.
 *
 * Run: `npm run bench` (under a minute on a quiet machine, minutes on a busy one) or
 * `npm run bench -- --quick`. That runs the tsc-compiled copy in `.bench-build/` with plain node:
 * tsx's loader hooks slow the measured code down by 10–25% (its module bindings), which is not what
 * users of the package run.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { hashedBytes } from '../src/hash/compute.js';
import { decodeFor } from '../src/hash/hashes-for.js';
import { hashContainer, hashContainerWithoutResources, planUpgrade, releaseInfo } from '../src/index.js';
import { daemonSetFleet } from './fleet.js';
import { startUpFigures, startUpLines } from './start-up.js';
import { goJudgeFor, goKubeletNs } from './go-kubelet.js';
import { CONTAINERS, ERAS, plain, toText } from './support/cases.js';
import { measureInterleaved, timingSink } from './support/timing.js';

const quick = process.argv.includes('--quick');
const compiled = import.meta.url.includes('/.bench-build/');
/** This source folder, also from the compiled copy (results are written next to the sources). */
const BENCH_DIR = new URL(compiled ? '../../bench/' : './', import.meta.url);
const ROUNDS = quick ? 7 : 21;
const BATCH_NS = quick ? 1e6 : 3e6; // each timed batch runs about this long
const WARMUP_NS = quick ? 2e7 : 5e7;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench does)');

// --- inputs ---------------------------------------------------------------------------------

function consumed(obj: object, version: string, wr: boolean): Uint8Array {
  const { pipeline, value } = decodeFor(obj, releaseInfo(version));
  return hashedBytes(pipeline, wr ? pipeline.withoutResources(value) : value);
}

const readScratch = new Uint8Array(1 << 16);
const encoder = new TextEncoder();

/**
 * One bare pass over the input text: its UTF-8 bytes into scratch, then a byte sum. The cheapest read
 * of a JS string's content we know (a `charCodeAt` loop costs about three times as much), so what any
 * reader that must refuse invalid JSON pays at least. For 1.31+, where FNV sees only name and image,
 * it is most of the floor for text.
 */
function bareRead(text: string): number {
  const n = encoder.encodeInto(text, readScratch).written;
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + readScratch[i]!) | 0;
  return x;
}

function bareFnv(bytes: Uint8Array): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

// --- timing ---------------------------------------------------------------------------------

const measure = (fns: (() => unknown)[]): { ns: number[]; ratio: number[] } =>
  measureInterleaved(fns, { rounds: ROUNDS, batchNs: BATCH_NS, warmupNs: WARMUP_NS });

// --- hashing table --------------------------------------------------------------------------

interface Row {
  era: string;
  version: string;
  container: string;
  case: string;
  fnvBytes: number;
  textChars: number;
  bareNs: number;
  objectNs: number;
  textNs: number;
  objectRatio: number;
  textRatio: number;
  /** ns of {@link bareRead} over the text, and text ns ÷ (bare FNV + bare read): the ratio to a validating reader's floor. */
  bareReadNs: number;
  textFloorRatio: number;
  objectMBps: number;
  /** ns of the Go kubelet's HashContainer for the same container (our Go judges), where measured. */
  goNs: number | null;
  goRatio: number | null;
  medianRoundObjectRatio: number;
  medianRoundTextRatio: number;
}

const rows: Row[] = [];
const goMissing: string[] = [];
for (const { era, version, withoutResources } of ERAS) {
  const hash = withoutResources ? hashContainerWithoutResources : hashContainer;
  const opts = { kubeletVersion: version };
  const { judge, missing } = goJudgeFor(version);
  if (missing !== undefined) goMissing.push(missing);
  const goNs = judge
    ? goKubeletNs(
        judge,
        CONTAINERS.map(([, id]) => toText(plain(id))),
      )
    : [];
  for (const [k, [container, id]] of CONTAINERS.entries()) {
    const obj = plain(id);
    const text = toText(obj);
    const bytes = consumed(obj, version, withoutResources);
    const m = measure([() => bareFnv(bytes), () => hash(obj, opts), () => hash(text, opts), () => bareRead(text)]);
    const [bareNs, objectNs, textNs, bareReadNs] = m.ns as [number, number, number, number];
    const go = goNs[k];
    rows.push({
      era,
      version,
      container,
      case: id,
      fnvBytes: bytes.length,
      textChars: text.length,
      bareNs,
      objectNs,
      textNs,
      objectRatio: objectNs / bareNs,
      textRatio: textNs / bareNs,
      bareReadNs,
      textFloorRatio: textNs / (bareNs + bareReadNs),
      objectMBps: (bytes.length / objectNs) * 1e3,
      goNs: go ?? null,
      goRatio: go === undefined ? null : objectNs / go,
      medianRoundObjectRatio: m.ratio[1]!,
      medianRoundTextRatio: m.ratio[2]!,
    });
  }
}

// --- heap -----------------------------------------------------------------------------------

function heapAfter(total: number, done: number, inputs: (() => unknown)[]): { done: number; mb: number } {
  for (let i = done; i < total; i++) timingSink((inputs[i % inputs.length]!() as string).length);
  gc!();
  gc!();
  return { done: total, mb: process.memoryUsage().heapUsed / 2 ** 20 };
}
const heapInputs = ERAS.flatMap(({ version, withoutResources }) =>
  CONTAINERS.flatMap(([, id]) => {
    const obj = plain(id);
    const text = toText(obj);
    const hash = withoutResources ? hashContainerWithoutResources : hashContainer;
    return [() => hash(obj, { kubeletVersion: version }), () => hash(text, { kubeletVersion: version })];
  }),
);
const h1 = heapAfter(1_000, 0, heapInputs);
const h2 = heapAfter(1_000_000, h1.done, heapInputs);
// A second million: what the first gains is the JIT's optimised code and feedback for the generated
// hashers (one-off); a leak would keep growing here.
const h3 = heapAfter(2_000_000, h2.done, heapInputs);
const heap = {
  after1e3MB: h1.mb,
  after1e6MB: h2.mb,
  after2e6MB: h3.mb,
  growthMB: h2.mb - h1.mb,
  secondMillionGrowthMB: h3.mb - h2.mb,
};

// --- planUpgrade ----------------------------------------------------------------------------

const fleet = daemonSetFleet(5000);
const planOnce = (records: (string | object)[]): number => {
  const t = performance.now();
  const plan = planUpgrade({ pods: fleet.pods, records: records as never, from: '1.29', to: '1.33' });
  if (plan.counts.rewrite !== 10000) throw new Error(`expected 10000 rewrites, got ${JSON.stringify(plan.counts)}`);
  return performance.now() - t;
};
const bestOf = (n: number, f: () => number): number => Math.min(...Array.from({ length: n }, f));
const plan = {
  containers: 10000,
  parsedInfosMs: bestOf(quick ? 3 : 7, () => planOnce(fleet.infos)),
  crictlTextsMs: bestOf(quick ? 2 : 5, () => planOnce(fleet.texts)),
  // The quick run plans a 10 MB record so it stays under a minute.
  dockerInspect: JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        new URL(compiled ? './plan-memory.js' : './plan-memory.ts', import.meta.url).pathname,
        quick ? '10' : '50',
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop()!,
  ) as Record<string, number>,
};

// --- the CLI over a big PodList -------------------------------------------------------------

/** `kubelet-hash hash -k 1.29` over a generated PodList of `mb` MB, in a fresh process (its peak RSS). */
const cliOver = (mb: number, kind: 'served' | 'hand-written' = 'served'): Record<string, number> =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        new URL(compiled ? './cli-podlist.js' : './cli-podlist.ts', import.meta.url).pathname,
        String(mb),
        kind,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    )
      .trim()
      .split('\n')
      .pop()!,
  ) as Record<string, number>;
const small = cliOver(5);
const big = cliOver(quick ? 20 : 50);
// Hand-written pods (no apiserver defaults): every container goes into the CLI's warning.
const handSmall = cliOver(5, 'hand-written');
const handBig = cliOver(quick ? 20 : 50, 'hand-written');
const cli = {
  small,
  big,
  handSmall,
  handBig,
  handGrowth: handBig.cpuMs! / handBig.inputMB! / (handSmall.cpuMs! / handSmall.inputMB!),
  // CPU time per MB at the big size over that at the small one: 1 is linear (the bar is 1.5); CPU time, not wall time, so that a busy machine does not skew it.
  growth: big.cpuMs! / big.inputMB! / (small.cpuMs! / small.inputMB!),
};

// --- start-up (whole processes against dist/) -------------------------------------------------

const startUp = startUpFigures(quick ? 7 : 21);

// --- report ---------------------------------------------------------------------------------

const f = (n: number, d = 0): string => n.toFixed(d);
const lines = [
  '| era | release | container | FNV bytes | bare FNV ns | object ns/op | object MB/s | object ÷ bare | text chars | text ns/op | text ÷ bare | text ÷ (bare + read) | ÷ Go kubelet |',
  // ns/op: best of the interleaved rounds; ratios: best ÷ best (medians of same-round ratios in results.json),
  '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.era} | ${r.version} | ${r.container} | ${r.fnvBytes} | ${f(r.bareNs)} | ${f(r.objectNs)} | ${f(r.objectMBps)} | ${f(r.objectRatio, 2)} | ${r.textChars} | ${f(r.textNs)} | ${f(r.textRatio, 2)} | ${f(r.textFloorRatio, 2)} | ${r.goRatio === null ? 'n/a' : f(r.goRatio, 2)} |`,
  ),
];
console.log(lines.join('\n'));
console.log(`\nmedian oracle case: ${CONTAINERS[2]![1]}`);
for (const m of goMissing) console.log(`÷ Go kubelet n/a: ${m}`);
console.log(
  `heap after 1,000 hashes: ${f(heap.after1e3MB, 1)} MB; after 1,000,000: ${f(heap.after1e6MB, 1)} MB (growth ${f(heap.growthMB, 2)} MB); after 2,000,000: ${f(heap.after2e6MB, 1)} MB (${f(heap.secondMillionGrowthMB, 2)} MB more)`,
);
console.log(
  `planUpgrade, 10,000 DaemonSet containers: ${f(plan.parsedInfosMs, 1)} ms from parsed records, ${f(plan.crictlTextsMs, 1)} ms from crictl inspect texts`,
);
const d = plan.dockerInspect;
console.log(
  `planUpgrade, ${f(d.inputMB!, 1)} MB node-wide docker inspect (${d.containers} containers): ${f(d.ms!)} ms, peak RSS ${f(d.peakBeforeMB!)} MB with the input built → ${f(d.peakAfterMB!)} MB after planning`,
);
console.log(
  `kubelet-hash hash -k 1.29 over a ${f(big.inputMB!, 1)} MB PodList (${big.pods} pods): ${f(big.ms! / 1000, 2)} s (CPU ${f(big.cpuMs! / 1000, 2)} s), peak RSS ${f(big.peakRssMB!)} MB; ${f(small.inputMB!, 1)} MB: ${f(small.ms! / 1000, 2)} s, ${f(small.peakRssMB!)} MB; time per MB grows ${f(cli.growth, 2)}x from ${f(small.inputMB!)} to ${f(big.inputMB!)} MB`,
);

console.log(
  `the same over hand-written pods (${handBig.pods} pods): CPU ${f(handBig.cpuMs! / 1000, 2)} s, peak RSS ${f(handBig.peakRssMB!)} MB; ${f(handSmall.inputMB!, 1)} MB: CPU ${f(handSmall.cpuMs! / 1000, 2)} s; time per MB grows ${f(cli.handGrowth, 2)}x`,
);
for (const [what, growth] of [
  ['served', cli.growth],
  ['hand-written', cli.handGrowth],
] as const)
  if (growth > 1.5) console.log(`NOT LINEAR: the CLI over ${what} pods grows ${f(growth, 2)}x per MB (the bar is 1.5)`);
console.log('\n' + startUpLines(startUp).join('\n'));

writeFileSync(
  new URL('results.json', BENCH_DIR),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      quick,
      rounds: ROUNDS,
      rows,
      heap,
      plan,
      cli,
      startUp,
      sink: timingSink() & 1,
    },
    null,
    2,
  ) + '\n',
);
