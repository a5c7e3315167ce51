/**
 * The in-place kubelet upgrade on a REAL containerd: records created through containerd's own API,
 * read back through CRI (what the kubelet sees), rewritten in meta.db while containerd is stopped,
 * and served with the new kubelet's hash after a restart. Also: apply refuses while containerd
 * runs, an interrupted write leaves the old state (and containerd agrees), and containerd can still
 * write afterwards. On every containerd release of the registry (1.6.20, 1.7.24, 2.1.9: what differs
 * between them is in ../shared facts: 1.7+ keep no freelist page). Required in CI (CI=true); skipped
 * with the provision command elsewhere (test/support/real-systems.ts).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { planUpgrade } from '../../src/plan/index.js';
import { checkBoltFile } from '../../src/bbolt/index.js';
import { ContainerdStore, containerdMetaDbPath } from '../../src/stores/containerd/store.js';
import { fingerprintFile } from '../../src/stores/fingerprint.js';
import type { StoreRewrite, StoredContainer } from '../../src/stores/types.js';
import { cli } from '../support/cli.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';
import { CONTAINERD_RELEASES, describeReal } from '../support/real-systems.js';

const FROM = '1.30';
const TO = '1.31';
const NS = 'k8s.io';
const PODS = 150;

/** The plan entries as rewrites for the store (phase-1 wiring; the CLI does this in `plan`/`apply`). */
function rewritesFor(
  stored: readonly StoredContainer[],
  pods: unknown[],
): { rewrites: StoreRewrite[]; counts: Record<string, number> } {
  const plan = planUpgrade({
    pods,
    records: stored.map((s) => ({
      kind: 'crictl-inspect' as const,
      runtime: 'containerd' as const,
      containerId: s.containerId,
      containerName: s.containerName,
      podName: s.podName,
      podNamespace: s.podNamespace,
      podUid: s.podUid,
      ...(s.hash !== undefined ? { hash: s.hash } : {}),
      hashLocations: [s.location],
    })),
    from: FROM,
    to: TO,
  });
  const byId = new Map(stored.map((s) => [s.containerId, s]));
  const rewrites = plan.entries
    .filter((e) => e.action === 'rewrite')
    .map((e) => ({
      containerId: e.containerId!,
      fingerprint: byId.get(e.containerId!)!.fingerprint,
      change: e.change,
    }));
  return { rewrites, counts: plan.counts };
}

for (const release of CONTAINERD_RELEASES)
  describeReal(
    [['containerd', release]],
    (systems) => {
      let dir: string;
      let daemon: ContainerdDaemon;
      let fixtures: FixtureContainer[];
      let store: ContainerdStore;
      const pods = Array.from({ length: PODS }, (_, i) => fixturePod(i));
      const podsFile = (): string => join(dir, 'pods.json');
      const planFile = (): string => join(dir, 'plan.json');
      const backupDir = (): string => join(dir, 'backup');

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-containerd-'));
        daemon = new ContainerdDaemon(dir, { bin: systems.get('containerd')!.bin });
        fixtures = fixtureContainers(pods, FROM);
        store = new ContainerdStore({ root: daemon.root, namespace: NS });
        await daemon.start();
      }, 120_000);

      afterAll(async () => {
        await daemon.teardown();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it(`creates >=200 CRI container records through containerd's API and reads the ${FROM} hashes back through CRI`, async () => {
        expect(fixtures.length).toBeGreaterThanOrEqual(200);
        expect(fixtures.some((f) => f.extension.length > 8192)).toBe(true);
        await daemon.createContainers(
          fixtures.map((f, i) => criRecord(f, i % 40 === 0 ? 6000 : 0)),
          NS,
        );
        for (const f of fixtures)
          mkdirSync(join(daemon.root, 'io.containerd.grpc.v1.cri', 'containers', f.id), { recursive: true });
        await daemon.stop();
        await daemon.start();
        const cri = await daemon.criListContainers();
        const served = new Map(cri.map((c) => [c.id, c.annotations['io.kubernetes.container.hash']]));
        expect(served.size).toBe(fixtures.length);
        for (const f of fixtures) expect(served.get(f.id)).toBe(f.hash);
        expect(daemon.version()).toContain(` ${release}`);
      });

      it('reads the same records straight from meta.db, and the file passes the checker', async () => {
        const stored = await store.list();
        expect(stored).toHaveLength(fixtures.length);
        const byId = new Map(stored.map((s) => [s.containerId, s]));
        for (const f of fixtures) {
          const s = byId.get(f.id)!;
          expect(s).toMatchObject({
            hash: f.hash,
            podUid: f.pod.metadata.uid,
            podName: f.pod.metadata.name,
            containerName: f.container.name,
          });
        }
        const report = checkBoltFile(containerdMetaDbPath(daemon.root));
        expect(report.faults).toEqual([]);
        // containerd 1.6 syncs its freelist page; 1.7+ open with NoFreelistSync and write none
        expect(report.syncedFreelist).toBe(release.startsWith('1.6.'));
      });

      it('real bbolt reads the file containerd wrote as the project does, with the stored hashes', async () => {
        await daemon.stop();
        expectRealBboltAgrees(containerdMetaDbPath(daemon.root), {
          hashes: Object.fromEntries(fixtures.map((f) => [f.id, f.hash])),
        });
        await daemon.start();
      });

      it('plan (CLI) is identical across runs but for its audit stamp; verify says the 1.30 kubelet keeps all; apply refuses while containerd runs', async () => {
        writeFileSync(podsFile(), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
        const args = ['plan', '--from', FROM, '--to', TO, '--pods', podsFile(), '--containerd-root', daemon.root];
        const first = await cli([...args, '--out', planFile()]);
        expect(first.err).toBe('');
        expect(first.code).toBe(0);
        expect(first.out).toContain(`rewrite ${fixtures.length}, will-restart 0, unknown 0`);
        const again = await cli([...args, '--out', '-']);
        // The same bytes but for the audit stamp (when and by which command line; issue 37).
        const withoutAudit = (text: string) => {
          const { audit, digest, ...rest } = JSON.parse(text) as { audit: unknown; digest: Record<string, string> };
          expect(audit).toMatchObject({ tool: expect.stringMatching(/^kubelet-hash /) });
          const { audit: _stamp, ...digested } = digest;
          return { ...rest, digest: digested };
        };
        expect(withoutAudit(again.out)).toEqual(withoutAudit(readFileSync(planFile(), 'utf8')));
        expect(
          (await cli(['verify', '--kubelet', FROM, '--pods', podsFile(), '--containerd-root', daemon.root])).code,
        ).toBe(0);
        expect(
          (await cli(['verify', '--kubelet', TO, '--pods', podsFile(), '--containerd-root', daemon.root])).code,
        ).toBe(1);

        const dbPath = containerdMetaDbPath(daemon.root);
        const before = await fingerprintFile(dbPath);
        const refused = await cli(['apply', planFile()]);
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('STORE_LOCKED');
        expect(await fingerprintFile(dbPath)).toBe(before);
      });

      it('a write interrupted between page writes and the meta write leaves the old state; containerd agrees', async () => {
        await daemon.stop();
        const { rewrites } = rewritesFor(await store.list(), pods);
        await expect(
          store.apply(rewrites, {
            hooks: {
              beforeMeta: () => {
                throw new Error('injected crash before the meta page');
              },
            },
          }),
        ).rejects.toThrow('injected crash');
        const report = checkBoltFile(containerdMetaDbPath(daemon.root));
        // Pages written before the "crash" sit in free space the old meta does not reach; that is all.
        expect(report.faults.filter((f) => !f.includes('neither reachable nor free'))).toEqual([]);
        expectRealBboltAgrees(containerdMetaDbPath(daemon.root), {
          hashes: Object.fromEntries(fixtures.map((f) => [f.id, f.hash])),
          abandonedPages: true,
        });
        await daemon.start();
        const served = new Map(
          (await daemon.criListContainers()).map((c) => [c.id, c.annotations['io.kubernetes.container.hash']]),
        );
        for (const f of fixtures) expect(served.get(f.id)).toBe(f.hash);
      });

      it(`stop, apply (CLI, one transaction), start: CRI serves the ${TO} hash for every record; containerd still writes`, async () => {
        await daemon.stop();
        const dbPath = containerdMetaDbPath(daemon.root);
        const original = readFileSync(dbPath);
        // The plan made while containerd ran still applies: containerd rewrote its file, not the records.
        const applied = await cli(['apply', planFile(), '--backup-dir', backupDir()]);
        expect(applied.err).toBe('');
        expect(applied.code).toBe(0);
        expect(applied.out).toContain(`# rewrote ${fixtures.length} records`);
        expect(checkBoltFile(dbPath).faults).toEqual([]);
        expectRealBboltAgrees(dbPath, {
          hashes: Object.fromEntries(fixtures.map((f) => [f.id, hashContainer(f.container, { kubeletVersion: TO })])),
        });
        // The rollback point is private: a 0700 directory of its own, the manifest 0600.
        const [point] = readdirSync(backupDir());
        expect(statSync(join(backupDir(), point!)).mode & 0o777).toBe(0o700);
        expect(statSync(join(backupDir(), point!, 'kubelet-hash-backup.json')).mode & 0o777).toBe(0o600);
        expect(original.length).toBeGreaterThan(0);
        expect(
          (await cli(['verify', '--kubelet', TO, '--pods', podsFile(), '--containerd-root', daemon.root])).code,
        ).toBe(0);
        // Applying the same plan again says it is applied, and writes nothing (issue 37).
        const appliedBytes = readFileSync(containerdMetaDbPath(daemon.root));
        const twice = await cli(['apply', planFile(), '--backup-dir', join(dir, 'backup-2')]);
        expect(twice.err).toBe('');
        expect(twice.code).toBe(0);
        expect(twice.out).toContain('# already applied');
        expect(readFileSync(containerdMetaDbPath(daemon.root)).equals(appliedBytes)).toBe(true);
        expect(existsSync(join(dir, 'backup-2'))).toBe(false);

        await daemon.start();
        const cri = await daemon.criListContainers();
        const served = new Map(cri.map((c) => [c.id, c]));
        expect(served.size).toBe(fixtures.length);
        for (const f of fixtures) {
          const want = hashContainer(f.container, { kubeletVersion: TO });
          expect(want).not.toBe(f.hash);
          const c = served.get(f.id)!;
          expect(c.annotations['io.kubernetes.container.hash']).toBe(want);
          // everything else the kubelet reads is as it was
          expect(c.annotations['io.kubernetes.container.ports']).toBe(f.annotations['io.kubernetes.container.ports']);
          expect(c.labels['io.kubernetes.pod.uid']).toBe(f.pod.metadata.uid);
        }

        // containerd still writes: one more container, then a restart still serves everything.
        const extra = fixtureContainers([fixturePod(PODS + 1)], TO, PODS + 1)[0]!;
        await daemon.createContainers([criRecord(extra)], NS);
        mkdirSync(join(daemon.root, 'io.containerd.grpc.v1.cri', 'containers', extra.id), { recursive: true });
        await daemon.stop();
        expect(checkBoltFile(dbPath).faults).toEqual([]);
        const real = expectRealBboltAgrees(dbPath);
        if (real) expect(real.hashes[extra.id]?.hash).toBe(extra.hash);
        await daemon.start();
        expect((await daemon.criListContainers()).length).toBe(fixtures.length + 1);
        await daemon.stop();
        expect(checkBoltFile(dbPath).faults).toEqual([]);
        expectRealBboltAgrees(dbPath);
      });

      it('rollback (CLI) puts back only the records apply rewrote, keeps the container recorded since apply, and containerd serves the old hashes again', async () => {
        const dbPath = containerdMetaDbPath(daemon.root);
        // The container created after apply (above) stays: rollback replaces only the rewritten records.
        const extra = fixtureContainers([fixturePod(PODS + 1)], TO, PODS + 1)[0]!;
        const rolled = await cli(['rollback', planFile(), '--backup-dir', backupDir()]);
        expect(rolled.err).toBe('');
        expect(rolled.code).toBe(0);
        expect(rolled.out).toContain(`# restored ${fixtures.length} records`);
        expectRealBboltAgrees(dbPath, {
          hashes: { ...Object.fromEntries(fixtures.map((f) => [f.id, f.hash])), [extra.id]: extra.hash },
        });
        await daemon.start();
        const served = new Map(
          (await daemon.criListContainers()).map((c) => [c.id, c.annotations['io.kubernetes.container.hash']]),
        );
        for (const f of fixtures) expect(served.get(f.id)).toBe(f.hash);
        expect(served.get(extra.id)).toBe(extra.hash);
        // rollback refuses while containerd holds the file
        const refused = await cli(['rollback', planFile(), '--backup-dir', backupDir()]);
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('STORE_LOCKED');
        await daemon.stop();
      });
    },
    'in-place upgrade of meta.db, hand-built records',
  );
