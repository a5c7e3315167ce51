/**
 * Node discovery and `doctor`, on temp dirs standing in for a node's / (--fs-root): the runtime
 * found from its socket, its root from the config file (containerd, k3s, rke2, k0s layouts) or the
 * layout's default, the endpoint from the kubelet's config, the release from a Node object or a
 * kubelet's --version output.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { discoverRuntime, versionOfKubeletOutput, versionOfNodeObject } from '../../src/discovery/index.js';
import { KubeletHashError } from '../../src/errors.js';
import { cli } from '../support/cli.js';
import { fakeCri, type FakeCriAnswer } from '../support/fake-cri.js';

let dirs: string[] = [];
/** Stand-in runtimes answering CRI on fake nodes' sockets (doctor --to asks RuntimeConfig). */
const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A fake node root with the given files (a socket is stood in for by a plain file: only its path is read). */
function node(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kh-node-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const K3S_CONFIG = [
  'version = 2',
  'root = "/var/lib/rancher/k3s/agent/containerd"',
  'state = "/run/k3s/containerd"',
  '[grpc]',
  '  address = "/run/k3s/containerd/containerd.sock"',
  '[plugins."io.containerd.grpc.v1.cri".containerd]',
  '  snapshotter = "overlayfs"',
  '',
].join('\n');

describe('discoverRuntime', () => {
  it('plain containerd: the root config.toml names, not the default', () => {
    const fsRoot = node({
      'run/containerd/containerd.sock': '',
      'etc/containerd/config.toml': 'version = 2\nroot = "/data/containerd"\nstate = "/run/containerd"\n',
    });
    const d = discoverRuntime({ endpoint: 'unix:///run/containerd/containerd.sock', fsRoot });
    expect(d).toMatchObject({
      runtime: 'containerd',
      layout: 'containerd',
      root: '/data/containerd',
      rootOnDisk: join(fsRoot, 'data/containerd'),
      rootFrom: 'config file',
      config: { path: '/etc/containerd/config.toml', found: true },
      namespace: 'k8s.io',
    });
  });

  it('containerd without a config file: its default root', () => {
    const fsRoot = node({ 'run/containerd/containerd.sock': '' });
    expect(discoverRuntime({ fsRoot })).toMatchObject({ root: '/var/lib/containerd', rootFrom: 'layout default' });
  });

  it("k3s: the agent's generated config.toml under /var/lib/rancher/k3s", () => {
    const fsRoot = node({
      'run/k3s/containerd/containerd.sock': '',
      'var/lib/rancher/k3s/agent/etc/containerd/config.toml': K3S_CONFIG,
    });
    expect(discoverRuntime({ endpoint: 'unix:///run/k3s/containerd/containerd.sock', fsRoot })).toMatchObject({
      layout: 'k3s',
      root: '/var/lib/rancher/k3s/agent/containerd',
      rootFrom: 'config file',
      config: { path: '/var/lib/rancher/k3s/agent/etc/containerd/config.toml', found: true },
    });
  });

  it('rke2 shares the k3s socket path; its data dir tells it apart', () => {
    const fsRoot = node({ 'run/k3s/containerd/containerd.sock': '', 'var/lib/rancher/rke2/agent/images/.keep': '' });
    expect(discoverRuntime({ fsRoot })).toMatchObject({
      layout: 'rke2',
      root: '/var/lib/rancher/rke2/agent/containerd',
      rootFrom: 'layout default',
    });
  });

  it('k0s: /etc/k0s/containerd.toml and /var/lib/k0s/containerd', () => {
    const fsRoot = node({
      'run/k0s/containerd.sock': '',
      'etc/k0s/containerd.toml': '# k0s_managed=true\nversion = 2\nroot = "/var/lib/k0s/containerd"\n',
    });
    expect(discoverRuntime({ fsRoot })).toMatchObject({
      layout: 'k0s',
      root: '/var/lib/k0s/containerd',
      rootFrom: 'config file',
    });
  });

  it('CRI-O: graphroot of storage.conf; docker: data-root of daemon.json', () => {
    const crio = node({
      'run/crio/crio.sock': '',
      'etc/containers/storage.conf': '[storage]\ndriver = "overlay"\ngraphroot = "/srv/containers"\n',
    });
    expect(discoverRuntime({ fsRoot: crio })).toMatchObject({ runtime: 'cri-o', root: '/srv/containers' });
    const docker = node({ 'run/cri-dockerd.sock': '', 'etc/docker/daemon.json': '{"data-root": "/srv/docker"}' });
    expect(discoverRuntime({ fsRoot: docker })).toMatchObject({ runtime: 'docker', root: '/srv/docker' });
  });

  it('bad input is a typed error naming what was expected', () => {
    const fsRoot = node({ 'run/containerd/containerd.sock': '', 'etc/containerd/config.toml': 'root = [1' });
    expect(() => discoverRuntime({ fsRoot })).toThrow(KubeletHashError);
    try {
      discoverRuntime({ fsRoot });
    } catch (e) {
      expect(e).toMatchObject({ code: 'INVALID_OPTION', path: ['runtimeConfig', '/etc/containerd/config.toml'] });
    }
    const wrongType = node({ 'run/containerd/containerd.sock': '', 'etc/containerd/config.toml': 'root = 7\n' });
    expect(() => discoverRuntime({ fsRoot: wrongType })).toThrow(/root: a non-empty string/);
    expect(() => discoverRuntime({ endpoint: 'tcp://1.2.3.4:1', fsRoot })).toThrow(/unix socket/);
    expect(() => discoverRuntime({ fsRoot: node({}) })).toThrow(/no known runtime socket/);
    expect(() => discoverRuntime({ endpoint: '/run/unknown.sock', fsRoot })).toThrow(/is none of those/);
  });
});

describe('kubelet release, read', () => {
  it('from kubelet --version and from a Node object', () => {
    expect(versionOfKubeletOutput('Kubernetes v1.29.7\n')).toBe('1.29.7');
    expect(versionOfKubeletOutput('Kubernetes v1.30.4+k3s1\n')).toBe('1.30.4');
    expect(versionOfNodeObject({ status: { nodeInfo: { kubeletVersion: 'v1.31.2+rke2r1' } } })).toBe('1.31.2');
    expect(() => versionOfKubeletOutput('kubelet: command not found')).toThrow(KubeletHashError);
    expect(() => versionOfNodeObject({ status: {} })).toThrow(/status.nodeInfo.kubeletVersion/);
  });
});

describe('kubelet-hash doctor', () => {
  it('finds containerd root from config.toml through the kubelet config, and the release from a Node object', async () => {
    const fsRoot = node({
      'var/lib/kubelet/config.yaml':
        'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\n',
      'run/containerd/containerd.sock': '',
      'etc/containerd/config.toml': 'version = 2\nroot = "/data/containerd"\n',
      'data/containerd/.keep': '',
      'node.json': JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        status: { nodeInfo: { kubeletVersion: 'v1.30.5' } },
      }),
    });
    // containerd 1.x answers RuntimeConfig UNIMPLEMENTED: the 1.31 kubelet keeps its configured driver.
    servers.push(await fakeCri(join(fsRoot, 'run/containerd/containerd.sock'), 'unimplemented'));
    const r = await cli(['doctor', '--fs-root', fsRoot, '--node-object', join(fsRoot, 'node.json'), '--to', '1.31']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('containerRuntimeEndpoint in /var/lib/kubelet/config.yaml');
    expect(r.out).toMatch(/runtime root\s+\/data\/containerd\s+config file/);
    expect(r.out).toContain(
      'kubelet-hash plan --from 1.30.5 --to 1.31 --pods pods.yaml --containerd-root /data/containerd --out plan.json',
    );
    const j = await cli(['doctor', '--fs-root', fsRoot, '--node-object', join(fsRoot, 'node.json'), '--json']);
    expect(JSON.parse(j.out)).toMatchObject({
      command: 'doctor',
      summary: { runtime: 'containerd', layout: 'containerd', root: '/data/containerd', from: '1.30.5', to: null },
    });
  });

  it('finds the k3s layout beside an empty leftover rke2 data dir, and reads the release from a kubelet binary', async () => {
    const fsRoot = node({
      'run/k3s/containerd/containerd.sock': '',
      'var/lib/rancher/k3s/agent/etc/containerd/config.toml': K3S_CONFIG,
      'var/lib/rancher/k3s/agent/containerd/io.containerd.metadata.v1.bolt/.keep': '',
      'bin/kubelet': '#!/bin/sh\necho "Kubernetes v1.30.4+k3s1"\n',
    });
    // An rke2 that was tried once and removed: its agent dir is left, empty.
    mkdirSync(join(fsRoot, 'var/lib/rancher/rke2/agent'), { recursive: true });
    chmodSync(join(fsRoot, 'bin/kubelet'), 0o755);
    const r = await cli(['doctor', '--fs-root', fsRoot, '--kubelet-binary', join(fsRoot, 'bin/kubelet'), '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { summary: unknown; warnings: string[] };
    expect(doc.summary).toMatchObject({ layout: 'k3s', root: '/var/lib/rancher/k3s/agent/containerd', from: '1.30.4' });
    expect(doc.warnings).toEqual([]);
  });

  it('doctor refuses a root that does not exist (exit 2, ROOT_NOT_FOUND), never a warning and exit 0', async () => {
    const fsRoot = node({
      'run/k3s/containerd/containerd.sock': '',
      'var/lib/rancher/k3s/agent/etc/containerd/config.toml': K3S_CONFIG,
    });
    const r = await cli(['doctor', '--fs-root', fsRoot, '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(JSON.parse(r.err)).toMatchObject({ error: { code: 'ROOT_NOT_FOUND' } });
    expect(r.err).toContain('/var/lib/rancher/k3s/agent/containerd');
  });

  it('k3s and rke2 data dirs that both hold a root: AMBIGUOUS_RUNTIME, naming both; --runtime-config settles it', () => {
    const fsRoot = node({
      'run/k3s/containerd/containerd.sock': '',
      'var/lib/rancher/k3s/agent/containerd/.keep': '',
      'var/lib/rancher/rke2/agent/containerd/.keep': '',
    });
    let error: unknown;
    try {
      discoverRuntime({ fsRoot });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'AMBIGUOUS_RUNTIME' });
    expect(String(error)).toMatch(/rke2 .* and k3s /);
    expect(discoverRuntime({ fsRoot, config: '/var/lib/rancher/rke2/agent/etc/containerd/config.toml' })).toMatchObject(
      { layout: 'rke2' },
    );
  });

  it('CRI-O: the runroot of storage.conf (else /run/containers/storage) goes into the store plan and verify read', () => {
    const crio = node({
      'run/crio/crio.sock': '',
      'etc/containers/storage.conf':
        '[storage]\ndriver = "overlay"\ngraphroot = "/srv/containers"\nrunroot = "/run/srv"\n',
    });
    expect(discoverRuntime({ fsRoot: crio })).toMatchObject({
      runtime: 'cri-o',
      root: '/srv/containers',
      runRoot: { root: '/run/srv', onDisk: join(crio, 'run/srv'), from: 'config file' },
    });
    const bare = node({ 'run/crio/crio.sock': '' });
    expect(discoverRuntime({ fsRoot: bare }).runRoot).toMatchObject({
      root: '/run/containers/storage',
      from: 'layout default',
    });
  });

  it('plan --runtime-endpoint with an explicit root is a usage error', async () => {
    const r = await cli([
      'plan',
      '--from',
      '1.30',
      '--to',
      '1.31',
      '--pods',
      '-',
      '--runtime-endpoint',
      'unix:///run/containerd/containerd.sock',
      '--containerd-root',
      '/x',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('not both');
  });
});

describe('kubelet-hash doctor --to: start blockers', () => {
  /** A containerd node whose socket answers RuntimeConfig as `cri` says (a plain file: nothing answers). */
  const criNode = async (
    extra: Record<string, string>,
    cri: FakeCriAnswer | 'none' = 'unimplemented',
    kubelet = 'v1.34.2',
  ): Promise<string> => {
    const fsRoot = node({
      'run/containerd/containerd.sock': '',
      'var/lib/containerd/.keep': '',
      'node.json': JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        status: { nodeInfo: { kubeletVersion: kubelet } },
      }),
      ...extra,
    });
    if (cri !== 'none') servers.push(await fakeCri(join(fsRoot, 'run/containerd/containerd.sock'), cri));
    return fsRoot;
  };
  const containerdNode = criNode;

  it("reads the running kubelet's flags from /proc and its --config file, and the cgroup hierarchy: a removed flag and cgroup v1 are exit 1", async () => {
    const fsRoot = await containerdNode({
      'proc/4242/comm': 'kubelet\n',
      'proc/4242/cmdline': [
        '/usr/bin/kubelet',
        '--config=/etc/kubelet.yaml',
        '--pod-infra-container-image=pause:3.10',
        '',
      ].join('\0'),
      'proc/77/comm': 'containerd\n',
      'etc/kubelet.yaml': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
      'sys/fs/cgroup/memory/.keep': '',
    });
    const args = ['doctor', '--fs-root', fsRoot, '--node-object', join(fsRoot, 'node.json'), '--to', '1.35'];
    const r = await cli([...args, '--json']);
    expect(r.code).toBe(1);
    const summary = (JSON.parse(r.out) as { summary: { startBlockers: { kind: string; subject: string }[] } }).summary;
    expect(summary.startBlockers.map((b) => `${b.kind} ${b.subject}`)).toEqual([
      'removed-flag --pod-infra-container-image',
      'cgroup-v1 cgroup v1',
    ]);
    // failCgroupV1: false in the file the kubelet's --config names clears the second.
    writeFileSync(join(fsRoot, 'etc/kubelet.yaml'), 'kind: KubeletConfiguration\nfailCgroupV1: false\n');
    const text = await cli(args);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/start blocker \(≥ 1\.35\)\s+--pod-infra-container-image/);
    expect(text.out).not.toMatch(/cgroup v1 host/);
  });

  it('--kubelet-cmdline instead of /proc; nothing the target refuses is exit 0', async () => {
    const fsRoot = await containerdNode({
      'flags.txt': '--config /var/lib/kubelet/config.yaml\n--v=2\n',
      'sys/fs/cgroup/cgroup.controllers': 'cpu memory\n',
    });
    const r = await cli([
      'doctor',
      '--fs-root',
      fsRoot,
      '--node-object',
      join(fsRoot, 'node.json'),
      '--to',
      '1.37',
      '--kubelet-cmdline',
      join(fsRoot, 'flags.txt'),
      '--json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ summary: { startBlockers: [] } });
  });

  const blockersOf = async (fsRoot: string, to: string, extra: string[] = []) => {
    const r = await cli([
      'doctor',
      '--fs-root',
      fsRoot,
      '--node-object',
      join(fsRoot, 'node.json'),
      '--to',
      to,
      ...extra,
      '--json',
    ]);
    const summary = (
      JSON.parse(r.out) as { summary: { startBlockers: { kind: string; verdict: string; subject: string }[] } }
    ).summary;
    return { code: r.code, found: summary.startBlockers.map((b) => `${b.kind} ${b.verdict} ${b.subject}`) };
  };

  it('asks the runtime CRI RuntimeConfig: a driver other than the configured one where the running kubelet (1.30) did not ask is exit 1; a runtime that does not answer is unknown', async () => {
    const config = { 'var/lib/kubelet/config.yaml': 'kind: KubeletConfiguration\ncgroupDriver: cgroupfs\n' };
    expect(await blockersOf(await criNode(config, { cgroupDriver: 0 }, 'v1.30.14'), '1.31')).toEqual({
      code: 1,
      found: ['cgroup-driver blocks cgroup driver cgroupfs → systemd'],
    });
    expect(await blockersOf(await criNode(config, { cgroupDriver: 1 }, 'v1.30.14'), '1.31')).toEqual({
      code: 0,
      found: [],
    });
    expect(await blockersOf(await criNode(config, 'none'), '1.35')).toEqual({
      code: 1,
      found: ['runtime-config unknown CRI RuntimeConfig'],
    });
  });

  it('reads the checkpoint files under the kubelet root dir (--root-dir of its flags): cpu_manager_state in the v1 form stops a 1.37 kubelet', async () => {
    const v1 = JSON.stringify({ policyName: 'static', defaultCpuSet: '0-3', entries: { c1: '2' }, checksum: 7 });
    const fsRoot = await criNode({ 'srv/kubelet/cpu_manager_state': v1, 'flags.txt': '--root-dir=/srv/kubelet\n' });
    const flags = ['--kubelet-cmdline', join(fsRoot, 'flags.txt')];
    expect(await blockersOf(fsRoot, '1.36', flags)).toEqual({ code: 0, found: [] });
    expect(await blockersOf(fsRoot, '1.37', flags)).toEqual({
      code: 1,
      found: ['checkpoint blocks cpu_manager_state'],
    });
  });
});
