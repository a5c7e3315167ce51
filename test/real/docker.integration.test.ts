/**
 * The in-place kubelet upgrade on a REAL dockerd (docker.io, vfs, live-restore): containers created
 * as dockershim / cri-dockerd create them (kubelet labels, `annotation.` labels with the 1.30 hash)
 * from an imported empty image; apply refused while dockerd runs; plan and apply through the CLI
 * while it is stopped; after a restart `docker inspect` shows the 1.31 hash and dockerd still
 * creates containers. Required in CI (CI=true); skipped with a message elsewhere.
 */
import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { cli } from '../support/cli.js';
import { planArgs, writePodList } from '../support/node-fixture.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { DockerDaemon } from '../support/docker-daemon.js';
import { describeReal } from '../support/real-systems.js';

describeReal(
  [['dockerd', '20.10.24']],
  (systems) => {
    let dir: string;
    let daemon: DockerDaemon;
    const pods = Array.from({ length: 12 }, (_, i) => fixturePod(i));
    const fixtures = fixtureContainers(pods, '1.30');
    const ids = new Map<string, string>();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kh-dockerd-'));
      daemon = new DockerDaemon(dir, systems.get('dockerd')!.bin);
      await daemon.start();
      await daemon.importEmptyImage('kubelet-hash/empty', '1');
    }, 120_000);

    afterAll(async () => {
      await daemon.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('creates kubelet containers as cri-dockerd does and reads the 1.30 hash back', async () => {
      for (const f of fixtures) {
        const labels: Record<string, string> = { ...f.labels, 'io.kubernetes.docker.type': 'container' };
        for (const [k, v] of Object.entries(f.annotations)) labels[`annotation.${k}`] = v;
        const name = `k8s_${f.labels['io.kubernetes.container.name']}_${f.pod.metadata.name}_${f.pod.metadata.namespace}_${f.pod.metadata.uid}_0`;
        ids.set(f.id, await daemon.createContainer(name, 'kubelet-hash/empty:1', labels));
      }
      for (const f of fixtures)
        expect((await daemon.labels(ids.get(f.id)!))['annotation.io.kubernetes.container.hash']).toBe(f.hash);
    });

    it('apply refuses while dockerd runs; stopped, plan + apply via the CLI; restarted, docker serves the 1.31 hash', async () => {
      const podsFile = writePodList(join(dir, 'pods.json'), pods, 'List');
      const planFile = join(dir, 'plan.json');
      const store = ['--docker-root', daemon.root, '--docker-config', daemon.config];
      const plan = await cli(planArgs({ podsFile, store, out: planFile }));
      expect(plan.err).toBe('');
      expect(plan.code).toBe(0);
      expect(plan.out).toContain(`rewrite ${fixtures.length}, will-restart 0, unknown 0`);
      const refused = await cli(['apply', planFile]);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('RUNTIME_RUNNING');
      // The same root through a symlink: the running dockerd is found by device and inode.
      const link = join(dir, 'root-link');
      symlinkSync(daemon.root, link);
      const linkedPlan = join(dir, 'plan-link.json');
      const viaLink = ['--docker-root', link, '--docker-config', daemon.config];
      expect(
        (await cli(['plan', '--from', '1.30', '--to', '1.31', '--pods', podsFile, ...viaLink, '--out', linkedPlan]))
          .code,
      ).toBe(0);
      const refusedLink = await cli(['apply', linkedPlan, '--dry-run']);
      expect(refusedLink.code).toBe(2);
      expect(refusedLink.err).toContain('RUNTIME_RUNNING');
      const configs = [...ids.values()].map((id) => join(daemon.root, 'containers', id, 'config.v2.json'));
      const owners = configs.map((f) => statSync(f)).map((st) => [st.mode, st.uid, st.gid]);

      await daemon.stop();
      const applied = await cli(['apply', planFile]);
      expect(applied.err).toBe('');
      expect(applied.code).toBe(0);
      // dockerd's files keep their mode and owner.
      expect(configs.map((f) => statSync(f)).map((st) => [st.mode, st.uid, st.gid])).toEqual(owners);
      expect((await cli(['verify', '--kubelet', '1.31', '--pods', podsFile, ...store])).code).toBe(0);

      await daemon.start();
      for (const f of fixtures) {
        const labels = await daemon.labels(ids.get(f.id)!);
        expect(labels['annotation.io.kubernetes.container.hash']).toBe(
          hashContainer(f.container, { kubeletVersion: '1.31' }),
        );
        expect(labels['io.kubernetes.pod.uid']).toBe(f.pod.metadata.uid);
      }
      const extra = await daemon.createContainer('after-upgrade', 'kubelet-hash/empty:1', { a: 'b' });
      expect((await daemon.labels(extra))['a']).toBe('b');
      await daemon.stop();
    });
  },
  'in-place upgrade of config.v2.json',
);
