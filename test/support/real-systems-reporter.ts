/**
 * After the run, one line per real system and version the real-system suites ran on (see
 * real-systems.ts), their tests added up over every suite on that combination, or why it did not run
 * and the command that provisions it, e.g. `real: containerd 1.7.24 — 8 tests passed` /
 * `real: kubelet 1.20.2 on containerd 1.6.20 — did not run: not running as root; to run it: …`.
 */
import type { Reporter, TestModule, TestSuite } from 'vitest/node';

const PREFIX = 'real: ';

interface Tally {
  passed: number;
  failed: number;
  notes: string[];
}

/** `real: kubelet 1.20.2 on containerd 1.6.20 (what)` → `real: kubelet 1.20.2 on containerd 1.6.20`. */
const systemsOf = (suiteName: string): string => suiteName.replace(/ \([^()]*\)$/, '');

function add(tally: Tally, suite: TestSuite): void {
  let ran = 0;
  let skipNote = '';
  for (const t of suite.children.allTests()) {
    const state = t.result().state;
    if (state === 'passed') tally.passed++;
    else if (state === 'failed') tally.failed++;
    else skipNote ||= t.name;
    if (state === 'passed' || state === 'failed') ran++;
  }
  const error = suite.errors()[0];
  if (error) tally.notes.push(`FAILED before its tests: ${error.message.split('\n')[0] ?? ''}`);
  else if (ran === 0) tally.notes.push(skipNote.startsWith('did not run') ? skipNote : 'did not run (filtered out)');
}

function line(systems: string, t: Tally): string {
  const notes = [...new Set(t.notes)];
  if (t.passed + t.failed === 0 && notes.length) return `${systems} — ${notes.join('; ')}`;
  const parts = [`${t.passed} tests passed`];
  if (t.failed) parts.push(`${t.failed} FAILED`);
  return `${systems} — ${[...parts, ...notes].join(', ')}`;
}

export default class RealSystemsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tallies = new Map<string, Tally>();
    for (const mod of testModules)
      for (const child of mod.children) {
        if (child.type !== 'suite' || !child.name.startsWith(PREFIX)) continue;
        const key = systemsOf(child.name);
        let tally = tallies.get(key);
        if (!tally) tallies.set(key, (tally = { passed: 0, failed: 0, notes: [] }));
        add(tally, child);
      }
    const lines = [...tallies].map(([systems, t]) => line(systems, t)).sort();
    if (lines.length) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
