/**
 * The runtime stays stopped through the whole write (issue 37): a crio started while apply replaces
 * CRI-O's files is seen before the last file is replaced, or after it, and apply refuses and puts
 * every file back; rollback's writes are kept the same way (seen, the files are as apply left them);
 * containerd is kept out by the file lock, and apply commits only while the kernel still says it
 * holds that lock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContainerdStore, CrioStore, fingerprintFile, type RecordBackup } from '../../src/stores/index.js';
import { applyNodePlan, parseNodePlan } from '../../src/node-upgrade/index.js';
import type { FileOperation } from '../../src/bbolt/index.js';
import { cli } from '../support/cli.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-runtime-during-write-'));
const started: ChildProcess[] = [];
afterAll(async () => {
  for (const child of started) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Blocks (a trace hook is synchronous) until `pid`'s command name is `name`, at most 5 s. */
function waitForComm(pid: number, name: string): void {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) return;
    } catch {
      // not there yet
    }
  }
  throw new Error(`process ${pid} never became ${name}`);
}

/** Starts a process named `crio` (node through a symlink) with `args`, and waits until it is one. */
function startFakeCrio(args: string[]): ChildProcess {
  const binDir = mkdtempSync(join(dir, 'bin-'));
  const bin = join(binDir, 'crio');
  symlinkSync(process.execPath, bin);
  const child = spawn(bin, ['-e', 'setTimeout(() => {}, 60000)', '--', ...args], { stdio: 'ignore' });
  started.push(child);
  waitForComm(child.pid!, 'crio');
  return child;
}

async function crioNode(name: string) {
  const pods = Array.from({ length: 3 }, (_, i) => fixturePod(i));
  const fixtures = fixtureContainers(pods, '1.30');
  const graph = join(dir, name, 'graph');
  const run = join(dir, name, 'run');
  const files = writeCrioNode(graph, run, fixtures);
  const podsFile = writePodList(join(dir, name, 'pods.json'), pods);
  const planFile = join(dir, name, 'plan.json');
  const r = await cli(planArgs({ podsFile, store: ['--crio-root', graph, '--crio-runroot', run], out: planFile }));
  expect(r.code).toBe(0);
  return { graph, files, plan: parseNodePlan(readFileSync(planFile, 'utf8')) };
}

const prints = (files: readonly string[]) => Promise.all(files.map((f) => fingerprintFile(f)));

describe('CRI-O: a crio started during apply is seen, and what apply wrote is undone', () => {
  // [what, the trace operation at which crio starts]
  const moments: [string, (op: FileOperation, renames: number, total: number) => boolean][] = [
    ['after the first file is replaced', (op, renames) => op.op === 'rename' && renames === 1],
    ['after the last file is replaced', (op, renames, total) => op.op === 'syncDir' && renames === total],
  ];
  for (const [when, startsAt] of moments)
    it(`crio starts ${when}: RUNTIME_RUNNING, every file as before`, async () => {
      const node = await crioNode(when.replace(/\W+/g, '-'));
      const before = await prints(node.files);
      const total = node.plan.counts.rewrite * 2; // graphroot and runroot copies
      let renames = 0;
      let crioStarted = false;
      const trace = (op: FileOperation): void => {
        if (op.op === 'rename') renames++;
        if (!crioStarted && startsAt(op, renames, total)) {
          crioStarted = true;
          startFakeCrio(['--root', node.graph]);
        }
      };
      const error = await applyNodePlan(node.plan, { hooks: { trace } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(crioStarted).toBe(true);
      expect(error).toMatchObject({ code: 'RUNTIME_RUNNING', location: node.graph });
      expect((error as Error).message).toContain(`apply put back the ${renames} files it had replaced`);
      expect(await prints(node.files)).toEqual(before);
      // No temporary file is left beside a record.
      for (const f of node.files) expect(readdirSync(join(f, '..')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    });
});

describe('CRI-O: a crio started during rollback is seen, and what rollback wrote is undone', () => {
  it('crio starts after the first file is put back: RUNTIME_RUNNING, every file as apply left it; stopped, rollback completes', async () => {
    const node = await crioNode('rollback-during');
    const store = new CrioStore({ graphRoot: node.graph, runRoot: join(node.graph, '..', 'run') });
    const rewrites = node.plan.entries.flatMap((e) =>
      e.action === 'rewrite' && e.containerId !== undefined && e.fingerprint !== undefined
        ? [{ containerId: e.containerId, fingerprint: e.fingerprint, change: e.change }]
        : [],
    );
    const before = await prints(node.files);
    let backups: RecordBackup[] = [];
    await store.apply(rewrites, { beforeWrite: (b) => (backups = b) });
    const applied = await prints(node.files);
    expect(applied).not.toEqual(before);
    let crio: ChildProcess | undefined;
    let renames = 0;
    const trace = (op: FileOperation): void => {
      if (op.op === 'rename' && ++renames === 1) crio = startFakeCrio(['--root', node.graph]);
    };
    const error = await store.restoreRecords(backups, { hooks: { trace } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(crio).toBeDefined();
    expect(error).toMatchObject({ code: 'RUNTIME_RUNNING', location: node.graph });
    expect((error as Error).message).toContain('CRI-O stopped while its records are restored');
    expect((error as Error).message).toContain(`rollback put back the ${renames} files it had replaced`);
    expect(await prints(node.files)).toEqual(applied);
    for (const f of node.files) expect(readdirSync(join(f, '..')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const exited = new Promise((r) => crio!.once('exit', r));
    crio!.kill('SIGKILL');
    await exited;
    const report = await store.restoreRecords(backups);
    expect(report.restored).toHaveLength(rewrites.length);
    expect(await prints(node.files)).toEqual(before);
  });
});

/** The pids of `root`'s descendants whose arguments hold `needle`, with their own descendants (our flock holder and its cat). */
function descendantsWith(root: number, needle: string): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const found = [...parent.keys()].filter((pid) => {
    if (!under(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
  return [...found, ...[...parent.keys()].filter((pid) => found.includes(parent.get(pid)!))];
}

describe('containerd: apply commits only while it holds the lock', () => {
  it('the lock lost before the meta page (its holder killed): STORE_LOCKED, meta.db keeps its records', async () => {
    const pods = Array.from({ length: 2 }, (_, i) => fixturePod(i));
    const fixtures = fixtureContainers(pods, '1.30');
    const root = writeContainerdNode(join(dir, 'containerd', 'root'), fixtures);
    const podsFile = writePodList(join(dir, 'containerd', 'pods.json'), pods);
    const planFile = join(dir, 'containerd', 'plan.json');
    expect((await cli(planArgs({ podsFile, store: ['--containerd-root', root], out: planFile }))).code).toBe(0);
    const plan = parseNodePlan(readFileSync(planFile, 'utf8'));
    const store = new ContainerdStore({ root });
    const before = await store.list();
    const beforeMeta = (): void => {
      const holders = descendantsWith(process.pid, store.dbPath);
      expect(holders.length).toBeGreaterThan(0);
      for (const pid of holders) process.kill(pid, 'SIGKILL');
      const ino = String(statSync(store.dbPath).ino);
      const until = Date.now() + 5000;
      while (readFileSync('/proc/locks', 'utf8').includes(`:${ino} `) && Date.now() < until);
    };
    const error = await applyNodePlan(plan, { hooks: { beforeMeta } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'STORE_LOCKED', location: store.dbPath });
    expect((error as Error).message).toContain('nothing was committed, the file keeps its old state');
    expect(await store.list()).toEqual(before);
  });
});
