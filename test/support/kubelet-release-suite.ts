/**
 * A smoke judge of one Kubernetes release built from the Go module proxy
 * (.ci/provision/60-kubernetes-modules.sh): its binaries report the release, and its kubelet, started
 * on a real containerd with the varied static pods of static-pods.ts, stores for every container
 * exactly the library's hash for that release (after that release's defaulting, which the kubelet's
 * file source applies); `verify` agrees on what it stored, and refuses it under a release whose
 * hashes differ. One suite per containerd release.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyApiserverDefaults, hashContainer } from '../../src/index.js';
import { buildBusyboxImage } from './busybox-image.js';
import { cli } from './cli.js';
import { ContainerdDaemon } from './containerd-daemon.js';
import { KubeletDaemon } from './kubelet-daemon.js';
import { LogMountNamespace } from './mount-namespace.js';
import { unmountUnder } from './process-tree.js';
import { describeReal } from './real-systems.js';
import { IMAGE, mirrorPods, runningName, staticPods, type StaticPod } from './static-pods.js';

const RUNNING = 1;
const EXITED = 2;

interface Stored {
  id: string;
  pod: StaticPod;
  container: string;
  list: 'containers' | 'initContainers';
  state: number;
  hash: string;
  uid: string;
}

/**
 * The suite on kubernetes `release` (`1.31.14`) and containerd `containerd`. `otherRelease` is a
 * kubelet minor whose hash of at least one of the pods' containers differs from `release`'s: `verify`
 * under it must fail, so the `verify` check can.
 */
export function kubeletReleaseSuite(release: string, containerd: string, otherRelease: string): void {
  const minor = release.split('.').slice(0, 2).join('.');
  describeReal(
    [
      ['kubernetes', release],
      ['containerd', containerd],
    ],
    (systems) => {
      const record = systems.get('kubernetes')!.record;
      const node = `kh-${randomBytes(3).toString('hex')}`;
      const pods = staticPods(randomBytes(4).toString('hex'), 20_000 + Math.floor(Math.random() * 20_000));
      const byRunningName = new Map(pods.map((p) => [runningName(p, node), p]));
      const appContainers = pods.flatMap((p) => p.spec.containers.map((c) => `${p.metadata.name}/${String(c.name)}`));
      const initContainers = pods.flatMap((p) =>
        (p.spec.initContainers ?? []).map((c) => `${p.metadata.name}/${String(c.name)}`),
      );
      let dir: string;
      let runtime: ContainerdDaemon;
      // containerd and the kubelet run in it: a /var/log/pods of their own (mount-namespace.ts).
      let logs: LogMountNamespace | undefined;
      let kubelet: KubeletDaemon;
      const uids = new Map<string, string>();
      const key = (s: Stored): string => `${s.pod.metadata.name}/${s.container}`;

      /** The library's hash of a static pod's container for kubelet `kubeletVersion`, after `minor`'s defaulting. */
      const libraryHash = (s: Stored, kubeletVersion: string): string => {
        const c = (s.pod.spec[s.list] as Record<string, unknown>[]).find((x) => x.name === s.container)!;
        const stored = applyApiserverDefaults(c, { kubeletVersion: minor, podSpec: s.pod.spec, list: s.list });
        return hashContainer(stored, { kubeletVersion });
      };

      async function stored(): Promise<Stored[]> {
        const out: Stored[] = [];
        for (const c of await runtime.criListContainers()) {
          const pod = byRunningName.get(c.labels['io.kubernetes.pod.name'] ?? '');
          if (!pod) continue;
          const container = c.labels['io.kubernetes.container.name']!;
          out.push({
            id: c.id,
            pod,
            container,
            list: pod.spec.initContainers?.some((x) => x.name === container) ? 'initContainers' : 'containers',
            state: c.state,
            hash: c.annotations['io.kubernetes.container.hash']!,
            uid: c.labels['io.kubernetes.pod.uid']!,
          });
        }
        return out;
      }

      /** Waits until every app container runs (one each) and every init container has exited. */
      async function settled(timeoutMs = 240_000): Promise<Stored[]> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const all = await stored();
          const run = all.filter((s) => s.state === RUNNING && s.list === 'containers').map(key);
          const done = all.filter((s) => s.state === EXITED && s.list === 'initContainers').map(key);
          if (
            run.length === appContainers.length &&
            new Set(run).size === run.length &&
            appContainers.every((c) => run.includes(c)) &&
            initContainers.every((c) => done.includes(c))
          )
            return all;
          if (!kubelet.running || Date.now() > deadline)
            throw new Error(`pods did not settle: running ${run.join(', ')}\n${kubelet.log.slice(-4000)}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-kubelet-release-'));
        logs = new LogMountNamespace(dir);
        logs.create();
        runtime = new ContainerdDaemon(join(dir, 'containerd'), {
          bin: systems.get('containerd')!.bin,
          sandboxImage: IMAGE,
          mountns: logs.file,
        });
        await runtime.start();
        runtime.importImage(buildBusyboxImage(join(dir, 'image'), systems.get('containerd')!.record.BUSYBOX!, IMAGE));
        kubelet = new KubeletDaemon(
          join(dir, 'kubelet'),
          record.KUBELET!,
          runtime.socket,
          node,
          undefined,
          release,
          logs.file,
        );
        for (const p of pods) kubelet.writeManifest(p.metadata.name, p);
        await kubelet.start();
      }, 240_000);

      afterAll(async () => {
        // Undefined only when beforeAll failed before making them (the types do not say so).
        await (kubelet as KubeletDaemon | undefined)?.stop();
        await (runtime as ContainerdDaemon | undefined)?.teardown();
        if (!dir) return;
        logs?.remove();
        unmountUnder(dir);
        rmSync(dir, { recursive: true, force: true });
      });

      it(`kubelet, kube-apiserver and kube-controller-manager report v${release}`, () => {
        for (const bin of [record.KUBELET!, record.APISERVER!, record.CONTROLLER_MANAGER!]) {
          const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
          expect({ bin, out: r.stdout.trim() }).toEqual({ bin, out: `Kubernetes v${release}` });
        }
      });

      it(`kubelet ${release} runs ${String(pods.length)} static pods; every hash it stored is the library's for ${minor}`, async () => {
        const all = await settled();
        expect(all).toHaveLength(appContainers.length + initContainers.length);
        for (const s of all) {
          expect({ container: key(s), hash: s.hash }).toEqual({ container: key(s), hash: libraryHash(s, minor) });
          uids.set(s.pod.metadata.name, s.uid);
        }
        for (const p of pods) {
          if (p.metadata.uid) expect(uids.get(p.metadata.name)).toBe(p.metadata.uid);
          else expect(uids.get(p.metadata.name)).toMatch(/^[0-9a-f]{32}$/); // derived from the pod
        }
      }, 300_000);

      it(`verify --kubelet ${minor} agrees with what it stored; --kubelet ${otherRelease} does not`, async () => {
        const all = await settled();
        // The check below can fail: some container's hash differs under the other release.
        expect(all.some((s) => libraryHash(s, otherRelease) !== s.hash)).toBe(true);
        const podsFile = join(dir, 'pods.json');
        writeFileSync(podsFile, JSON.stringify(mirrorPods(pods, node, uids, minor)));
        const store = ['--pods', podsFile, '--containerd-root', runtime.root];
        const same = await cli(['verify', '--accept-cause', 'readiness-flap', '--kubelet', minor, ...store]);
        expect({ code: same.code, err: same.err }).toEqual({ code: 0, err: '' });
        expect(
          (await cli(['verify', '--accept-cause', 'readiness-flap', '--kubelet', otherRelease, ...store])).code,
        ).not.toBe(0);
      }, 120_000);
    },
    'kubelet with static pods',
  );
}
