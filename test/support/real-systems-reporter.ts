/**
 * After the run, one line per real-system suite (see real-systems.ts): the system and version it ran
 * on and how its tests went, or why it did not run and the command that provisions it, e.g.
 * `real: containerd 1.7.24 — 14 tests passed` / `real: kubelet 1.20.2 on containerd 1.6.20 — did not
 * run: not running as root; to run it: …`.
 */
import type { Reporter, TestModule, TestSuite } from 'vitest/node';

const PREFIX = 'real: ';

function summarise(suite: TestSuite): string {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let skipNote = '';
  for (const t of suite.children.allTests()) {
    const state = t.result().state;
    if (state === 'passed') counts.passed++;
    else if (state === 'failed') counts.failed++;
    else {
      counts.skipped++;
      skipNote ||= t.name;
    }
  }
  if (counts.passed + counts.failed === 0) return `${suite.name} — ${skipNote || 'did not run'}`;
  const parts = [`${counts.passed} tests passed`];
  if (counts.failed) parts.push(`${counts.failed} FAILED`);
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  return `${suite.name} — ${parts.join(', ')}`;
}

export default class RealSystemsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const mod of testModules)
      for (const child of mod.children)
        if (child.type === 'suite' && child.name.startsWith(PREFIX)) lines.push(summarise(child));
    if (lines.length) process.stdout.write(`\n${lines.sort().join('\n')}\n`);
  }
}
