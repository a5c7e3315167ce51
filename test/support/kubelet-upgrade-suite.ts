/**
 * A real kubelet judges the upgrade. Kubelet 1.20.2 (built from Debian's source package by
 * .ci/provision/30-kubelet-1.20.sh) runs varied static pods on a real containerd (1.6.20 and 1.7.24:
 * kubelet 1.20 speaks CRI v1alpha2, which 2.x dropped). The test checks that the hashes it stored are
 * the library's (after 1.20's defaulting, which the kubelet's file source applies). Then, for each
 * older release the node is made to look as if it had run (the stored hashes written by our own
 * `plan --from 1.20 --to OLD` + `apply`), it stops the kubelet and containerd, runs `plan --from OLD
 * --to 1.20` and `apply`, starts both again and requires that the kubelet recreated nothing (same
 * ids, running, restart count unchanged) and that `verify` agrees. A control run without the second
 * `apply` requires that the kubelet recreates the containers, so the test can fail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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

const NEW = '1.20';
/** 1.15: the go-spew era; 1.16 and 1.19: the JSON era. */
const OLDER = ['1.15', '1.16', '1.19'];
/** How long a restarted kubelet gets to act after it has read the manifests (syncFrequency is 5s). */
const SETTLE_MS = 20_000;

const RUNNING = 1;
const EXITED = 2;

interface Seen {
  id: string;
  pod: StaticPod;
  container: string;
  list: 'containers' | 'initContainers';
  state: number;
  restartCount: string;
  hash: string;
  uid: string;
}

/** The suite on kubelet 1.20.2 and containerd `containerd` (a release that serves CRI v1alpha2). */
export function kubeletUpgradeSuite(containerd: string): void {
  describeReal(
    [
      ['kubelet', '1.20.2'],
      ['containerd', containerd],
    ],
    (systems) => {
      const node = `kh-${randomBytes(3).toString('hex')}`;
      const pods = staticPods(randomBytes(4).toString('hex'), 20_000 + Math.floor(Math.random() * 20_000));
      const appContainers = pods.flatMap((p) => p.spec.containers.map((c) => `${p.metadata.name}/${String(c.name)}`));
      const initContainers = pods.flatMap((p) =>
        (p.spec.initContainers ?? []).map((c) => `${p.metadata.name}/${String(c.name)}`),
      );
      const byRunningName = new Map(pods.map((p) => [runningName(p, node), p]));
      let dir: string;
      let runtime: ContainerdDaemon;
      // containerd and the kubelet run in it: a /var/log/pods of their own (mount-namespace.ts).
      let logs: LogMountNamespace | undefined;
      let kubelet: KubeletDaemon;
      const uids = new Map<string, string>();
      let recreatedAfterMs = 0;
      const podsFile = (): string => join(dir, 'pods.json');
      const store = (): string[] => ['--containerd-root', runtime.root];
      /** `verify` against the new kubelet: exit 0 when it keeps every container (the probed pods' readiness flap accepted). */
      const verifyOnNew = async (): Promise<number | null> =>
        (await cli(['verify', '--accept-cause', 'readiness-flap', '--kubelet', NEW, '--pods', podsFile(), ...store()]))
          .code;

      /** The library's hash of a static pod's container, as `release` computes it after 1.20's defaulting. */
      const libraryHash = (s: Pick<Seen, 'pod' | 'container' | 'list'>, release: string): string => {
        const c = (s.pod.spec[s.list] as Record<string, unknown>[]).find((x) => x.name === s.container)!;
        const stored = applyApiserverDefaults(c, { kubeletVersion: NEW, podSpec: s.pod.spec, list: s.list });
        return hashContainer(stored, { kubeletVersion: release });
      };

      /** Our pods' containers as CRI lists them (what the kubelet reads back). */
      async function seen(): Promise<Seen[]> {
        const out: Seen[] = [];
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
            restartCount: c.annotations['io.kubernetes.container.restartCount']!,
            hash: c.annotations['io.kubernetes.container.hash']!,
            uid: c.labels['io.kubernetes.pod.uid']!,
          });
        }
        return out;
      }
      const key = (s: Seen): string => `${s.pod.metadata.name}/${s.container}`;
      const running = (all: Seen[]): Map<string, Seen> =>
        new Map(all.filter((s) => s.state === RUNNING && s.list === 'containers').map((s) => [key(s), s]));

      /** Waits until every app container runs (one each) and every init container has exited. */
      async function settled(timeoutMs = 180_000): Promise<Seen[]> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const all = await seen();
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

      /** Waits until each of `changed` runs as a container other than the one in `before` (or times out). */
      async function recreated(before: Map<string, Seen>, changed: readonly string[]): Promise<void> {
        const deadline = Date.now() + 120_000;
        for (;;) {
          const now = running(await seen());
          if (changed.every((k) => now.has(k) && now.get(k)!.id !== before.get(k)!.id)) {
            recreatedAfterMs = 120_000 - (deadline - Date.now());
            return;
          }
          if (Date.now() > deadline) return; // the assertions say which were kept
          await new Promise((r) => setTimeout(r, 500));
        }
      }

      /** Starts containerd and the kubelet, and waits until the kubelet has read the static pods. */
      async function startNode(): Promise<void> {
        await runtime.start();
        await kubelet.start();
        await new Promise((r) => setTimeout(r, 0));
        const deadline = Date.now() + 60_000;
        while (!kubelet.sawPods('file')) {
          if (Date.now() > deadline || !kubelet.running)
            throw new Error(`the kubelet did not read its manifests:\n${kubelet.log.slice(-4000)}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }

      async function stopNode(): Promise<void> {
        await kubelet.stop();
        await runtime.stop();
      }

      async function planAndApply(from: string, to: string, name: string): Promise<Record<string, number>> {
        const planFile = join(dir, `${name}.plan.json`);
        const plan = await cli([
          'plan',
          // Probed pods: the restart's readiness flap (≤ 1.34) is known and accepted here; these judge the hash.
          '--accept-cause',
          'readiness-flap',
          '--from',
          from,
          '--to',
          to,
          '--pods',
          podsFile(),
          ...store(),
          '--out',
          planFile,
          '--json',
        ]);
        expect(plan.err).not.toMatch(/"code"/);
        const counts = (JSON.parse(plan.out) as { summary: { counts: Record<string, number> } }).summary.counts;
        const applied = await cli(['apply', planFile, '--backup-dir', join(dir, `${name}.backup`)]);
        expect(applied.err).toBe('');
        expect(applied.code).toBe(0);
        return counts;
      }

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-kubelet-'));
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
          systems.get('kubelet')!.bin,
          runtime.socket,
          node,
          undefined,
          undefined,
          logs.file,
        );
        for (const p of pods) kubelet.writeManifest(p.metadata.name, p);
        await kubelet.start();
      }, 240_000);

      afterAll(async () => {
        await kubelet.stop();
        await runtime.teardown();
        if (!dir) return;
        logs?.remove();
        unmountUnder(dir);
        rmSync(dir, { recursive: true, force: true });
      });

      it(`kubelet 1.20.2 runs ${String(pods.length)} static pods; every hash it stored is the library's after 1.20's defaulting`, async () => {
        const all = await settled();
        expect(all).toHaveLength(appContainers.length + initContainers.length);
        for (const s of all) {
          expect({ container: key(s), hash: s.hash }).toEqual({ container: key(s), hash: libraryHash(s, NEW) });
          uids.set(s.pod.metadata.name, s.uid);
        }
        for (const p of pods) {
          if (p.metadata.uid) expect(uids.get(p.metadata.name)).toBe(p.metadata.uid);
          else expect(uids.get(p.metadata.name)).toMatch(/^[0-9a-f]{32}$/); // generated from the pod
        }
        writeFileSync(podsFile(), JSON.stringify(mirrorPods(pods, node, uids, NEW)));
        expect(await verifyOnNew()).toBe(0);
      }, 240_000);

      /**
       * Makes the node look as if `old` had written the stored hashes, then upgrades it to 1.20 with
       * (or, for the control run, without) plan + apply, and restarts it. Returns the containers before and after.
       */
      async function upgradeFrom(
        old: string,
        withApply: boolean,
      ): Promise<{ before: Map<string, Seen>; after: Map<string, Seen>; changed: string[] }> {
        const before = running(await settled());
        await stopNode();
        const look = await planAndApply(NEW, old, `look-${old}`);
        const changed = [...before.values()]
          .filter((s) => s.pod.metadata.uid !== undefined && libraryHash(s, old) !== libraryHash(s, NEW))
          .map(key);
        expect(look.rewrite).toBe(changed.length);
        if (withApply) {
          const up = await planAndApply(old, NEW, `upgrade-${old}`);
          // The pod without metadata.uid gets a new UID on a real minor upgrade: predicted, not rewritten.
          expect(up).toMatchObject({ rewrite: changed.length, 'will-restart': 1, unknown: 0 });
          expect(await verifyOnNew()).toBe(0);
        }
        await startNode();
        if (withApply) await new Promise((r) => setTimeout(r, SETTLE_MS));
        else await recreated(before, changed);
        const after = running(await settled());
        return { before, after, changed };
      }

      for (const old of OLDER) {
        it(`node as if run by ${old}: stop, plan --from ${old} --to 1.20, apply, start; the kubelet recreates no container`, async () => {
          const { before, after, changed } = await upgradeFrom(old, true);
          // 1.15 (go-spew) differs for every container; 1.16 only where a 1.19+ field is set
          // (seccompProfile); 1.19's Container types equal 1.20's, so the same hash: nothing to rewrite.
          expect(changed.length).toBe({ '1.15': appContainers.length - 1, '1.16': 1, '1.19': 0 }[old]);
          for (const [k, b] of before) {
            const a = after.get(k);
            expect({ k, id: a?.id, restartCount: a?.restartCount, state: a?.state }).toEqual({
              k,
              id: b.id,
              restartCount: b.restartCount,
              state: RUNNING,
            });
          }
          expect(after.size).toBe(before.size);
          expect(await verifyOnNew()).toBe(0);
        }, 300_000);
      }

      it("control: the same, without apply: the kubelet recreates every container whose stored hash is 1.15's", async () => {
        const { before, after, changed } = await upgradeFrom('1.15', false);
        expect(changed.length).toBeGreaterThan(0);
        for (const k of changed) {
          const b = before.get(k)!;
          const a = after.get(k)!;
          expect(a.id).not.toBe(b.id);
          expect(Number(a.restartCount)).toBe(Number(b.restartCount) + 1);
          expect(a.hash).toBe(libraryHash(a, NEW));
        }
        // The pod without metadata.uid was not rewritten (will-restart): it kept its 1.20 hash, and
        // this same kubelet binary derives the same UID, so it keeps it.
        const plain = [...before.keys()].filter((k) => !changed.includes(k));
        for (const k of plain) expect(after.get(k)!.id).toBe(before.get(k)!.id);
        // The kept runs wait SETTLE_MS after the kubelet read its manifests; it recreates far sooner.
        expect(recreatedAfterMs).toBeLessThan(SETTLE_MS);
      }, 300_000);
    },
    'static pods across kubelet upgrades',
  );
}
