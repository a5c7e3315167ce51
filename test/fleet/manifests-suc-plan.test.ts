/**
 * The system-upgrade-controller Plan (`fleet manifests --variant suc`): its upgrade container is the
 * agent's `upgrade-node` (no shell, no host tool in the image), its flags per runtime, and its
 * command as printed run on a fake host (test/support/fake-host.ts: dash and stand-ins for the
 * host's systemctl, kubelet and swap command, a containerd root at 1.30 hashes) the way the
 * controller runs it: the host at --host-root, host commands chrooted into it through the node
 * helper, an EMPTY PATH. Upgraded with the new hashes, the units stopped and started in order; a
 * second run is a no-op; a swap failing before it installs leaves the old hashes and units.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultUnits } from '../../src/fleet/manifests.js';
import { cli } from '../support/cli.js';
import { fakeCri } from '../support/fake-cri.js';
import { FAKE_HOST_FORWARD, FAKE_NODE, writeFakeHost } from '../support/fake-host.js';
import { NODE_HELPER_HOW, testNodeHelper } from '../support/node-helper.js';

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

/** The Plan's upgrade container for `runtime` ({command, args}), as `fleet manifests --variant suc` prints it. */
async function upgradeContainer(
  runtime: Runtime,
  extra: string[] = [],
): Promise<{ command: string[]; args: string[] }> {
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
  const doc = JSON.parse(r.out) as {
    rows: { kind: string; spec: { upgrade: { command: string[]; args: string[] } } }[];
  };
  return doc.rows.find((o) => o.kind === 'Plan')!.spec.upgrade;
}

/** The values of every `--name` in `args`. */
const valuesOf = (args: readonly string[], name: string): string[] =>
  args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]!] : []));

describe('the system-upgrade-controller Plan: units and flags per runtime', () => {
  it('the default --units follow --runtime (and --from for docker: no cri-dockerd before 1.24)', async () => {
    expect(defaultUnits('containerd', '1.30')).toEqual(['kubelet', 'containerd']);
    expect(defaultUnits('cri-o', '1.30')).toEqual(['kubelet', 'crio']);
    expect(defaultUnits('docker', '1.30')).toEqual(['kubelet', 'cri-docker', 'docker.socket', 'docker']);
    expect(defaultUnits('docker', '1.23.4')).toEqual(['kubelet', 'docker.socket', 'docker']);
    for (const runtime of RUNTIMES) {
      const { command, args } = await upgradeContainer(runtime);
      expect(command).toEqual(['/kubelet-hash', 'upgrade-node']);
      expect([...valuesOf(args, 'kubelet-unit'), ...valuesOf(args, 'runtime-unit')], runtime).toEqual(
        defaultUnits(runtime, '1.30'),
      );
      expect(valuesOf(args, 'runtime')).toEqual([runtime]);
      expect(valuesOf(args, 'runtime-root')).toEqual([ROOTS[runtime]]);
      expect(valuesOf(args, 'host-root')).toEqual(['/host']);
    }
    const crio = (await upgradeContainer('cri-o')).args;
    expect(crio.join(' ')).not.toContain('containerd');
    expect(valuesOf(crio, 'crio-runroot')).toEqual(['/run/containers/storage']);
    const docker = (await upgradeContainer('docker')).args;
    expect(docker.join(' ')).not.toContain('containerd');
    // The host's daemon.json: apply would otherwise read the agent container's own.
    expect(valuesOf(docker, 'docker-config')).toEqual(['/etc/docker/daemon.json']);
    expect(
      valuesOf((await upgradeContainer('cri-o', ['--crio-runroot', '/var/run/crio-storage'])).args, 'crio-runroot'),
    ).toEqual(['/var/run/crio-storage']);
    expect(valuesOf((await upgradeContainer('docker', ['--units', 'kubelet,docker'])).args, 'runtime-unit')).toEqual([
      'docker',
    ]);
  });

  it('--to v1.31 and --to 1.31 give the same objects: the release is read once, never vv1.31', async () => {
    // One run of `fleet manifests` FROM → TO with `variant`'s flags: its JSON, after a clean exit.
    const manifests = async (from: string, to: string, variant: readonly string[]) => {
      const r = await cli([
        'fleet',
        'manifests',
        '--from',
        from,
        '--to',
        to,
        ...variant,
        '--image',
        `registry.example/kubelet-hash@sha256:${'5e'.repeat(32)}`,
        '--json',
      ]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      return r.out;
    };
    const suc = ['--variant', 'suc', '--swap-command', 'true'];
    const bare = await manifests('1.30', '1.31', suc);
    const prefixed = await manifests('v1.30', 'v1.31', suc);
    expect(prefixed).toBe(bare);
    expect(prefixed).not.toMatch(/vv1/);
    expect(prefixed).toContain('"version": "v1.31"');
    // The Job variant too: the plan Job's arguments are the bare releases.
    const jobs = ['--node', 'node-a'];
    const jobsPrefixed = await manifests('v1.30', 'v1.31', jobs);
    expect(jobsPrefixed).toBe(await manifests('1.30', '1.31', jobs));
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

const helper = testNodeHelper();
if (!helper) console.log(`skipped: the Plan's upgrade-node on a fake host (${NODE_HELPER_HOW})`);

describe.skipIf(!helper)('the Plan’s upgrade container as printed, on a fake host, PATH empty', () => {
  const saved = { PATH: process.env.PATH };
  afterEach(() => {
    process.env.PATH = saved.PATH;
    delete process.env.KUBELET_HASH_NODE_HELPER;
  });
  let runs = 0;
  const runtimes: { close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const r of runtimes) await r.close();
  });
  /** A fresh fake host and a runner of the Plan's command there (the kubelet's $(VAR) expansion done). */
  async function plan() {
    const run = join(dir, `host-${++runs}`);
    const host = writeFakeHost(join(run, 'host'), join(run, 'pods.json'));
    // The host's runtime answers CRI (the gate asks RuntimeConfig): containerd 1.x's UNIMPLEMENTED.
    runtimes.push(await fakeCri(join(run, 'host', 'run', 'containerd', 'containerd.sock'), 'unimplemented'));
    const { command, args } = await upgradeContainer('containerd');
    expect(command[0]).toBe('/kubelet-hash');
    const expanded = args.map((a) => (a === '$(SYSTEM_UPGRADE_NODE_NAME)' ? FAKE_NODE : a));
    // The pods from a file (no apiserver here); the host where this test made it rather than /host.
    const at = expanded.indexOf('--host-root');
    expanded[at + 1] = join(run, 'host');
    const exec = async () => {
      process.env.KUBELET_HASH_NODE_HELPER = helper;
      process.env.PATH = '';
      const before = host.calls().length;
      const r = await cli([...command.slice(1), ...expanded, '--pods', join(run, 'pods.json'), '--json']);
      process.env.PATH = saved.PATH;
      const doc = JSON.parse(r.out) as { summary?: { outcome: string } };
      return {
        code: r.code,
        outcome: doc.summary?.outcome,
        calls: host.calls().slice(before),
        hashes: await host.hashes(),
      };
    };
    return { host, exec };
  }

  it('upgraded: the host’s systemctl stops and starts the units around apply and the swap, new hashes; a second run changes nothing', async () => {
    const { host, exec } = await plan();
    const r = await exec();
    expect({ code: r.code, outcome: r.outcome, calls: r.calls }).toEqual({
      code: 0,
      outcome: 'upgraded',
      calls: FAKE_HOST_FORWARD,
    });
    expect(r.hashes).toEqual(host.newHashes);
    const again = await exec();
    expect({ code: again.code, outcome: again.outcome, calls: again.calls }).toEqual({
      code: 0,
      outcome: 'upgraded',
      calls: [],
    });
  });

  it('the swap fails before installing: the store rolled back, the old runtime and kubelet started (restored)', async () => {
    const { host, exec } = await plan();
    host.fail('swap-before');
    const r = await exec();
    expect({ code: r.code, outcome: r.outcome }).toEqual({ code: 1, outcome: 'restored' });
    expect(r.calls).toEqual([
      'systemctl stop kubelet',
      'systemctl stop containerd',
      'swap-kubelet --to 1.31',
      'systemctl start containerd',
      'systemctl start kubelet',
    ]);
    expect(r.hashes).toEqual(host.oldHashes);
  });
});
