/**
 * One property over sequences of what happens to a node during an in-place upgrade: generated
 * nodes, then plan, apply, apply again, store changes (an image pulled, a container added in
 * another namespace, a sandbox removed, a record edited, a container recorded), the runtime
 * started (before apply, or at any write of it), a crash at any write of apply, rollback, in any
 * order. After every step:
 * - apply never exits 0 over a store that is not exactly what its plan read (a container not seen);
 * - apply and rollback change nothing but the records they name: every other key or file is as it
 *   was (nothing lost), and a refusal changes nothing at all;
 * - a rollback that exits 0 leaves each record apply rewrote with its pre-apply bytes;
 * - an up-to-date plan applies and a rollback whose records are as apply left them succeeds;
 * - a runtime running when apply starts, or started while it writes, is a refusal (containerd:
 *   STORE_LOCKED, its lock held; CRI-O and docker: RUNTIME_RUNNING, a real process named crio or
 *   dockerd on this store's root, found as apply finds one) and the store is as before: what apply
 *   wrote is undone; rollback while it runs is refused too.
 * containerd stores are judged by real bbolt at the end of each sequence (one bbolt-check per
 * sequence: opened, tx.Check() clean, every key as the project's reader reads it, the hashes the
 * model expects); CRI-O and docker (config.v2.json records built from a real cri-dockerd one) by
 * their files. Runs: see RUNS.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { lockFile } from '../../src/bbolt/lock.js';
import { containerdMetaDbPath } from '../../src/stores/index.js';
import type { FileOperation } from '../../src/bbolt/write.js';
import {
  applyNodePlan,
  planNodeUpgrade,
  rollbackNodePlan,
  type NodeUpgradePlan,
  type StoreSpec,
} from '../../src/node-upgrade/index.js';
import { openStore } from '../../src/node-upgrade/store-spec.js';
import { writeBoltFile } from '../support/bolt-builder.js';
import { bucketOf, readBoltTree } from '../support/bolt-tree.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { writeCrioNode } from '../support/crio-fixtures.js';
import { BBOLT_CHECK, judgeRequired } from '../support/go-judges.js';
import { writeContainerdNode } from '../support/node-fixture.js';
import { expectRealBboltAgrees, projectTree } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-rollback-sequences-'));
/** Runtimes this file started and has not stopped yet (stopped by pid, ours only). */
const daemons = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of daemons) await stopDaemon(child);
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A stand-in daemon: `sh` run through a symlink named `name` (so its /proc comm is `name`, as the
 * store's runtime check reads it) with `args` (its store root flag), waiting on standard input.
 * Started synchronously (from a write's trace hook): it runs when this returns.
 */
function startDaemon(name: 'crio' | 'dockerd', args: string[]): ChildProcess {
  const bin = join(dir, 'bin', name);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  try {
    symlinkSync('/bin/sh', bin);
  } catch {
    // made by an earlier sequence
  }
  const child = spawn(bin, ['-c', 'read line', name, ...args], { stdio: ['pipe', 'ignore', 'ignore'] });
  daemons.add(child);
  const until = Date.now() + 5000;
  for (;;) {
    try {
      if (readFileSync(`/proc/${child.pid!}/comm`, 'utf8').trim() === name) return child;
    } catch {
      // not there yet
    }
    if (Date.now() > until) throw new Error(`${name} (pid ${child.pid!}) did not start`);
  }
}

/**
 * Whether `e` is RUNTIME_RUNNING naming only processes that are not this file's stand-ins: another
 * test file's, started and stopped around this apply (none of this file's daemons runs outside a
 * runtime-started step).
 */
function foreignRuntime(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  if (err.code !== 'RUNTIME_RUNNING') return false;
  const pids = [...String(err.message).matchAll(/\bpid ([\d, ]+)/g)].flatMap((m) =>
    m[1]!.split(',').map((x) => Number(x.trim())),
  );
  const ours = new Set([...daemons].map((d) => d.pid));
  return pids.length > 0 && pids.every((pid) => !ours.has(pid));
}

/**
 * Runs `fn` while a process named `name` is a zombie (exited, its parent never waiting for it), as
 * a runtime killed by another test is until its parent reaps it. Its parent is stopped after.
 */
async function withZombie<T>(name: 'crio' | 'dockerd', fn: () => Promise<T>): Promise<T> {
  const bin = join(dir, 'zombie', name);
  const go = join(dir, 'zombie', `${name}.go`);
  mkdirSync(join(dir, 'zombie'), { recursive: true });
  symlinkSync('/bin/true', bin);
  execFileSync('mkfifo', ['-m', '0600', go]);
  // sh starts a child that waits on a fifo, says its pid, and becomes a sleep that never reaps it.
  // The child may only exit after that exec: sh reaps a child that exits before it (CI run of
  // 60bb789: the zombie was gone 3 times in 300 when `name` ran at once).
  const parent = spawn('/bin/sh', ['-c', '(read _ < "$1"; exec "$0") & echo $!; exec sleep 120', bin, go], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  daemons.add(parent);
  const statOf = (pid: number): string => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return '';
    }
  };
  const until = Date.now() + 30_000;
  const waitFor = async (what: string, done: () => boolean): Promise<void> => {
    while (!done()) {
      if (Date.now() > until) throw new Error(`${what} did not happen within 30 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    const pid = await new Promise<number>((ok) => parent.stdout.once('data', (d: Buffer) => ok(Number(String(d)))));
    await waitFor('the parent became sleep', () => statOf(parent.pid!).startsWith(`${parent.pid} (sleep) `));
    // Non-blocking: a child that is not reading yet is waited for, never blocks this thread.
    await waitFor(`${name} (pid ${pid}) reading its fifo`, () => {
      try {
        const fd = openSync(go, constants.O_WRONLY | constants.O_NONBLOCK);
        writeSync(fd, '\n');
        closeSync(fd);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENXIO') return false;
        throw e;
      }
    });
    await waitFor(`${name} (pid ${pid}) becoming a zombie`, () => statOf(pid).startsWith(`${pid} (${name}) Z`));
    return await fn();
  } finally {
    await stopDaemon(parent);
  }
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  daemons.delete(child);
}

/** Sequences per runtime (CI runs these; the acceptance asks ≥ 500 on containerd stores checked by real bbolt, and on the CRI-O and docker fixtures). */
const RUNS = {
  containerd: Number(process.env.KH_SEQ_RUNS) || 500,
  'cri-o': Number(process.env.KH_SEQ_RUNS) || 500,
  docker: Number(process.env.KH_SEQ_RUNS) || 500,
};
const METADATA = 'io.cri-containerd.container.metadata';

type Change = 'image' | 'other-namespace' | 'sandbox-removed' | 'record-edited' | 'container-recorded';
type Step =
  | { kind: 'plan' }
  | { kind: 'apply' }
  | { kind: 'apply-old' }
  | { kind: 'change'; change: Change; pick: number }
  /** at 0: the runtime runs when apply starts; else it starts at apply's write operation at - 1 (if there is one). */
  | { kind: 'runtime-started'; at: number }
  | { kind: 'crash'; at: number }
  | { kind: 'rollback'; which: 'latest' | 'first' | 'current' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'plan' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'apply' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'apply-old' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      change: fc.constantFrom<Change>(
        'image',
        'other-namespace',
        'sandbox-removed',
        'record-edited',
        'container-recorded',
      ),
      pick: fc.nat(50),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('runtime-started' as const), at: fc.nat(24) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('crash' as const), at: fc.nat(40) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('rollback' as const),
      which: fc.constantFrom('latest' as const, 'first' as const, 'current' as const),
    }),
  },
);

const nodeArb = fc.record({
  pods: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 3 }),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 9 }),
});

/** A store under test: where it is, its whole state as key → digest, and what changes it. */
interface SimStore {
  spec: StoreSpec;
  /** Every key (containerd) or file (CRI-O) → SHA-256 of its value. */
  state(): Record<string, string>;
  /** The keys or files of a record. */
  keysOf(containerId: string): string[];
  change(change: Change, pick: number, serial: number): void;
  /** Holds the runtime's hold on the store (containerd: the flock) while `fn` runs (containerd only). */
  whileRunning?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Starts the runtime's daemon on this store, synchronously (CRI-O, docker: they hold no lock). */
  startRuntime?: () => ChildProcess;
  /** The final judgement (real bbolt) with the hashes expected. */
  judge(hashes: Record<string, string | undefined>): void;
}

/** What the sequences did, so a run that exercised nothing shows. */
const tally: Record<string, number> = {};
const count = (what: string): void => {
  tally[what] = (tally[what] ?? 0) + 1;
};

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function containerdStore(root: string, pods: number[]): SimStore {
  const fixtures = fixtureContainers(
    pods.map((i) => fixturePod(i)),
    '1.30',
  );
  writeContainerdNode(root, fixtures);
  const db = containerdMetaDbPath(root);
  // Pause containers: kept by containerd beside the records, never records themselves.
  const tree = readBoltTree(db);
  for (const p of pods)
    bucketOf(tree, ['v1', 'k8s.io', 'containers'])[`sandbox-${p}`] = {
      labels: { 'io.cri-containerd.kind': 'sandbox' },
      image: 'registry.k8s.io/pause:3.9',
    };
  writeBoltFile(db, tree, { freelist: 'none' });
  const rewrite = (mutate: (t: ReturnType<typeof readBoltTree>) => void): void => {
    const t = readBoltTree(db);
    mutate(t);
    // Written in place (same inode): containerd's own file, only changed.
    writeBoltFile(db, t, { freelist: 'none' });
  };
  return {
    spec: { runtime: 'containerd', root, namespace: 'k8s.io' },
    state: () => projectTree(db),
    keysOf: (id) => [`v1/k8s.io/containers/${id}/extensions/${METADATA}`],
    change(change, pick, serial) {
      rewrite((t) => {
        const containers = bucketOf(t, ['v1', 'k8s.io', 'containers']);
        const ids = Object.keys(containers).filter((k) => !k.startsWith('sandbox-'));
        switch (change) {
          case 'image':
            bucketOf(t, ['v1', 'k8s.io', 'images'])[`docker.io/library/img:${serial}`] = {
              target: { digest: `sha256:${serial}` },
            };
            break;
          case 'other-namespace': {
            const { id, ...rec } = criRecord(fixtureContainers([fixturePod(100 + serial)], '1.30', 100 + serial)[0]!);
            bucketOf(t, ['v1', 'default', 'containers'])[id] = rec;
            break;
          }
          case 'sandbox-removed': {
            const sandboxes = Object.keys(containers).filter((k) => k.startsWith('sandbox-'));
            const gone = sandboxes[pick % Math.max(1, sandboxes.length)];
            if (gone !== undefined) Reflect.deleteProperty(containers, gone);
            break;
          }
          case 'record-edited': {
            const id = ids[pick % ids.length]!;
            const ext = bucketOf(t, ['v1', 'k8s.io', 'containers', id, 'extensions']);
            const v = Buffer.from(ext[METADATA] as Uint8Array).toString('latin1');
            // Same length: the Any's length prefix stays right; the record is another one.
            ext[METADATA] = Buffer.from(
              v.replace(/(\d)\.log"/, (_, d: string) => `${(Number(d) + 1) % 10}.log"`),
              'latin1',
            );
            break;
          }
          case 'container-recorded': {
            const { id, ...rec } = criRecord(fixtureContainers([fixturePod(200 + serial)], '1.30', 200 + serial)[0]!);
            containers[id] = rec;
            break;
          }
        }
      });
    },
    whileRunning: async (fn) => {
      const lock = await lockFile(db);
      try {
        return await fn();
      } finally {
        await lock.release();
      }
    },
    judge: (hashes) => {
      expectRealBboltAgrees(db, { hashes });
    },
  };
}

function crioStore(root: string, pods: number[]): SimStore {
  const graph = join(root, 'graph');
  const run = join(root, 'run');
  writeCrioNode(
    graph,
    run,
    fixtureContainers(
      pods.map((i) => fixturePod(i)),
      '1.30',
    ),
  );
  const files = (): string[] =>
    [graph, run].flatMap((r) => {
      const d = join(r, 'overlay-containers');
      return readdirSync(d)
        .sort()
        .map((id) => join(d, id, 'userdata', 'config.json'));
    });
  return {
    spec: { runtime: 'cri-o', graphRoot: graph, runRoot: run },
    state: () => Object.fromEntries(files().map((f) => [f, sha(readFileSync(f))])),
    keysOf: (id) => [graph, run].map((r) => join(r, 'overlay-containers', id, 'userdata', 'config.json')),
    change(change, pick, serial) {
      const all = files().filter((f) => f.startsWith(graph));
      switch (change) {
        case 'record-edited': {
          const f = all[pick % all.length]!;
          writeFileSync(f, readFileSync(f, 'utf8').replace('"/app"', `"/a${serial % 10}p"`));
          break;
        }
        case 'container-recorded':
        case 'other-namespace':
          writeCrioNode(graph, run, fixtureContainers([fixturePod(200 + serial)], '1.30', 200 + serial));
          break;
        default:
          // Images and sandboxes live elsewhere for CRI-O (containers/storage): no record file changes.
          break;
      }
    },
    startRuntime: () => startDaemon('crio', ['--root', graph]),
    judge: () => {},
  };
}

/** docker config.v2.json records for `fixtures`, from the fixture file of a real cri-dockerd container. */
function writeDockerContainers(root: string, fixtures: readonly FixtureContainer[]): void {
  const template = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'docker-config.v2.json'), 'utf8'),
  ) as { Config: Record<string, unknown> };
  for (const f of fixtures) {
    const labels: Record<string, string> = { ...f.labels, 'io.kubernetes.docker.type': 'container' };
    for (const [k, v] of Object.entries(f.annotations)) labels[`annotation.${k}`] = v;
    const { name, namespace, uid } = f.pod.metadata;
    const record = {
      ...template,
      ID: f.id,
      Name: `/k8s_${String(f.container.name)}_${name}_${namespace}_${uid}_${f.attempt}`,
      Config: { ...template.Config, Labels: labels },
    };
    mkdirSync(join(root, 'containers', f.id), { recursive: true });
    writeFileSync(join(root, 'containers', f.id, 'config.v2.json'), JSON.stringify(record));
  }
}

function dockerStore(root: string, pods: number[]): SimStore {
  const data = join(root, 'docker');
  writeDockerContainers(
    data,
    fixtureContainers(
      pods.map((i) => fixturePod(i)),
      '1.30',
    ),
  );
  const daemonConfig = join(root, 'daemon.json');
  writeFileSync(daemonConfig, '{"live-restore":true}');
  const files = (): string[] =>
    readdirSync(join(data, 'containers'))
      .sort()
      .map((id) => join(data, 'containers', id, 'config.v2.json'));
  return {
    spec: { runtime: 'docker', root: data, daemonConfig },
    state: () => Object.fromEntries(files().map((f) => [f, sha(readFileSync(f))])),
    keysOf: (id) => [join(data, 'containers', id, 'config.v2.json')],
    change(change, pick, serial) {
      const all = files();
      switch (change) {
        case 'record-edited': {
          const f = all[pick % all.length]!;
          writeFileSync(f, readFileSync(f, 'utf8').replace(/"RestartCount":\d+/, `"RestartCount":${1 + (serial % 9)}`));
          break;
        }
        case 'container-recorded':
        case 'other-namespace':
          writeDockerContainers(data, fixtureContainers([fixturePod(200 + serial)], '1.30', 200 + serial));
          break;
        default:
          // Images and sandboxes are not in config.v2.json records.
          break;
      }
    },
    startRuntime: () => startDaemon('dockerd', ['--data-root', data]),
    judge: () => {},
  };
}

/** The keys whose digests differ between two states (added, removed or changed). */
function changedKeys(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]).sort();
}

const rewritesOf = (plan: NodeUpgradePlan) =>
  plan.entries.flatMap((e) =>
    e.action === 'rewrite' && e.containerId !== undefined && e.fingerprint !== undefined
      ? [{ id: e.containerId, before: e.fingerprint, to: e.change.to.hash }]
      : [],
  );

async function runSequence(
  make: (root: string, pods: number[]) => SimStore,
  runtime: string,
  input: { pods: number[]; steps: Step[] },
  serial: number,
): Promise<void> {
  const root = join(dir, `${runtime}-${serial}`);
  const sim = make(root, input.pods);
  const pods = input.pods.map((i) => fixturePod(i));
  const backupDir = join(root, 'backups');
  const store = openStore(sim.spec);
  const prints = async () => new Map((await store.list()).map((c) => [c.containerId, c.fingerprint]));
  const hashesNow = async () => Object.fromEntries((await store.list()).map((c) => [c.containerId, c.hash]));
  const plan = () => planNodeUpgrade({ pods, from: '1.30', to: '1.31', store: sim.spec });
  let current = await plan();
  /** Plans applied with a rollback point, oldest first, with the records as they were before. */
  const applied: { plan: NodeUpgradePlan; after?: Map<string, string> }[] = [];
  let changes = 0;
  const log: string[] = [];

  for (const step of input.steps) {
    const before = sim.state();
    const recordsBefore = await prints();
    log.push(step.kind + ('change' in step ? `:${step.change}` : '') + ('which' in step ? `:${step.which}` : ''));
    const where = `${runtime} #${serial} pods ${input.pods.join(',')} after ${log.join(' → ')}`;
    const asPlanned = (p: NodeUpgradePlan): boolean => {
      const planned = p.entries.flatMap((e) => (e.containerId !== undefined ? [[e.containerId, e.fingerprint]] : []));
      return planned.length === recordsBefore.size && planned.every(([id, f]) => recordsBefore.get(id!) === f);
    };
    const onlyRecords = (ids: readonly string[], what: string): void => {
      const allowed = new Set(ids.flatMap((id) => sim.keysOf(id)));
      const stray = changedKeys(before, sim.state()).filter((k) => !allowed.has(k));
      expect({ where, what, stray }).toEqual({ where, what, stray: [] });
    };
    const unchanged = (what: string): void => {
      expect({ where, what, changed: changedKeys(before, sim.state()) }).toEqual({ where, what, changed: [] });
    };
    /** `runtime`: when the runtime was started (before apply, during its writes), or undefined (not started: a crash test when `hooks` is given without it). */
    const tryApply = async (
      p: NodeUpgradePlan,
      hooks?: { trace: (op: FileOperation) => void },
      runtime?: () => 'before' | 'during' | undefined,
    ) => {
      const result = await applyNodePlan(p, { backupDir, ...(hooks ? { hooks } : {}) }).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      const rw = rewritesOf(p);
      const crashTest = hooks !== undefined && runtime === undefined;
      const started = runtime?.();
      count(
        `apply ${result.ok ? 'ok' : started !== undefined ? `refused, runtime started ${started}` : crashTest ? 'crashed' : 'refused'}`,
      );
      if (started !== undefined) {
        // Running when apply starts, or started while it writes: refused, and the store as it was
        // (what apply had written is put back).
        unchanged(`apply, the runtime started ${started}`);
        const code = result.ok ? 'exit 0' : (result.e as { code?: string }).code;
        expect({ where, started, code }).toEqual({ where, started, code: 'RUNTIME_RUNNING' });
      } else if (result.ok && result.r.alreadyApplied === true) {
        // "Already applied" (exit 0, nothing written) only over a store that is what the plan makes
        // of the records it read: every rewrite holds its new hash, every other record as planned.
        unchanged('apply already applied');
        const now = await hashesNow();
        for (const r of rw) expect({ where, id: r.id, hash: now[r.id] }).toEqual({ where, id: r.id, hash: r.to });
        const rewritten = new Set(rw.map((r) => r.id));
        const others = p.entries.flatMap((e) =>
          e.containerId !== undefined && !rewritten.has(e.containerId) ? [[e.containerId, e.fingerprint]] : [],
        );
        for (const [id, f] of others)
          expect({ where, id, print: recordsBefore.get(id!) }).toEqual({ where, id, print: f });
        expect({ where, records: recordsBefore.size }).toEqual({ where, records: others.length + rw.length });
        expect(result.r.manifest).toBeUndefined();
        count('apply already applied');
      } else if (result.ok) {
        // Never exit 0 over a store that is not what the plan read.
        expect({ where, asPlanned: asPlanned(p) }).toEqual({ where, asPlanned: true });
        onlyRecords(
          rw.map((r) => r.id),
          'apply',
        );
        const now = await hashesNow();
        for (const r of rw) expect({ where, id: r.id, hash: now[r.id] }).toEqual({ where, id: r.id, hash: r.to });
        if (rw.length > 0) {
          expect(result.r.manifest).toBeDefined();
          applied.push({ plan: p, after: await prints() });
        } else expect(result.r.manifest).toBeUndefined();
      } else if (!crashTest) {
        // Refused: nothing written; and an up-to-date plan is never refused — unless a runtime of
        // another test file ran on this machine then (its pids named, none of this file's daemons,
        // none running now): the store rightly refuses while a crio or dockerd it cannot rule out
        // runs, and other files' stand-ins run in parallel. Counted, so the tally shows how often.
        unchanged('apply refused');
        if (asPlanned(p) && foreignRuntime(result.e)) count('apply refused: a runtime of another test file ran');
        else
          expect({ where, refused: String(result.e), asPlanned: asPlanned(p) }).toMatchObject({
            where,
            asPlanned: false,
          });
      }
      return result;
    };

    switch (step.kind) {
      case 'plan':
        current = await plan();
        unchanged('plan');
        break;
      case 'apply':
        await tryApply(current);
        break;
      case 'apply-old':
        await tryApply(applied[0]?.plan ?? current);
        break;
      case 'change':
        sim.change(step.change, step.pick, serial * 100 + changes++);
        break;
      case 'runtime-started': {
        const start = sim.startRuntime;
        if (start) {
          // CRI-O, docker: a real process on the store's root, started before apply or at one of its writes.
          let daemon: ChildProcess | undefined;
          let started: 'before' | 'during' | undefined;
          if (step.at === 0) {
            daemon = start();
            started = 'before';
          }
          let ops = 0;
          try {
            const trace = (): void => {
              if (daemon === undefined && ops++ === step.at - 1) {
                daemon = start();
                started = 'during';
              }
            };
            await tryApply(current, { trace }, () => started);
            if (started !== undefined) {
              const last = applied.at(-1);
              if (last)
                await expect(rollbackNodePlan(last.plan, { backupDir })).rejects.toMatchObject({
                  code: 'RUNTIME_RUNNING',
                });
              unchanged('rollback while the runtime runs');
              // A rollback point written before the runtime was seen: rollback of this plan finds it.
              if (rewritesOf(current).length > 0 && readdirSafe(backupDir).length > applied.length)
                applied.push({ plan: current });
            }
          } finally {
            if (daemon) await stopDaemon(daemon);
          }
          break;
        }
        if (!sim.whileRunning) break;
        await sim.whileRunning(async () => {
          await expect(applyNodePlan(current, { backupDir })).rejects.toMatchObject({ code: 'STORE_LOCKED' });
          const last = applied.at(-1);
          if (last)
            await expect(rollbackNodePlan(last.plan, { backupDir })).rejects.toMatchObject({ code: 'STORE_LOCKED' });
        });
        unchanged('runtime running');
        break;
      }
      case 'crash': {
        let ops = 0;
        const crashed = await tryApply(current, {
          trace: () => {
            if (ops++ === step.at) throw new Error('crash');
          },
        });
        const rw = rewritesOf(current);
        if (!crashed.ok) {
          // Each record is as it was or as apply writes it, never anything else; nothing else moved.
          onlyRecords(
            rw.map((r) => r.id),
            'crashed apply',
          );
          const now = await hashesNow();
          for (const r of rw)
            expect({ where, id: r.id, oldOrNew: [r.to, recordsHash(current, r.id)].includes(now[r.id]) }).toEqual({
              where,
              id: r.id,
              oldOrNew: true,
            });
          // A crash after the rollback point: rollback of this plan must be able to undo it.
          if (rw.length > 0 && readdirSafe(backupDir).length > applied.length && asPlanned(current))
            applied.push({ plan: current });
        }
        break;
      }
      case 'rollback': {
        const target =
          step.which === 'current' ? { plan: current } : step.which === 'first' ? applied[0] : applied.at(-1);
        if (!target) break;
        const rw = rewritesOf(target.plan);
        const result = await rollbackNodePlan(target.plan, { backupDir }).then(
          (r) => ({ ok: true as const, r }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        count(`rollback ${result.ok ? (result.r.restored.length > 0 ? 'restored' : 'nothing to restore') : 'refused'}`);
        if (result.ok) {
          onlyRecords(
            rw.map((r) => r.id),
            'rollback',
          );
          // Exit 0: every record apply rewrote holds its pre-apply bytes.
          const now = await prints();
          for (const r of rw) expect({ where, id: r.id, fp: now.get(r.id) }).toEqual({ where, id: r.id, fp: r.before });
        } else {
          unchanged('rollback refused');
          // A rollback point whose records are each as apply left them or as they were is never refused.
          const after = target.after;
          if (after !== undefined && target === applied.at(-1)) {
            const mine = rw.every((r) => {
              const f = recordsBefore.get(r.id);
              return f === r.before || f === after.get(r.id);
            });
            if (mine) expect({ where, refused: String(result.e) }).toEqual({ where, refused: 'never' });
          }
        }
        break;
      }
    }
  }
  // One real bbolt judgement per sequence: the file is sound and holds what the project reads.
  sim.judge(await hashesNow());
  rmSync(root, { recursive: true, force: true });
}

/** The hash a plan read for a record (its stored hash before apply). */
function recordsHash(plan: NodeUpgradePlan, id: string): string | undefined {
  const e = plan.entries.find((x) => x.containerId === id);
  return e?.action === 'rewrite' ? e.change.from.hash : undefined;
}

const readdirSafe = (d: string): string[] => {
  try {
    return statSync(d).isDirectory() ? readdirSync(d).filter((n) => /^[0-9a-f]{16}-/.test(n)) : [];
  } catch {
    return [];
  }
};

describe.runIf(judgeRequired(BBOLT_CHECK))('sequences of plan, apply, changes, crashes and rollback', () => {
  // fast-check seed 127260579 path 489 (CRI-O) failed once in a CI run: the apply after the crash,
  // of an up-to-date plan, was refused. The crash wrote nothing (that plan rewrites nothing), so the
  // store was as planned; what refuses every CRI-O apply then is a crio that a parallel test killed
  // and its parent had not yet reaped (a zombie: comm crio, empty cmdline, so a root that cannot be
  // told), counted as running. A zombie writes nothing: apply goes on (files.ts).
  it('cri-o: the sequence of seed 127260579, with a crio zombie on the machine', async () => {
    await withZombie('crio', () =>
      runSequence(
        crioStore,
        'cri-o-zombie',
        {
          pods: [42],
          steps: [
            { kind: 'apply' },
            { kind: 'rollback', which: 'current' },
            { kind: 'apply' },
            { kind: 'plan' },
            { kind: 'crash', at: 2 },
            { kind: 'apply' },
            { kind: 'change', change: 'other-namespace', pick: 24 },
            { kind: 'rollback', which: 'current' },
            { kind: 'apply' },
          ],
        },
        0,
      ),
    );
    // Nine steps with real files: seconds on a loaded 2-core machine, past vitest's 5 s default.
  }, 60_000);

  for (const [runtime, make] of [
    ['containerd', containerdStore],
    ['cri-o', crioStore],
    ['docker', dockerStore],
  ] as const) {
    it(`${runtime}: ${RUNS[runtime]} sequences`, async () => {
      let serial = 0;
      for (const k of Object.keys(tally)) Reflect.deleteProperty(tally, k);
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(nodeArb, (input) => runSequence(make, runtime, input, serial++)),
        { numRuns: RUNS[runtime], endOnFailure: true },
      );
      console.info(
        `[sequences] ${runtime}: ${serial} sequences in ${Math.round(performance.now() - started)} ms` +
          (runtime === 'containerd' ? `, each judged by real bbolt (${BBOLT_CHECK.version ?? 'missing'})` : '') +
          `: ${JSON.stringify(tally)}`,
      );
      // At full size every path is taken (a short local run with KH_SEQ_RUNS may miss one).
      if (RUNS[runtime] >= 100)
        for (const path of [
          'apply ok',
          'apply refused',
          'apply crashed',
          'rollback restored',
          'rollback refused',
          ...(runtime === 'containerd'
            ? []
            : ['apply refused, runtime started before', 'apply refused, runtime started during']),
        ])
          expect({ path, taken: (tally[path] ?? 0) > 0 }).toEqual({ path, taken: true });
    }, 900_000);
  }
});
