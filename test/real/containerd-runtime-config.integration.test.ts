/**
 * CRI `RuntimeConfig` on every containerd release of the registry, asked by our own CRI client
 * (src/discovery/cri-client.ts), the call the kubelet makes at start from 1.28
 * (KubeletCgroupDriverFromCRI; cmd/kubelet/app/server.go getCgroupDriverFromCRI): containerd 1.x
 * answers UNIMPLEMENTED (the kubelet falls back to its configured cgroupDriver), 2.x serves the
 * driver of its default runc runtime (`SystemdCgroup`) — the Kubernetes blog of 2024-08-21
 * ("containerd: Support was added in v2.0.0"). doctor --to reads the same answer into its blockers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { criRuntimeConfig } from '../../src/discovery/index.js';
import { startBlockers } from '../../src/plan/start-blockers.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { CONTAINERD_RELEASES, describeReal } from '../support/real-systems.js';

/** containerd 2.0 is the first to serve RuntimeConfig (the registry's releases: 1.6.20, 1.7.24, 2.1.9). */
const serves = (release: string): boolean => Number(release.split('.')[0]) >= 2;

for (const release of CONTAINERD_RELEASES)
  describeReal(
    [['containerd', release]],
    (systems) => {
      let dir: string;
      const daemons: ContainerdDaemon[] = [];
      const started = async (systemdCgroup: boolean): Promise<ContainerdDaemon> => {
        const d = new ContainerdDaemon(join(dir, `containerd-${daemons.length}`), {
          bin: systems.get('containerd')!.bin,
          systemdCgroup,
        });
        daemons.push(d);
        await d.start();
        return d;
      };

      beforeAll(() => {
        dir = mkdtempSync(join(tmpdir(), 'kh-runtime-config-'));
      });
      afterAll(async () => {
        for (const d of daemons) await d.teardown();
        rmSync(dir, { recursive: true, force: true });
      });

      it(`RuntimeConfig: ${serves(release) ? 'the driver of runc’s SystemdCgroup, both ways' : 'UNIMPLEMENTED'}`, async () => {
        for (const systemd of [true, false]) {
          const answer = await criRuntimeConfig((await started(systemd)).socket);
          if (serves(release)) expect(answer).toEqual({ answer: 'served', cgroupDriver: systemd ? 0 : 1 });
          else expect(answer).toMatchObject({ answer: 'unimplemented' });
        }
      });

      it('the start blockers of a 1.34 target from a 1.30 kubelet configured with cgroupfs, on this runtime configured with systemd', async () => {
        const runtimeConfig = await criRuntimeConfig((await started(true)).socket);
        const found = startBlockers({ from: '1.30', to: '1.34', config: { cgroupDriver: 'cgroupfs' }, runtimeConfig });
        // 1.x: not served, the 1.34 kubelet keeps its configured driver; 2.x: it takes systemd.
        expect(found.map((b) => `${b.kind} ${b.verdict}`)).toEqual(serves(release) ? ['cgroup-driver blocks'] : []);
      });
    },
    'CRI RuntimeConfig',
  );
