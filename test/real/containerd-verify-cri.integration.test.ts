/**
 * `verify --runtime-endpoint` asks the runtime, on a REAL containerd (every release of the
 * registry): exit 0 only when the containers containerd serves over CRI ListContainers are the
 * records of its meta.db, with the same hashes. Records are created through containerd's containers
 * API, which its CRI plugin reads only when it starts: created while it runs, meta.db holds them and
 * CRI serves none; deleted and created again with another hash, meta.db and CRI disagree on that
 * one. Stopped, the socket does not answer: a refusal, not a verify of the files alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { cli } from '../support/cli.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../support/cri-fixtures.js';
import { CONTAINERD_RELEASES, describeReal } from '../support/real-systems.js';

const FROM = '1.30';
const NS = 'k8s.io';
const short = (id: string): string => id.slice(0, 13);

for (const release of CONTAINERD_RELEASES)
  describeReal(
    [['containerd', release]],
    (systems) => {
      let dir: string;
      let daemon: ContainerdDaemon;
      // Pods 0..4 of the fixtures: 7 containers (pods 0 and 3 have a log shipper).
      const pods = Array.from({ length: 5 }, (_, i) => fixturePod(i));
      const fixtures: FixtureContainer[] = fixtureContainers(pods, FROM);
      const podsFile = (): string => join(dir, 'pods.json');
      /** plan --runtime-endpoint (to the release the records were written by: nothing to rewrite but what CRI says). */
      const plan = () =>
        cli([
          'plan',
          '--from',
          FROM,
          '--to',
          FROM,
          '--pods',
          podsFile(),
          '--runtime-endpoint',
          `unix://${daemon.socket}`,
        ]);
      const verify = (...extra: string[]) =>
        cli([
          'verify',
          '--kubelet',
          FROM,
          '--pods',
          podsFile(),
          '--runtime-endpoint',
          `unix://${daemon.socket}`,
          ...extra,
        ]);
      /** containerd's CRI plugin serves the records it finds at start (and their state directories). */
      const restart = async (): Promise<void> => {
        for (const f of fixtures)
          mkdirSync(join(daemon.root, 'io.containerd.grpc.v1.cri', 'containers', f.id), { recursive: true });
        await daemon.stop();
        await daemon.start();
      };

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-verify-cri-'));
        daemon = new ContainerdDaemon(join(dir, 'containerd'), { bin: systems.get('containerd')!.bin });
        writeFileSync(podsFile(), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
        await daemon.start();
      }, 120_000);

      afterAll(async () => {
        await daemon.teardown();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it('meta.db holds the 7 records, CRI serves none: refused, naming each container (the files alone said 7 of 7 keep)', async () => {
        expect(fixtures).toHaveLength(7);
        await daemon.createContainers(
          fixtures.map((f) => criRecord(f)),
          NS,
        );
        expect(await daemon.criListContainers()).toEqual([]);
        // The store alone agrees with the pods: what verify said before it asked the runtime.
        const files = await cli(['verify', '--kubelet', FROM, '--pods', podsFile(), '--containerd-root', daemon.root]);
        expect(files.code).toBe(0);
        expect(files.out).toContain('7 of 7 containers keep running');

        const r = await verify('--json');
        expect(r.code).toBe(2);
        expect(r.out).toBe('');
        // --json: stderr is one JSON document holding the error.
        const { error } = JSON.parse(r.err) as { error: { code: string; message: string } };
        expect(error.code).toBe('CRI_DISAGREES');
        expect(error.message).toContain('7 containers differ (the runtime serves 0, the store holds 7)');
        for (const f of fixtures)
          expect(error.message).toContain(`container ${short(f.id)} (pod ${f.pod.metadata.namespace}/`);
        expect(error.message.match(/in the store, not served by the runtime/g)).toHaveLength(7);
        // plan asks the runtime too: a record it does not serve is not "keep" (the files alone said keep 7).
        const planned = await plan();
        expect(planned.code).toBe(1);
        expect(planned.out).toContain('keep 0, rewrite 0, will-restart 0, unknown 7');
        expect(
          planned.out.match(/the runtime does not serve this container over CRI v1 \(its store holds it\)/g),
        ).toHaveLength(7);
        expect(daemon.version()).toContain(` ${release}`);
      });

      it('started again, CRI serves the 7 records with the same hashes but none runs: the runtime’s word counts, exit 1', async () => {
        await restart();
        const served = await daemon.criListContainers();
        expect(served.length).toBe(7);
        // Records without a task: containerd serves them, but not as RUNNING. Issue 37: verify said
        // "7 of 7 keep running" here, from the files alone.
        expect(served.filter((c) => c.state === 1)).toEqual([]);
        const r = await verify();
        expect(r.err).toMatch(/the runtime serves over CRI v1 the 7 containers of its store/);
        expect(r.out).toContain('0 of 7 containers keep running');
        expect(
          r.out.match(/the runtime reports the container (CREATED|EXITED|UNKNOWN) \(CRI\), not RUNNING/g),
        ).toHaveLength(7);
        expect(r.code).toBe(1);
        const planned = await plan();
        expect(planned.code).toBe(1);
        expect(planned.out).toContain('keep 0, rewrite 0, will-restart 0, unknown 7');
        expect(planned.out.match(/\(CRI\), not RUNNING/g)).toHaveLength(7);
      });

      it('one hash differs between what CRI serves and meta.db: refused, naming that container and both hashes', async () => {
        const [first] = fixtures as [FixtureContainer];
        const other = hashContainer(first.container, { kubeletVersion: '1.31' });
        expect(other).not.toBe(first.hash);
        const [changed] = fixtureContainers([first.pod], '1.31') as [FixtureContainer];
        expect(changed.id).toBe(first.id);
        // CRI learns the 1.31 hash at start; then meta.db gets the 1.30 one back behind its back.
        await daemon.deleteContainer(first.id, NS);
        await daemon.createContainers([criRecord(changed)], NS);
        await restart();
        await daemon.deleteContainer(first.id, NS);
        await daemon.createContainers([criRecord(first)], NS);
        const served = new Map((await daemon.criListContainers()).map((c) => [c.id, c]));
        expect(served.get(first.id)!.annotations['io.kubernetes.container.hash']).toBe(other);
        const files = await cli(['verify', '--kubelet', FROM, '--pods', podsFile(), '--containerd-root', daemon.root]);
        expect(files.code).toBe(0);

        const r = await verify();
        expect(r.code).toBe(2);
        expect(r.err).toContain('CRI_DISAGREES');
        expect(r.err).toContain('1 containers differ (the runtime serves 7, the store holds 7)');
        expect(r.err).toContain(
          `container ${short(first.id)} (pod ${first.pod.metadata.namespace}/${first.pod.metadata.name} uid ${first.pod.metadata.uid}`,
        );
        expect(r.err).toContain(`hash: the store holds ${first.hash}, the runtime serves ${other}`);
        for (const f of fixtures.slice(1)) expect(r.err).not.toContain(short(f.id));
        // Started again, CRI reads meta.db's hash: they agree (exit 1 only because nothing runs).
        await restart();
        const agreed = await verify();
        expect(agreed.err).not.toContain('CRI_DISAGREES');
        expect(agreed.code).toBe(1);
      });

      it('the socket does not answer (containerd stopped; a listener that hangs up): refused, not a verify of the files', async () => {
        await daemon.stop();
        const config = ['--runtime-config', daemon.config];
        const stopped = await verify(...config);
        expect(stopped.code).toBe(2);
        expect(stopped.err).toContain('CRI_UNREACHABLE');
        expect(stopped.err).toContain(`the runtime answering CRI ListContainers on ${daemon.socket}`);
        expect(stopped.err).toContain('--containerd-root');
        // The store files alone still verify, when asked for by root.
        const files = await cli(['verify', '--kubelet', FROM, '--pods', podsFile(), '--containerd-root', daemon.root]);
        expect(files.code).toBe(0);

        rmSync(daemon.socket, { force: true });
        const server: Server = createServer((socket) => socket.destroy());
        await new Promise<void>((resolve) => server.listen(daemon.socket, resolve));
        try {
          const hangsUp = await verify(...config);
          expect(hangsUp.code).toBe(2);
          expect(hangsUp.err).toContain('CRI_UNREACHABLE');
          expect(hangsUp.err).toContain('UNAVAILABLE');
        } finally {
          await new Promise<void>((resolve) => server.close(() => resolve()));
        }
        await daemon.start();
      });
    },
    'verify --runtime-endpoint asks the runtime over CRI',
  );
