/**
 * The shell the system-upgrade-controller Plan runs on every node (`fleet manifests --variant suc`),
 * run for real: with bash and with the system's sh (dash on Debian) against a fake /host (a temp
 * dir), with stand-in `chroot`, `systemctl`, `kubectl`, the agent (`kubelet-hash`) and the swap
 * command on PATH. Each stand-in records its call and fails when told to, so every step can fail
 * in turn: the recorded calls must show the rollback when apply had begun, the runtime and the
 * kubelet started again, and a non-zero exit. And Debian's shellcheck finds nothing in it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultUnits } from '../../src/fleet/manifests.js';
import { cli } from '../support/cli.js';
import { describeReal } from '../support/real-systems.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-suc-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Runtime = 'containerd' | 'cri-o' | 'docker';
const RUNTIMES: Runtime[] = ['containerd', 'cri-o', 'docker'];
const ROOTS: Record<Runtime, string> = {
  containerd: '/var/lib/containerd',
  'cri-o': '/var/lib/containers/storage',
  docker: '/var/lib/docker',
};

/** The Plan's upgrade script for `runtime`, as `fleet manifests --variant suc` prints it. */
async function script(runtime: Runtime, extra: string[] = []): Promise<string> {
  const r = await cli([
    'fleet',
    'manifests',
    '--from',
    '1.30',
    '--to',
    '1.31',
    '--variant',
    'suc',
    '--runtime',
    runtime,
    ...(extra.includes('--runtime-root') ? [] : ['--runtime-root', ROOTS[runtime]]),
    '--swap-command',
    'swap-kubelet --to 1.31',
    '--image',
    `registry.example/kubelet-hash@sha256:${'5e'.repeat(32)}`,
    ...extra,
    '--json',
  ]);
  expect(r.code, r.err).toBe(0);
  const doc = JSON.parse(r.out) as { rows: { kind: string; spec: { upgrade: { args: string[] } } }[] };
  const plan = doc.rows.find((o) => o.kind === 'Plan');
  return plan!.spec.upgrade.args[0]!;
}

/** Stand-ins: each appends `name args` to $LOG and exits 1 when that line matches the pattern $FAIL. */
const bin = join(dir, 'bin');
mkdirSync(bin);
const standIn = (name: string, after = 'exit 0') => {
  const file = join(bin, name);
  writeFileSync(
    file,
    `#!/bin/sh\nline="${name} $*"\nprintf '%s\\n' "$line" >> "$LOG"\ncase "$line" in $FAIL) exit 1 ;; esac\n${after}\n`,
  );
  chmodSync(file, 0o755);
};
standIn('systemctl');
standIn('kubectl', `echo '{"apiVersion":"v1","kind":"List","items":[]}'`);
standIn('kubelet-hash');
standIn('swap-kubelet');
// chroot records nothing itself: it checks the root is the fake /host and runs the command from PATH.
writeFileSync(
  join(bin, 'chroot'),
  '#!/bin/sh\nif [ "$1" != "$HOST" ]; then echo "chroot into $1" >> "$LOG"; exit 97; fi\nshift\nexec "$@"\n',
);
chmodSync(join(bin, 'chroot'), 0o755);

let runs = 0;
/** Runs the script with `shell` against a fresh fake /host; `fail` (a sh pattern) matches the calls that fail. */
function runScript(text: string, shell: string, fail: string): { code: number | null; calls: string[]; err: string } {
  const run = join(dir, `run-${++runs}`);
  const host = join(run, 'host');
  mkdirSync(host, { recursive: true });
  const log = join(run, 'calls.log');
  writeFileSync(log, '');
  // The two lines that say where the node's / and the agent are: the only lines the test changes.
  const lines = text.split('\n');
  expect(lines.filter((l) => l === 'host=/host' || l === 'agent=/kubelet-hash')).toHaveLength(2);
  const local = lines
    .map((l) => (l === 'host=/host' ? `host=${host}` : l === 'agent=/kubelet-hash' ? `agent=${bin}/kubelet-hash` : l))
    .join('\n');
  const r = spawnSync(shell, ['-c', local], {
    env: {
      PATH: `${bin}:/usr/bin:/bin`,
      HOST: host,
      LOG: log,
      FAIL: fail,
      TMPDIR: run,
      SYSTEM_UPGRADE_NODE_NAME: 'node-a',
    },
    encoding: 'utf8',
  });
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    // The agent's arguments name this run's temp paths: shown relative to the fake host.
    .map((l) => l.split(host).join('<host>').split(run).join('<tmp>'));
  return { code: r.status, calls, err: r.stderr };
}

/** Whether a recorded call matches a stand-in's sh pattern (only `*` is used). */
const matches = (call: string, pattern: string): boolean =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(call);

const SHELLS = ['bash', 'sh'].filter((s) => spawnSync(s, ['-c', 'true']).status === 0);

/** The calls of a run that fails at `failing` (an index into the successful run's calls), recovery included. */
function expectedCalls(success: string[], failing: number, runtimeUnits: string[]): string[] {
  const done = success.slice(0, failing + 1);
  const applyAt = success.findIndex((c) => c.startsWith('kubelet-hash apply'));
  const kubeletStopAt = success.indexOf('systemctl stop kubelet');
  if (failing < kubeletStopAt) return done;
  const rollback = success[applyAt]!.replace('kubelet-hash apply', 'kubelet-hash rollback');
  const recovery = [
    ...(failing >= applyAt ? [...runtimeUnits.map((u) => `systemctl stop ${u}`), rollback] : []),
    ...[...runtimeUnits].reverse().map((u) => `systemctl start ${u}`),
    'systemctl start kubelet',
  ];
  return [...done, ...recovery];
}

describe('the system-upgrade-controller Plan: units and flags per runtime', () => {
  it('the default --units follow --runtime (and --from for docker: no cri-dockerd before 1.24)', async () => {
    expect(defaultUnits('containerd', '1.30')).toEqual(['kubelet', 'containerd']);
    expect(defaultUnits('cri-o', '1.30')).toEqual(['kubelet', 'crio']);
    expect(defaultUnits('docker', '1.30')).toEqual(['kubelet', 'cri-docker', 'docker.socket', 'docker']);
    expect(defaultUnits('docker', '1.23.4')).toEqual(['kubelet', 'docker.socket', 'docker']);
    for (const runtime of RUNTIMES) {
      const text = await script(runtime);
      const stops = text
        .split('\n')
        .filter((l) => /^chroot "\$host" systemctl stop /.test(l))
        .map((l) => l.split(' ').pop());
      expect(stops, runtime).toEqual(defaultUnits(runtime, '1.30'));
    }
    const crio = await script('cri-o');
    expect(crio).not.toContain('containerd');
    expect(crio).toContain('--crio-runroot "$host/run/containers/storage"');
    const docker = await script('docker');
    expect(docker).not.toContain('containerd');
    // The host's daemon.json: apply would otherwise read the agent container's own.
    expect(docker).toContain('--docker-config "$host/etc/docker/daemon.json"');
    expect(await script('cri-o', ['--crio-runroot', '/var/run/crio-storage'])).toContain(
      '--crio-runroot "$host/var/run/crio-storage"',
    );
    expect(await script('docker', ['--units', 'kubelet,docker'])).toContain('systemctl stop docker\n');
  });

  it('--to v1.31 and --to 1.31 give the same objects: the release is read once, never vv1.31', async () => {
    const run = async (from: string, to: string) => {
      const r = await cli([
        'fleet',
        'manifests',
        '--from',
        from,
        '--to',
        to,
        '--variant',
        'suc',
        '--swap-command',
        'true',
        '--image',
        `registry.example/kubelet-hash@sha256:${'5e'.repeat(32)}`,
        '--json',
      ]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      return r.out;
    };
    const bare = await run('1.30', '1.31');
    const prefixed = await run('v1.30', 'v1.31');
    expect(prefixed).toBe(bare);
    expect(prefixed).not.toMatch(/vv1/);
    expect(prefixed).toContain('"version": "v1.31"');
    // The Job variant too: the plan Job's arguments are the bare releases.
    const jobs = async (from: string, to: string) => {
      const r = await cli([
        'fleet',
        'manifests',
        '--from',
        from,
        '--to',
        to,
        '--node',
        'node-a',
        '--image',
        `registry.example/kubelet-hash@sha256:${'5e'.repeat(32)}`,
        '--json',
      ]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      return r.out;
    };
    const jobsPrefixed = await jobs('v1.30', 'v1.31');
    expect(jobsPrefixed).toBe(await jobs('1.30', '1.31'));
    expect(jobsPrefixed).not.toMatch(/vv1|"v1\.3[01]"/);
  });

  it('a flag of another runtime or of the Plan alone is a usage error', async () => {
    const base = ['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--allow-mutable-image', '--image', 'x:1'];
    const suc = [...base, '--variant', 'suc', '--swap-command', 'true'];
    const cases: [string[], string][] = [
      [[...suc, '--crio-runroot', '/run/x'], '--crio-runroot goes with --runtime cri-o'],
      [[...suc, '--runtime', 'cri-o', '--docker-config', '/etc/d.json'], '--docker-config goes with --runtime docker'],
      [[...base, '--node', 'a', '--units', 'kubelet'], '--units goes with --variant suc'],
      [[...suc, '--units', 'kubelet,,containerd'], '--units: unit names'],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain(message);
    }
  });
});

describe.each(RUNTIMES)('the Plan script on a fake /host, runtime %s', (runtime) => {
  const units = defaultUnits(runtime, '1.30').slice(1);

  it.each(SHELLS)(
    'succeeds in order with %s: stop, plan, apply, start, verify, swap, start the kubelet',
    async (shell) => {
      const r = runScript(await script(runtime), shell, '');
      expect(r.code, r.err).toBe(0);
      const flags = {
        containerd: '--containerd-root <host>/var/lib/containerd',
        'cri-o': '--crio-root <host>/var/lib/containers/storage --crio-runroot <host>/run/containers/storage',
        docker: '--docker-root <host>/var/lib/docker --docker-config <host>/etc/docker/daemon.json',
      }[runtime];
      expect(r.calls[0]).toBe('kubelet-hash fleet pods --node node-a --out <tmp>/pods.json');
      expect(r.calls.slice(1)).toEqual([
        'systemctl stop kubelet',
        `kubelet-hash plan --from 1.30 --to 1.31 --pods <tmp>/pods.json ${flags} --out <host>/var/lib/kubelet-hash/plan.json`,
        ...units.map((u) => `systemctl stop ${u}`),
        expect.stringMatching(
          /^kubelet-hash apply <host>\/var\/lib\/kubelet-hash\/plan\.json --backup-dir <host>\/var\/lib\/kubelet-hash\/backup-\d{8}T\d{6}Z-\d+$/,
        ),
        ...[...units].reverse().map((u) => `systemctl start ${u}`),
        `kubelet-hash verify --kubelet 1.31 --pods <tmp>/pods.json ${flags}`,
        'swap-kubelet --to 1.31',
        'systemctl start kubelet',
      ]);
    },
  );

  // Every call of a successful run fails in turn.
  it.each(SHELLS)(
    'with %s, a failure at every step: rollback once apply began, runtime and kubelet started, exit ≠ 0',
    async (shell) => {
      const text = await script(runtime);
      const success = runScript(text, shell, '').calls;
      const failures = success.map((call, i) => ({ call, i }));
      // The four the runbook names, at least: plan, apply, verify and the swap.
      for (const step of ['kubelet-hash plan', 'kubelet-hash apply', 'kubelet-hash verify', 'swap-kubelet'])
        expect(success.some((c) => c.startsWith(step))).toBe(true);
      for (const { call, i } of failures) {
        // The failing call as a pattern: a unit call exactly, the agent's and the others' by their first words.
        const fail = call.startsWith('systemctl') ? call : `${call.split(' ').slice(0, 2).join(' ')}*`;
        expect(
          success.filter((c) => matches(c, fail)),
          fail,
        ).toEqual([call]);
        const r = runScript(text, shell, fail);
        expect(r.code, `${fail}: ${r.err}`).not.toBe(0);
        const want = expectedCalls(success, i, units);
        const got = r.calls.map((c) => c.replace(/backup-\d{8}T\d{6}Z-\d+/, 'backup-RUN'));
        expect(got, fail).toEqual(want.map((c) => c.replace(/backup-\d{8}T\d{6}Z-\d+/, 'backup-RUN')));
        // The rollback reads this run's backup directory, the one apply was given.
        const applied = r.calls.find((c) => c.startsWith('kubelet-hash apply'));
        const rolled = r.calls.find((c) => c.startsWith('kubelet-hash rollback'));
        if (rolled !== undefined) expect(rolled.split(' ').pop()).toBe(applied?.split(' ').pop());
        if (i >= success.indexOf('systemctl stop kubelet')) expect(r.calls.at(-1)).toBe('systemctl start kubelet');
      }
    },
  );

  it('the four the issue names, spelled out: plan, apply, verify and swap fail', async () => {
    const text = await script(runtime);
    const shell = SHELLS[0]!;
    const starts = [...[...units].reverse().map((u) => `systemctl start ${u}`), 'systemctl start kubelet'];
    const stops = units.map((u) => `systemctl stop ${u}`);
    const plan = runScript(text, shell, 'kubelet-hash plan*');
    expect(plan.code).toBe(1);
    expect(plan.calls.slice(1, 3)).toEqual(['systemctl stop kubelet', expect.stringMatching(/^kubelet-hash plan /)]);
    // No store was touched: the runtime was never stopped, nothing rolled back; both are started (a no-op for a running unit).
    expect(plan.calls.slice(3)).toEqual(starts);
    for (const fail of ['kubelet-hash apply', 'kubelet-hash verify', 'swap-kubelet']) {
      const r = runScript(text, shell, `${fail}*`);
      expect(r.code, fail).toBe(1);
      const at = r.calls.findIndex((c) => c.startsWith(fail));
      expect(r.calls.slice(at + 1), fail).toEqual([
        ...stops,
        expect.stringMatching(/^kubelet-hash rollback <host>\/var\/lib\/kubelet-hash\/plan\.json --backup-dir /),
        ...starts,
      ]);
      expect(r.err).toContain('the upgrade failed at');
    }
  });

  it('a signal (the Job deadline) goes through the same recovery', async () => {
    const text = await script(runtime);
    // The swap stand-in is replaced by one that sends the shell TERM, as a deleted pod would.
    const r = runScript(text.replace('swap-kubelet --to 1.31', 'kill -TERM $$; sleep 1'), SHELLS[0]!, '');
    expect(r.code).not.toBe(0);
    expect(r.calls.some((c) => c.startsWith('kubelet-hash rollback'))).toBe(true);
    expect(r.calls.at(-1)).toBe('systemctl start kubelet');
  });
});

describeReal(
  [['shellcheck', '0.9.0']],
  (systems) => {
    it('every runtime’s script is clean for shellcheck as POSIX sh (the Plan runs sh -c)', async () => {
      const shellcheck = systems.get('shellcheck')!.bin;
      expect(existsSync(shellcheck)).toBe(true);
      for (const runtime of RUNTIMES)
        for (const extra of [[], ['--runtime-root', "/var/lib/it's here"]]) {
          const file = join(dir, `${runtime}.sh`);
          writeFileSync(file, await script(runtime, extra));
          const r = spawnSync(shellcheck, ['--shell=sh', '--severity=style', file], { encoding: 'utf8' });
          expect(r.stdout + r.stderr, `${runtime} ${extra.join(' ')}`).toBe('');
          expect(r.status).toBe(0);
        }
      // Not vacuous: shellcheck does report a script with a problem.
      writeFileSync(join(dir, 'bad.sh'), 'cd $1\n');
      expect(spawnSync(shellcheck, ['--shell=sh', join(dir, 'bad.sh')]).status).not.toBe(0);
      execFileSync(shellcheck, ['--version']);
    });
  },
  'the system-upgrade-controller Plan script',
);
