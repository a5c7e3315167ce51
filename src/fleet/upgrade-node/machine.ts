/**
 * The node's in-place upgrade as a state machine: plan → gate → stop the kubelet → stop the runtime
 * → apply → swap (install the new kubelet) → start the runtime → start the kubelet → verify, each
 * step run by an injected runner and recorded in the journal before and after it runs.
 *
 * The recovery rules, which the order of the old shell script got wrong:
 * - before the new kubelet is in place (a failure up to and including a swap that left the old
 *   kubelet), the store is rolled back (when apply began) and the old units started again;
 * - once the new kubelet is in place, the store is never rolled back (the new kubelet needs the new
 *   hashes): starting is retried, then the failure is reported with the units as they are;
 * - a failed rollback never starts a kubelet: the old one would restart every rewritten container
 *   (the runtime is started: it serves containers whatever their hashes);
 * - a swap that fails leaving it unknown which kubelet is installed starts no kubelet either.
 * A retried Job reads the journal: a finished run reports its outcome again; a run stopped inside a
 * step that changes the node (stop, apply, swap, rollback) is never repeated but reported; any other
 * run continues after its last finished step.
 */
import type { Journal, JournalEntry } from './journal.js';

/** The steps, in order. */
const STEPS = [
  'plan',
  'gate',
  'stop-kubelet',
  'stop-runtime',
  'apply',
  'swap',
  'start-runtime',
  'start-kubelet',
  'verify',
] as const;
type Step = (typeof STEPS)[number] | 'rollback';

/** Steps whose repetition could do harm, so a run interrupted inside one stops for a person. */
const CHANGING: ReadonlySet<Step> = new Set(['stop-kubelet', 'stop-runtime', 'apply', 'swap', 'rollback']);

/** How the node's upgrade ends, and its exit code (0 upgraded, 1 not upgraded as planned, 2 needs a person). */
export const OUTCOMES = {
  upgraded: 0,
  /** The gate said no (or planning failed): nothing on the node changed. */
  held: 1,
  /** A step failed before the new kubelet was in place: the store is as before, the old units run. */
  restored: 1,
  /** The new kubelet runs but verify finds containers it would restart. */
  'verify-failed': 1,
  /** Rolling back failed: the runtime runs, the kubelet is left stopped (no kubelet matches the store). */
  'rollback-failed': 2,
  /** The new kubelet is in place with the new hashes, and it (or the runtime) does not start. */
  'start-failed': 2,
  /** The swap failed and which kubelet is installed is unknown: no kubelet started. */
  'swap-unknown': 2,
  /** A retried run found a step that changes the node begun and never finished. */
  interrupted: 2,
} as const;
type Outcome = keyof typeof OUTCOMES;

/** What each step does on the node; a runner throws when its step fails. */
export interface NodeSteps {
  plan(): Promise<void>;
  /** Why not to go (a container that would restart or is unknown, a start blocker); none: go. */
  gate(): Promise<readonly string[]>;
  stop(unit: 'kubelet' | 'runtime'): Promise<void>;
  start(unit: 'kubelet' | 'runtime'): Promise<void>;
  apply(): Promise<void>;
  rollback(): Promise<void>;
  swap(): Promise<void>;
  /** Which kubelet is installed now: the release upgraded from, the one upgraded to, or unknown. */
  installedKubelet(): Promise<'old' | 'new' | 'unknown'>;
  verify(): Promise<void>;
}

export interface UpgradeResult {
  outcome: Outcome;
  exitCode: number;
  detail: string;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

class Run {
  constructor(
    private readonly steps: NodeSteps,
    private readonly journal: Journal,
    private readonly startAttempts: number,
  ) {}

  /** Runs `step` between its begin and done/failed entries; rethrows its failure. */
  async step<T>(step: Step, run: () => Promise<T>): Promise<T> {
    this.journal.append({ step, event: 'begin' });
    try {
      const value = await run();
      this.journal.append({ step, event: 'done' });
      return value;
    } catch (e) {
      this.journal.append({ step, event: 'failed', detail: message(e) });
      throw e;
    }
  }

  /** Tries `step`, reporting success instead of throwing. */
  async tryStep(step: Step, run: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.step(step, run);
      return true;
    } catch {
      return false;
    }
  }

  end(outcome: Outcome, detail: string): UpgradeResult {
    this.journal.append({ step: 'outcome', event: 'outcome', detail: `${outcome}: ${detail}` });
    return { outcome, exitCode: OUTCOMES[outcome], detail };
  }

  /** Back to the old release: roll the store back when apply began, then the old units, runtime first. */
  async restore(applied: boolean, why: string): Promise<UpgradeResult> {
    if (applied && !(await this.tryStep('rollback', () => this.steps.rollback()))) {
      await this.tryStep('start-runtime', () => this.steps.start('runtime'));
      return this.end('rollback-failed', `${why}; the rollback failed: the kubelet stays stopped`);
    }
    const runtime = await this.tryStep('start-runtime', () => this.steps.start('runtime'));
    const kubelet = await this.tryStep('start-kubelet', () => this.steps.start('kubelet'));
    return this.end(
      'restored',
      `${why}; ${applied ? 'store rolled back, ' : ''}old units started${runtime && kubelet ? '' : ' (a start failed: see the journal)'}`,
    );
  }

  /** The new kubelet is in place: start (retrying), never roll back, then verify. */
  async forward(from: 'start-runtime' | 'start-kubelet' | 'verify'): Promise<UpgradeResult> {
    const order = ['start-runtime', 'start-kubelet', 'verify'] as const;
    for (const step of order.slice(order.indexOf(from))) {
      if (step === 'verify') {
        if (!(await this.tryStep('verify', () => this.steps.verify())))
          return this.end(
            'verify-failed',
            'the new kubelet runs; verify finds containers it would restart (no rollback: the new kubelet needs the new hashes)',
          );
        continue;
      }
      const unit = step === 'start-runtime' ? 'runtime' : 'kubelet';
      let started = false;
      for (let i = 0; i < this.startAttempts && !started; i++)
        started = await this.tryStep(step, () => this.steps.start(unit));
      if (!started)
        return this.end(
          'start-failed',
          `the ${unit} did not start after ${this.startAttempts} attempts; the new kubelet and the new hashes stay`,
        );
    }
    return this.end('upgraded', 'the new kubelet runs over the rewritten hashes');
  }

  async from(first: (typeof STEPS)[number]): Promise<UpgradeResult> {
    const s = this.steps;
    const todo = STEPS.slice(STEPS.indexOf(first));
    for (const step of todo) {
      if (step === 'start-runtime' || step === 'start-kubelet' || step === 'verify') return this.forward(step);
      try {
        if (step === 'plan') await this.step(step, () => s.plan());
        else if (step === 'gate') {
          const reasons = await this.step(step, () => s.gate());
          if (reasons.length > 0) return this.end('held', `the gate: ${reasons.join('; ')}; nothing changed`);
        } else if (step === 'stop-kubelet') await this.step(step, () => s.stop('kubelet'));
        else if (step === 'stop-runtime') await this.step(step, () => s.stop('runtime'));
        else if (step === 'apply') await this.step(step, () => s.apply());
        else await this.step(step, () => s.swap());
      } catch (e) {
        return this.recover(step, message(e));
      }
    }
    return this.forward('start-runtime');
  }

  async recover(step: (typeof STEPS)[number], why: string): Promise<UpgradeResult> {
    const failed = `${step} failed: ${why}`;
    if (step === 'plan' || step === 'gate') return this.end('held', `${failed}; nothing changed`);
    if (step === 'stop-kubelet') {
      await this.tryStep('start-kubelet', () => this.steps.start('kubelet'));
      return this.end('restored', `${failed}; the kubelet started again`);
    }
    if (step === 'stop-runtime' || step === 'apply') return this.restore(step === 'apply', failed);
    // swap: which kubelet is installed decides the way.
    const installed = await this.steps.installedKubelet().catch(() => 'unknown' as const);
    if (installed === 'old') return this.restore(true, `${failed} (the old kubelet is still installed)`);
    if (installed === 'new') return this.forward('start-runtime');
    await this.tryStep('start-runtime', () => this.steps.start('runtime'));
    return this.end('swap-unknown', `${failed}; which kubelet is installed is unknown: no kubelet started`);
  }
}

/** Where a journal leaves off: a finished outcome, an interrupted changing step, or the next step to run. */
function resumePoint(
  entries: readonly JournalEntry[],
):
  | { kind: 'finished'; detail: string }
  | { kind: 'interrupted'; step: Step }
  | { kind: 'next'; step: (typeof STEPS)[number] } {
  const outcome = entries.find((e) => e.event === 'outcome');
  if (outcome) return { kind: 'finished', detail: outcome.detail ?? '' };
  const last = entries.at(-1);
  // A step begun (or failed: recovery never finished) and no outcome: what the process was doing when it died.
  if (last && last.event !== 'done') {
    if (CHANGING.has(last.step as Step) || last.event === 'failed')
      return { kind: 'interrupted', step: last.step as Step };
  }
  const done = new Set(entries.filter((e) => e.event === 'done').map((e) => e.step));
  if (done.has('rollback')) return { kind: 'interrupted', step: 'rollback' };
  const next = STEPS.find((s) => !done.has(s)) ?? 'verify';
  return { kind: 'next', step: next };
}

/** Runs (or continues, after a retried Job) the node's upgrade; never repeats a step that changed the node. */
export async function upgradeNode(
  steps: NodeSteps,
  journal: Journal,
  options: { startAttempts?: number } = {},
): Promise<UpgradeResult> {
  const run = new Run(steps, journal, options.startAttempts ?? 3);
  const entries = journal.read();
  // A held upgrade ran plan and gate only and changed nothing: a new run plans and gates again, on
  // the node as it is now (a removed cause, an accepted class), rather than repeating the verdict.
  // The journal of this attempt: what follows the last held outcome.
  let held = entries.length - 1;
  while (held >= 0 && !(entries[held]!.event === 'outcome' && (entries[held]!.detail ?? '').startsWith('held:')))
    held--;
  const at = resumePoint(entries.slice(held + 1));
  if (at.kind === 'finished') {
    const outcome = at.detail.split(':')[0] as Outcome;
    return { outcome, exitCode: outcome in OUTCOMES ? OUTCOMES[outcome] : 2, detail: `already finished: ${at.detail}` };
  }
  if (at.kind === 'interrupted')
    return run.end(
      'interrupted',
      `a previous run stopped inside ${at.step}; it is not run again: check the node, then remove the journal`,
    );
  return run.from(at.step);
}
