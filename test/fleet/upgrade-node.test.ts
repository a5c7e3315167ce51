/**
 * The node upgrade's state machine (src/fleet/upgrade-node): every transition with injected step
 * runners that record their calls and fail on demand, over a real journal file in a temp dir.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileJournal } from '../../src/fleet/upgrade-node/journal.js';
import { upgradeNode, type NodeSteps } from '../../src/fleet/upgrade-node/machine.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-upgrade-node-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;
const journalPath = (): string => join(dir, `journal-${++n}.ndjson`);

/** Runners that log `name` per call; `fail` names calls that throw (a count: the first N calls of it). */
function fakeSteps(
  fail: Record<string, number> = {},
  o: { gate?: boolean; installed?: 'old' | 'new' | 'unknown' } = {},
): { steps: NodeSteps; calls: string[] } {
  const calls: string[] = [];
  const act = async (name: string): Promise<void> => {
    calls.push(name);
    await Promise.resolve();
    if ((fail[name] ?? 0) > 0) {
      fail[name]!--;
      throw new Error(`${name} broke`);
    }
  };
  return {
    calls,
    steps: {
      plan: () => act('plan'),
      gate: async () => {
        await act('gate');
        return o.gate === false ? ['a container would restart'] : [];
      },
      stop: (u) => act(`stop ${u}`),
      start: (u) => act(`start ${u}`),
      apply: () => act('apply'),
      rollback: () => act('rollback'),
      swap: () => act('swap'),
      installedKubelet: async () => {
        await act('which kubelet');
        return o.installed ?? 'unknown';
      },
      verify: () => act('verify'),
    },
  };
}

const HAPPY = [
  'plan',
  'gate',
  'stop kubelet',
  'stop runtime',
  'apply',
  'swap',
  'start runtime',
  'start kubelet',
  'verify',
];

async function run(fail: Record<string, number> = {}, o: Parameters<typeof fakeSteps>[1] = {}, path = journalPath()) {
  const { steps, calls } = fakeSteps(fail, o);
  const r = await upgradeNode(steps, fileJournal(path), { startAttempts: 3 });
  return { ...r, calls, path };
}

describe('upgradeNode: forward', () => {
  it('every step once, in order: upgraded, exit 0, each step journaled begin/done', async () => {
    const r = await run();
    expect(r).toMatchObject({ outcome: 'upgraded', exitCode: 0 });
    expect(r.calls).toEqual(HAPPY);
    const lines = readFileSync(r.path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: string; event: string });
    expect(lines.filter((l) => l.event === 'begin').map((l) => l.step)).toEqual(HAPPY.map((c) => c.replace(' ', '-')));
    expect(lines.at(-1)).toMatchObject({ event: 'outcome' });
  });

  it('the gate says no: held (exit 1), nothing stopped', async () => {
    const r = await run({}, { gate: false });
    expect(r).toMatchObject({ outcome: 'held', exitCode: 1 });
    expect(r.calls).toEqual(['plan', 'gate']);
  });

  it('plan fails: held, nothing stopped', async () => {
    const r = await run({ plan: 1 });
    expect(r.outcome).toBe('held');
    expect(r.calls).toEqual(['plan']);
  });
});

describe('upgradeNode: before the new kubelet is in place, back to the old release', () => {
  it('stopping the kubelet fails: start it again, no rollback', async () => {
    const r = await run({ 'stop kubelet': 1 });
    expect(r).toMatchObject({ outcome: 'restored', exitCode: 1 });
    expect(r.calls).toEqual(['plan', 'gate', 'stop kubelet', 'start kubelet']);
  });

  it('stopping the runtime fails: runtime and kubelet started again, no rollback (apply never began)', async () => {
    const r = await run({ 'stop runtime': 1 });
    expect(r.outcome).toBe('restored');
    expect(r.calls).toEqual(['plan', 'gate', 'stop kubelet', 'stop runtime', 'start runtime', 'start kubelet']);
  });

  it('apply fails: rollback, then the old runtime and kubelet', async () => {
    const r = await run({ apply: 1 });
    expect(r.outcome).toBe('restored');
    expect(r.calls).toEqual([...HAPPY.slice(0, 5), 'rollback', 'start runtime', 'start kubelet']);
  });

  it('the swap fails and the old kubelet is still installed: rollback, old units', async () => {
    const r = await run({ swap: 1 }, { installed: 'old' });
    expect(r.outcome).toBe('restored');
    expect(r.calls).toEqual([...HAPPY.slice(0, 6), 'which kubelet', 'rollback', 'start runtime', 'start kubelet']);
  });

  it('a failed rollback never starts a kubelet (the runtime is started)', async () => {
    const r = await run({ apply: 1, rollback: 1 });
    expect(r).toMatchObject({ outcome: 'rollback-failed', exitCode: 2 });
    expect(r.calls).toEqual([...HAPPY.slice(0, 5), 'rollback', 'start runtime']);
    expect(r.calls).not.toContain('start kubelet');
  });
});

describe('upgradeNode: once the new kubelet is in place, never roll back', () => {
  it('the swap fails but the new kubelet is installed: go on forward, no rollback', async () => {
    const r = await run({ swap: 1 }, { installed: 'new' });
    expect(r.outcome).toBe('upgraded');
    expect(r.calls).toEqual([...HAPPY.slice(0, 6), 'which kubelet', 'start runtime', 'start kubelet', 'verify']);
  });

  it('the swap fails and which kubelet is installed is unknown: no kubelet started, no rollback', async () => {
    const r = await run({ swap: 1 }, { installed: 'unknown' });
    expect(r).toMatchObject({ outcome: 'swap-unknown', exitCode: 2 });
    expect(r.calls).toEqual([...HAPPY.slice(0, 6), 'which kubelet', 'start runtime']);
  });

  it('the new kubelet fails to start: retried, then start-failed, never a rollback', async () => {
    let r = await run({ 'start kubelet': 2 });
    expect(r.outcome).toBe('upgraded');
    expect(r.calls.filter((c) => c === 'start kubelet')).toHaveLength(3);
    r = await run({ 'start kubelet': 5 });
    expect(r).toMatchObject({ outcome: 'start-failed', exitCode: 2 });
    expect(r.calls).not.toContain('rollback');
    expect(r.calls.filter((c) => c === 'start kubelet')).toHaveLength(3);
  });

  it('verify fails after the new kubelet started: reported, no rollback', async () => {
    const r = await run({ verify: 1 });
    expect(r).toMatchObject({ outcome: 'verify-failed', exitCode: 1 });
    expect(r.calls).toEqual(HAPPY);
  });
});

describe('upgradeNode: a retried Job continues or stops, never repeats a change', () => {
  const entry = (step: string, event: string) => JSON.stringify({ step, event, at: '2026-12-04T19:00:00.000Z' });
  const journalWith = (lines: string[]): string => {
    const path = journalPath();
    writeFileSync(path, lines.join('\n') + '\n', { mode: 0o600 });
    chmodSync(path, 0o600);
    return path;
  };

  it('a finished run: its outcome again, no step run', async () => {
    const first = await run();
    const again = await run({}, {}, first.path);
    expect(again).toMatchObject({ outcome: 'upgraded', exitCode: 0 });
    expect(again.calls).toEqual([]);
  });

  it('a held run changed nothing: the next one plans and gates again — held again while the cause stays, upgraded once it is gone; then finished', async () => {
    const first = await run({}, { gate: false });
    expect(first).toMatchObject({ outcome: 'held', exitCode: 1 });
    const still = await run({}, { gate: false }, first.path);
    expect(still).toMatchObject({ outcome: 'held', exitCode: 1 });
    expect(still.calls).toEqual(['plan', 'gate']);
    const gone = await run({}, {}, first.path);
    expect(gone).toMatchObject({ outcome: 'upgraded', exitCode: 0 });
    expect(gone.calls).toEqual(HAPPY);
    // The upgrade after two held attempts is the one the journal finishes with.
    const again = await run({}, {}, first.path);
    expect(again).toMatchObject({ outcome: 'upgraded', exitCode: 0 });
    expect(again.detail).toMatch(/^already finished: upgraded/);
    expect(again.calls).toEqual([]);
  });

  it('held after a failed plan, then interrupted inside a change: interrupted, not planned again', async () => {
    const path = journalWith([
      entry('plan', 'begin'),
      JSON.stringify({ step: 'plan', event: 'failed', detail: 'x', at: '2026-12-04T19:00:00.000Z' }),
      JSON.stringify({
        step: 'outcome',
        event: 'outcome',
        detail: 'held: plan failed: x; nothing changed',
        at: '2026-12-04T19:00:01.000Z',
      }),
      ...['plan', 'gate', 'stop-kubelet'].flatMap((x) => [entry(x, 'begin'), entry(x, 'done')]),
      entry('stop-runtime', 'begin'),
    ]);
    const r = await run({}, {}, path);
    expect(r).toMatchObject({ outcome: 'interrupted', exitCode: 2 });
    expect(r.calls).toEqual([]);
  });

  it('stopped after the swap: continues with the starts and verify only', async () => {
    const done = ['plan', 'gate', 'stop-kubelet', 'stop-runtime', 'apply', 'swap'].flatMap((s) => [
      entry(s, 'begin'),
      entry(s, 'done'),
    ]);
    const r = await run({}, {}, journalWith(done));
    expect(r.outcome).toBe('upgraded');
    expect(r.calls).toEqual(['start runtime', 'start kubelet', 'verify']);
  });

  it.each(['stop-kubelet', 'stop-runtime', 'apply', 'swap', 'rollback'])(
    'stopped inside %s: interrupted, nothing run',
    async (step) => {
      const r = await run({}, {}, journalWith([entry('plan', 'begin'), entry('plan', 'done'), entry(step, 'begin')]));
      expect(r).toMatchObject({ outcome: 'interrupted', exitCode: 2 });
      expect(r.detail).toContain(step);
      expect(r.calls).toEqual([]);
    },
  );

  it('stopped inside a read-only step: that step again', async () => {
    const r = await run({}, {}, journalWith([entry('plan', 'begin'), entry('plan', 'done'), entry('gate', 'begin')]));
    expect(r.outcome).toBe('upgraded');
    expect(r.calls).toEqual(HAPPY.slice(1));
  });
});

describe('the journal file', () => {
  it('created 0600, exclusively; a symlink, another mode or a cut line is refused', async () => {
    const r = await run({}, { gate: false });
    expect(readFileSync(r.path, 'utf8')).toContain('"outcome"');
    const { statSync } = await import('node:fs');
    expect(statSync(r.path).mode & 0o777).toBe(0o600);
    const link = journalPath();
    symlinkSync(r.path, link);
    await expect(run({}, {}, link)).rejects.toThrow(link);
    const loose = journalPath();
    writeFileSync(loose, '', { mode: 0o644 });
    chmodSync(loose, 0o644);
    await expect(run({}, {}, loose)).rejects.toThrow(/mode 644/);
    const cut = journalPath();
    writeFileSync(cut, '{"step":"plan","event":"be', { mode: 0o600 });
    await expect(run({}, {}, cut)).rejects.toThrow(/line 1 is not JSON/);
  });
});
