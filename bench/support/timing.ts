/**
 * Interleaved timing for the benchmark suite: each measured function gets a loop of its own, and the
 * functions take turns batch by batch, so that load on the machine falls on all of them alike.
 */

let sink = 0; // keeps results alive so nothing is optimised away

/** Folds a result into the sink (and returns the sink, for results.json). */
export function timingSink(x = 0): number {
  sink ^= x;
  return sink;
}

/**
 * A timing loop of its own for one function: every measured function gets fresh bytecode, so its
 * call site sees only that function (a loop shared by all of them goes megamorphic and can deoptimise
 * whatever it inlined). Returns wall-clock ns per call (process CPU time ticks too coarsely for
 * millisecond batches).
 */
export function timingLoop(f: () => unknown): (n: number) => number {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fresh loop per function is the point
  const loop = new Function(
    'f',
    'now',
    'n',
    'let x = 0; const t = now(); for (let i = 0; i < n; i++) x ^= String(f()).length; return [Number(now() - t) / n, x];',
  ) as (f: () => unknown, now: () => bigint, n: number) => [number, number];
  return (n) => {
    const [ns, x] = loop(f, () => process.hrtime.bigint(), n);
    sink ^= x;
    return ns;
  };
}

export interface TimingPlan {
  rounds: number;
  /** Each timed batch runs about this long. */
  batchNs: number;
  /** CPU spent per function before the rounds start. */
  warmupNs: number;
}

/**
 * Interleaved batches, round after round: per function its best ns/op, and per function the median
 * over rounds of its time ÷ the first function's time in the same round (the ratio is what other
 * load on the machine disturbs least).
 */
export function measureInterleaved(fns: (() => unknown)[], plan: TimingPlan): { ns: number[]; ratio: number[] } {
  const loops = fns.map(timingLoop);
  const sizes = loops.map((loop) => warmedBatchSize(loop, plan));
  const best = fns.map(() => Infinity);
  const ratios: number[][] = fns.map(() => []);
  for (let r = 0; r < plan.rounds; r++) {
    const times = loops.map((loop, k) => {
      const per = loop(sizes[k]!);
      best[k] = Math.min(best[k]!, per);
      return per;
    });
    times.forEach((t, k) => ratios[k]!.push(t / times[0]!));
  }
  return { ns: best, ratio: ratios.map(median) };
}

/**
 * Warms `loop` up and returns how many calls make one batch. The generated hashers reach optimised
 * code only after some tens of milliseconds (a 200-call warm-up measured the first rounds up to 2× slow).
 */
export function warmedBatchSize(loop: (n: number) => number, plan: TimingPlan): number {
  let per = loop(200);
  for (let spent = 0; spent < plan.warmupNs;) {
    const n = Math.max(20, Math.ceil(plan.batchNs / Math.max(per, 1)));
    per = loop(n);
    spent += per * n;
  }
  return Math.max(20, Math.ceil(plan.batchNs / Math.max(per, 1)));
}

export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

export function geomean(xs: readonly number[]): number {
  return Math.exp(xs.reduce((s, v) => s + Math.log(v), 0) / xs.length);
}
