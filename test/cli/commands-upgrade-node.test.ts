/**
 * `upgrade-node` (src/cli/commands-upgrade-node.ts over src/fleet/upgrade-node/) run for real on a
 * fake host: a temp dir as --host-root holding a containerd meta.db at 1.30 hashes, the pods in a
 * file, and the host's services as the test's own stand-in scripts (--services commands,
 * --host-exec none): each records its call and fails when the run says so; the swap stand-in
 * "installs" the new kubelet by writing the release the version command prints, and can fail
 * before or after that. Every run checks the calls made, the outcome and exit code, the store's
 * hashes (old or new) and the journal; a second run of every finished upgrade changes nothing.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileJournal } from '../../src/fleet/upgrade-node/journal.js';
import { hashContainer } from '../../src/hash-api/index.js';
import { ContainerdStore } from '../../src/stores/index.js';
import { cli } from '../support/cli.js';
import { fakeCri, type FakeCriAnswer } from '../support/fake-cri.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { writeContainerdNode, writePodList } from '../support/node-fixture.js';
import { testNodeHelper } from '../support/node-helper.js';
import { makeCa } from '../support/tls-ca.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-upgrade-node-cli-'));
/** Each fake host's runtime socket: a stand-in answering CRI (the gate asks RuntimeConfig, as doctor --to does). */
const runtimes: Promise<{ close: () => Promise<void> }>[] = [];
afterAll(async () => {
  for (const r of runtimes) await (await r).close();
  rmSync(dir, { recursive: true, force: true });
});

/** How many times each stand-in fails before it works (`drop-backup`: the swap removes the rollback points first). */
type Fail = Partial<
  Record<
    'stop-kubelet' | 'stop-runtime' | 'swap-before' | 'swap-after' | 'start-runtime' | 'start-kubelet' | 'drop-backup',
    number
  >
>;

let n = 0;
/** A fake host: containerd at 1.30 hashes for `pods` pods (`extra` API pods without a record), its stand-ins failing per `fail`. */
function node(
  fail: Fail = {},
  o: {
    pods?: number;
    extra?: number;
    cri?: FakeCriAnswer | 'none';
    files?: Record<string, string>;
    /** The first pod's first container gets a readiness probe (its hash is the stored one). */
    readiness?: boolean;
  } = {},
) {
  const run = join(dir, `node-${++n}`);
  const host = join(run, 'host');
  const pods = Array.from({ length: (o.pods ?? 2) + (o.extra ?? 0) }, (_, i) => fixturePod(i));
  if (o.readiness === true)
    (pods[0]!.spec.containers[0] as Record<string, unknown>)['readinessProbe'] = {
      tcpSocket: { port: 8080 },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    };
  const fixtures = fixtureContainers(pods.slice(0, o.pods ?? 2), '1.30');
  const root = join(host, 'var', 'lib', 'containerd');
  writeContainerdNode(root, fixtures);
  const podsFile = writePodList(join(run, 'pods.json'), pods);
  const log = join(run, 'calls.log');
  writeFileSync(log, '');
  const counters = join(run, 'counters');
  mkdirSync(counters);
  writeFileSync(join(host, 'installed-kubelet'), 'Kubernetes v1.30.14\n');
  for (const [path, text] of Object.entries(o.files ?? {})) {
    mkdirSync(dirname(join(host, path)), { recursive: true });
    writeFileSync(join(host, path), text);
  }
  // containerd 1.x by default: RuntimeConfig UNIMPLEMENTED, the 1.31 kubelet keeps its configured driver.
  let runtime: Promise<unknown> | undefined;
  const cri = o.cri ?? 'unimplemented';
  const bin = join(run, 'bin');
  mkdirSync(bin);
  // A stand-in appends its name to the log; it fails the first `fail[name]` times it runs.
  const script = (name: string, body = ''): string => {
    const file = join(bin, name);
    const times = (key: keyof Fail): number => fail[key] ?? 0;
    const failAt = (key: keyof Fail): string =>
      `c=$(cat ${counters}/${key} 2>/dev/null || echo 0); if [ "$c" -lt ${times(key)} ]; then echo $((c+1)) > ${counters}/${key}; echo "${key} broke" >&2; exit 1; fi`;
    writeFileSync(
      file,
      name === 'swap'
        ? `#!/bin/sh\necho swap >> ${log}\n${fail['drop-backup'] ? `rm -rf ${host}/var/lib/kubelet-hash/upgrade-1.30-1.31/backup\n` : ''}${failAt('swap-before')}\necho 'Kubernetes v1.31.14' > ${host}/installed-kubelet\n${failAt('swap-after')}\n`
        : `#!/bin/sh\necho "${name}" >> ${log}\n${body || failAt(name as keyof Fail)}\n`,
    );
    chmodSync(file, 0o755);
    return file;
  };
  const args = [
    'upgrade-node',
    '--from',
    '1.30',
    '--to',
    '1.31',
    '--pods',
    podsFile,
    '--host-root',
    host,
    '--host-exec',
    'none',
    '--services',
    'commands',
    '--stop-kubelet',
    script('stop-kubelet'),
    '--stop-runtime',
    script('stop-runtime'),
    '--start-runtime',
    script('start-runtime'),
    '--start-kubelet',
    script('start-kubelet'),
    '--swap',
    script('swap'),
    '--kubelet-version-command',
    script('kubelet-version', `cat ${host}/installed-kubelet`),
  ];
  const oldHashes = Object.fromEntries(fixtures.map((f) => [f.id, f.hash]));
  const newHashes = Object.fromEntries(
    fixtures.map((f) => [f.id, hashContainer(f.container, { kubeletVersion: '1.31' })]),
  );
  const state = join(host, 'var', 'lib', 'kubelet-hash', 'upgrade-1.30-1.31');
  return {
    host,
    pods,
    state,
    oldHashes,
    newHashes,
    /** Runs the command; returns its exit code, the calls it made this time and the store's hashes after. */
    async run(extra: string[] = []) {
      if (cri !== 'none' && runtime === undefined) {
        const started = fakeCri(join(host, 'run', 'containerd', 'containerd.sock'), cri);
        runtimes.push(started);
        runtime = started;
      }
      await runtime;
      const before = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
      const without = (list: string[], option: string): string[] =>
        list.filter((a, i) => a !== option && list[i - 1] !== option);
      // An option the run gives replaces the node's own (--host-exec none, the host root, …);
      // --node lists the pods from an apiserver instead of the file.
      let base = extra.includes('--node') ? without(args, '--pods') : args;
      for (const option of extra.filter((x) => x.startsWith('--')))
        if (base.includes(option)) base = without(base, option);
      const r = await cli([...base, ...extra, '--json']);
      const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean).slice(before);
      const hashes = Object.fromEntries(
        (await new ContainerdStore({ root }).list()).map((c) => [c.containerId, c.hash]),
      );
      expectRealBboltAgrees(join(root, 'io.containerd.metadata.v1.bolt', 'meta.db'));
      const doc =
        r.code === 0 || r.code === 1 || r.code === 2
          ? (JSON.parse(r.out || '{}') as { summary?: { outcome: string; detail: string } })
          : {};
      return { code: r.code, err: r.err, calls, hashes, outcome: doc.summary?.outcome, detail: doc.summary?.detail };
    },
    journal: () =>
      fileJournal(join(state, 'journal.ndjson'))
        .read()
        .map((e) => `${e.step} ${e.event}`),
  };
}

const FORWARD = ['stop-kubelet', 'stop-runtime', 'swap', 'start-runtime', 'start-kubelet'];

describe('upgrade-node on a fake host with the test’s own services', () => {
  it('forward: stop kubelet, stop runtime, apply, swap, start runtime, start kubelet, verify: upgraded (0), new hashes; a second run is a no-op', async () => {
    const h = node();
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({
      code: 0,
      outcome: 'upgraded',
      calls: FORWARD,
    });
    expect(r.hashes).toEqual(h.newHashes);
    expect(h.journal()).toEqual(
      ['plan', 'gate', 'stop-kubelet', 'stop-runtime', 'apply', 'swap', 'start-runtime', 'start-kubelet', 'verify']
        .flatMap((s) => [`${s} begin`, `${s} done`])
        .concat('outcome outcome'),
    );
    // Private state on the host: the directory 0700, plan and journal 0600.
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect([mode(h.state), mode(join(h.state, 'journal.ndjson')), mode(join(h.state, 'plan.json'))]).toEqual([
      0o700, 0o600, 0o600,
    ]);
    const again = await h.run();
    expect({ code: again.code, outcome: again.outcome, calls: again.calls }).toEqual({
      code: 0,
      outcome: 'upgraded',
      calls: [],
    });
    expect(again.detail).toMatch(/^already finished: upgraded/);
    expect(again.hashes).toEqual(h.newHashes);
  });

  it('the gate: an API container without a record is unknown: held (1), no unit touched, store as it was', async () => {
    const h = node({}, { extra: 1 });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({ code: 1, outcome: 'held', calls: [] });
    expect(r.hashes).toEqual(h.oldHashes);
  });

  it('the gate runs doctor --to’s start blockers: the runtime serves RuntimeConfig with systemd where the 1.30 kubelet’s config says cgroupfs: held (1), no unit touched, the blocker named', async () => {
    const h = node(
      {},
      {
        cri: { cgroupDriver: 0 },
        files: { 'var/lib/kubelet/config.yaml': 'kind: KubeletConfiguration\ncgroupDriver: cgroupfs\n' },
      },
    );
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({ code: 1, outcome: 'held', calls: [] });
    expect(r.detail).toBe('the gate: start blocker cgroup driver cgroupfs → systemd; nothing changed');
    expect(r.hashes).toEqual(h.oldHashes);
  });

  it('the gate: no runtime answers on its socket, so what the 1.31 kubelet gets from RuntimeConfig is unknown: held; a checkpoint the target cannot read too', async () => {
    const h = node({}, { cri: 'none', files: { 'var/lib/kubelet/memory_manager_state': '{"policyName":' } });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({ code: 1, outcome: 'held', calls: [] });
    expect(r.detail).toBe(
      'the gate: start blocker memory_manager_state; start unknown CRI RuntimeConfig; nothing changed',
    );
  });

  it('the gate counts plan’s restart causes outside the hash: a pod with a readiness probe flaps across 1.30 → 1.31: held (1), the cause named; accepted with --accept-cause: upgraded', async () => {
    const h = node({}, { readiness: true });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({ code: 1, outcome: 'held', calls: [] });
    expect(r.detail).toBe('the gate: restart cause readiness-flap pod default/web-00000; nothing changed');
    expect(r.hashes).toEqual(h.oldHashes);
    // A misspelt class is bad input before any step, not a held upgrade.
    const typo = await h.run(['--accept-cause', 'readiness-flop']);
    expect({ code: typo.code, calls: typo.calls }).toEqual({ code: 2, calls: [] });
    expect(typo.err).toContain('--accept-cause: one of');
    // A held run changed nothing: the next one plans and gates again, held while the cause stands.
    const again = await h.run();
    expect({ code: again.code, outcome: again.outcome, calls: again.calls }).toEqual({
      code: 1,
      outcome: 'held',
      calls: [],
    });
    const accepted = await h.run(['--accept-cause', 'readiness-flap']);
    expect({ code: accepted.code, outcome: accepted.outcome, calls: accepted.calls }).toEqual({
      code: 0,
      outcome: 'upgraded',
      calls: FORWARD,
    });
    expect(accepted.hashes).toEqual(h.newHashes);
  });

  it('--node lists the pods from the apiserver with the projected token (a stand-in over TLS): planned, gated and upgraded from them', async () => {
    const h = node();
    const access = join(dir, `sa-${n}`);
    makeCa(access, 'cluster-ca');
    writeFileSync(join(access, 'token'), 'the-token\n');
    const seen: string[] = [];
    const server = createServer(
      { key: readFileSync(join(access, 'server.key')), cert: readFileSync(join(access, 'server.crt')) },
      (req, res) => {
        seen.push(`${req.headers.authorization ?? ''} ${req.url ?? ''}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        // As the apiserver answers the field selector: the pods bound to the node.
        const items = h.pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: 'node-a' } }));
        res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items }));
      },
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const url = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const r = await h.run(['--node', 'node-a', '--api-access', access, '--server', url]);
      expect(r.err).toBe('');
      expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({
        code: 0,
        outcome: 'upgraded',
        calls: FORWARD,
      });
      expect(r.hashes).toEqual(h.newHashes);
      // Listed for the plan (which the gate's restart causes reuse) and for verify, each time with the token.
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(new Set(seen)).toEqual(
        new Set(['Bearer the-token /api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=500']),
      );
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });

  it('the host paths: a host root that does not exist, a symlink on the way to the state directory, a path that leaves the host root: bad input (2), nothing created, no unit touched', async () => {
    const h = node();
    const missing = await h.run(['--host-root', join(h.host, 'not-mounted')]);
    expect({ code: missing.code, calls: missing.calls }).toEqual({ code: 2, calls: [] });
    expect(missing.err).toContain('does not exist (is the host');
    expect(existsSync(join(h.host, 'not-mounted'))).toBe(false);
    // On the host an absolute symlink points into the host; in the agent it would point into the pod.
    const elsewhere = join(dirname(h.host), 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(h.host, 'var', 'lib', 'kubelet-hash'));
    const linked = await h.run();
    expect({ code: linked.code, calls: linked.calls }).toEqual({ code: 2, calls: [] });
    expect(linked.err).toContain('is a symlink');
    expect(readdirSync(elsewhere)).toEqual([]);
    for (const [option, path] of [
      ['--state-dir', '/../../escaped'],
      ['--runtime-root', '/var/../../../etc'],
    ] as const) {
      const out = await h.run([option, path]);
      expect({ code: out.code, calls: out.calls }).toEqual({ code: 2, calls: [] });
      expect(out.err).toContain('leaves the host');
    }
    expect(existsSync(join(dirname(dirname(h.host)), 'escaped'))).toBe(false);
    expect(existsSync(join(h.state, 'journal.ndjson'))).toBe(false);
  });

  it('the swap fails before installing: store rolled back, the old runtime and kubelet started (restored, 1); a second run changes nothing', async () => {
    const h = node({ 'swap-before': 1 });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 1, outcome: 'restored' });
    expect(r.calls).toEqual([
      'stop-kubelet',
      'stop-runtime',
      'swap',
      'kubelet-version',
      'start-runtime',
      'start-kubelet',
    ]);
    expect(r.hashes).toEqual(h.oldHashes);
    expect(h.journal()).toContain('rollback done');
    const again = await h.run();
    expect({ code: again.code, outcome: again.outcome, calls: again.calls }).toEqual({
      code: 1,
      outcome: 'restored',
      calls: [],
    });
    expect(again.hashes).toEqual(h.oldHashes);
  });

  it('the swap fails after installing: never rolled back, the new kubelet started over the new hashes, the failure in the journal', async () => {
    const h = node({ 'swap-after': 1 });
    const r = await h.run();
    expect(r.calls).toEqual([
      'stop-kubelet',
      'stop-runtime',
      'swap',
      'kubelet-version',
      'start-runtime',
      'start-kubelet',
    ]);
    expect(r.hashes).toEqual(h.newHashes);
    expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 0, outcome: 'upgraded' });
    expect(h.journal()).toContain('swap failed');
    expect(h.journal()).not.toContain('rollback begin');
    const again = await h.run();
    expect(again.calls).toEqual([]);
  });

  it('the new kubelet does not start: retried 3 times, then start-failed (2); the store keeps the new hashes', async () => {
    const h = node({ 'start-kubelet': 5 });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 2, outcome: 'start-failed' });
    expect(r.calls).toEqual([...FORWARD, 'start-kubelet', 'start-kubelet']);
    expect(r.hashes).toEqual(h.newHashes);
    expect(h.journal()).not.toContain('rollback begin');
    expect((await h.run()).calls).toEqual([]);
  });

  it('stopping the runtime fails: nothing applied, the runtime and kubelet started again (restored, 1)', async () => {
    const h = node({ 'stop-runtime': 1 });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({
      code: 1,
      outcome: 'restored',
      calls: ['stop-kubelet', 'stop-runtime', 'start-runtime', 'start-kubelet'],
    });
    expect(r.hashes).toEqual(h.oldHashes);
  });

  it('a failed rollback (its rollback point gone) starts the runtime and no kubelet: rollback-failed (2)', async () => {
    const h = node({ 'swap-before': 1, 'drop-backup': 1 });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 2, outcome: 'rollback-failed' });
    expect(r.calls).toEqual(['stop-kubelet', 'stop-runtime', 'swap', 'kubelet-version', 'start-runtime']);
    expect(r.hashes).toEqual(h.newHashes);
    expect((await h.run()).calls).toEqual([]);
  });

  it('a run that died inside apply is not repeated: interrupted (2), no unit touched, until the journal is removed', async () => {
    const h = node();
    mkdirSync(h.state, { recursive: true, mode: 0o700 });
    const j = fileJournal(join(h.state, 'journal.ndjson'));
    for (const s of ['plan', 'gate', 'stop-kubelet', 'stop-runtime']) {
      j.append({ step: s, event: 'begin' });
      j.append({ step: s, event: 'done' });
    }
    j.append({ step: 'apply', event: 'begin' });
    const r = await h.run();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({
      code: 2,
      outcome: 'interrupted',
      calls: [],
    });
    expect(r.hashes).toEqual(h.oldHashes);
    expect(existsSync(join(h.state, 'backup'))).toBe(false);
  });

  it('--host-exec chroot looks host commands up inside --host-root (through the node helper): stand-ins outside it are not found, the stop fails, nothing applied, restored', async () => {
    const helper = testNodeHelper();
    if (!helper) return;
    const h = node();
    // The stand-ins outside the host root are not found once chrooted: the stop fails, nothing applied.
    process.env.KUBELET_HASH_NODE_HELPER = helper;
    try {
      const r = await h.run(['--host-exec', 'chroot']);
      expect(r.err).toBe('');
      expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 1, outcome: 'restored' });
      expect(r.hashes).toEqual(h.oldHashes);
      expect(h.journal()).toContain('stop-kubelet failed');
    } finally {
      delete process.env.KUBELET_HASH_NODE_HELPER;
    }
  });
});
