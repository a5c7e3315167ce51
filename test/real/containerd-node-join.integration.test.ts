/**
 * No false all-clear on a REAL containerd: `plan` and `verify` join the node's API pods with the
 * records containerd persisted, so a wrong --namespace, a wrong runtime root, an empty store or a
 * running pod without a record gives exit 1 or 2 with the reason, never 0. Pod sandboxes
 * (created through containerd's API as the CRI plugin writes them, and read back through CRI) make
 * a pod with the wrong network mode, or without a sandbox, `will-restart`. Required in CI
 * (CI=true); skipped with a message elsewhere when containerd or root is missing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeAny } from '../../src/stores/containerd/any.js';
import { containerdSandboxes } from '../../src/stores/containerd/census.js';
import { cli } from '../support/cli.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { describeReal } from '../support/real-systems.js';
import {
  criRecord,
  fixtureContainers,
  fixturePod,
  fixtureSpec,
  type FixtureContainer,
} from '../support/cri-fixtures.js';

const FROM = '1.30';
const NS = 'k8s.io';
const SANDBOX_TYPE_URL = 'github.com/containerd/cri/pkg/store/sandbox/Metadata';

/** A sandbox (pause container) record as containerd's CRI plugin writes it for `pod`. */
function sandboxRecord(f: FixtureContainer, hostNetwork: boolean) {
  const { metadata } = f.pod;
  const config = {
    metadata: { name: metadata.name, uid: metadata.uid, namespace: metadata.namespace },
    labels: { 'io.kubernetes.pod.uid': metadata.uid },
    linux: hostNetwork ? { security_context: { namespace_options: { network: 2, pid: 1 } } } : {},
  };
  const md = {
    Version: 'v1',
    Metadata: {
      ID: f.sandboxId,
      Name: `${metadata.name}_${metadata.namespace}_${metadata.uid}_0`,
      Config: config,
      NetNSPath: '',
      IP: hostNetwork ? '' : '10.88.0.7',
      AdditionalIPs: null,
      RuntimeHandler: '',
      CNIResult: null,
      ProcessLabel: '',
    },
  };
  return {
    id: f.sandboxId,
    labels: {
      'io.cri-containerd.kind': 'sandbox',
      'io.kubernetes.pod.name': metadata.name,
      'io.kubernetes.pod.namespace': metadata.namespace,
      'io.kubernetes.pod.uid': metadata.uid,
    },
    spec: fixtureSpec(f),
    extensions: { 'io.cri-containerd.sandbox.metadata': encodeAny(SANDBOX_TYPE_URL, Buffer.from(JSON.stringify(md))) },
  };
}

// The sandbox records are written by hand as containerd 1.6's CRI plugin writes them. containerd 1.7.24's
// CRI serves such a record (no pause task behind it) without its Linux status, and 2.x keeps sandboxes in a
// store of its own: on those, test/real/containerd-cri.integration.test.ts is the evidence (the census reads the
// sandboxes RunPodSandbox made on 1.6.20, 1.7.24 and 2.1.9 as CRI serves them).
for (const release of ['1.6.20'])
  describeReal(
    [['containerd', release]],
    (systems) => {
      let dir: string;
      let daemon: ContainerdDaemon;
      let other: ContainerdDaemon;
      let fixtures: FixtureContainer[];
      const pods = Array.from({ length: 4 }, (_, i) => fixturePod(i));
      const running = (p: (typeof pods)[number], nodeName = 'node-a') => ({
        ...p,
        spec: { ...p.spec, nodeName },
        status: {
          phase: 'Running',
          containerStatuses: p.spec.containers.map((c) => ({ name: c['name'], state: { running: {} } })),
        },
      });
      const write = (name: string, items: unknown[]): string => {
        const file = join(dir, name);
        writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
        return file;
      };

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-node-join-'));
        daemon = new ContainerdDaemon(join(dir, 'a'), { bin: systems.get('containerd')!.bin });
        other = new ContainerdDaemon(join(dir, 'b'), { bin: systems.get('containerd')!.bin });
        fixtures = fixtureContainers(pods, FROM);
        await daemon.start();
        await daemon.createContainers(
          fixtures.map((f) => criRecord(f)),
          NS,
        );
        // Sandboxes for pods 0-2 (pod 1's with the node's network namespace); pod 3 has none.
        const firstOfPod = [0, 1, 2].map((i) => fixtures.find((f) => f.pod === pods[i])!);
        await daemon.createContainers(
          firstOfPod.map((f, i) => sandboxRecord(f, i === 1)),
          NS,
        );
        for (const f of fixtures)
          mkdirSync(join(daemon.root, 'io.containerd.grpc.v1.cri', 'containers', f.id), { recursive: true });
        for (const f of firstOfPod)
          mkdirSync(join(daemon.root, 'io.containerd.grpc.v1.cri', 'sandboxes', f.sandboxId), { recursive: true });
        // The other root: a containerd that ran, with one container that is not the CRI plugin's.
        await other.start();
        await daemon.stop();
        await daemon.start();
      }, 120_000);

      afterAll(async () => {
        await daemon.stop();
        await other.stop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it('reads the sandboxes as containerd serves them through CRI (uid, network mode, IP)', async () => {
        const served = await daemon.criPodSandboxes();
        const read = containerdSandboxes(daemon.root, NS);
        expect(read).toHaveLength(3);
        expect(served.map((s) => [s.id, s.uid, s.network]).sort()).toEqual(
          read.map((s) => [s.id, s.podUid, s.networkMode]).sort(),
        );
        expect(read.filter((s) => s.networkMode === 2).map((s) => s.podUid)).toEqual([pods[1]!.metadata.uid]);
      });

      it('records without an API pod are listed (exit 1); a pod whose sandbox differs or is gone is will-restart', async () => {
        const fitting = [
          running(pods[0]!),
          { ...running(pods[1]!), spec: { ...running(pods[1]!).spec, hostNetwork: true } },
        ];
        const ok = await cli([
          'verify',
          '--kubelet',
          FROM,
          '--pods',
          write('fit.json', fitting),
          '--containerd-root',
          daemon.root,
          '--node',
          'node-a',
        ]);
        // Pods 2 and 3 are on another node here: only pods 0 and 1 are this node's; their records match.
        expect(ok.err).toBe('');
        expect(ok.out).toContain('3 sandbox records read');
        // The records of pods 2 and 3 have no API pod on this node: listed as unknown, so not 0.
        expect(ok.code).toBe(1);
        expect(ok.out).toMatch(/no API pod has uid/);

        const all = [running(pods[0]!), running(pods[1]!), running(pods[2]!), running(pods[3]!)];
        const r = await cli([
          'plan',
          '--json',
          '--from',
          FROM,
          '--to',
          '1.31',
          '--pods',
          write('all.json', all),
          '--containerd-root',
          daemon.root,
        ]);
        expect(r.code).toBe(1);
        const doc = JSON.parse(r.out) as {
          rows: { action: string; podUid: string; reason: string }[];
          summary: { sandboxes: { findings: { podUid: string; reason: string }[] } };
        };
        const findings = new Map(doc.summary.sandboxes.findings.map((f) => [f.podUid, f.reason]));
        expect(findings.get(pods[1]!.metadata.uid)).toMatch(/network namespace is the node \(hostNetwork\)/);
        expect(findings.get(pods[3]!.metadata.uid)).toMatch(/no sandbox record/);
        expect(findings.has(pods[0]!.metadata.uid)).toBe(false);
        for (const row of doc.rows) {
          const recreated = findings.has(row.podUid);
          expect(row.action).toBe(recreated ? 'will-restart' : 'rewrite');
          if (recreated) expect(row.reason).toContain('PodSandboxChanged');
        }
      });

      it('a running API pod without a record: unknown, exit 1 (plan and verify)', async () => {
        const extra = {
          ...running(fixturePod(77)),
          metadata: { ...fixturePod(77).metadata, name: 'not-on-the-runtime' },
        };
        const three = [
          running(pods[0]!),
          { ...running(pods[1]!), spec: { ...running(pods[1]!).spec, hostNetwork: true } },
          running(pods[2]!),
          extra,
        ];
        const file = write('extra.json', three);
        const plan = await cli([
          'plan',
          '--from',
          FROM,
          '--to',
          '1.31',
          '--pods',
          file,
          '--containerd-root',
          daemon.root,
          '--node',
          'node-a',
        ]);
        expect(plan.code).toBe(1);
        expect(plan.out).toMatch(
          /unknown +\S+\/not-on-the-runtime .*no runtime record: wrong --namespace or runtime root\?/,
        );
        const verify = await cli([
          'verify',
          '--kubelet',
          FROM,
          '--pods',
          file,
          '--containerd-root',
          daemon.root,
          '--node',
          'node-a',
        ]);
        expect(verify.code).toBe(1);
        expect(verify.out).toContain('no runtime record');
      });

      it('a wrong --namespace is refused (exit 2, EMPTY_STORE) naming what the file holds', async () => {
        const file = write(
          'pods.json',
          pods.map((p) => running(p)),
        );
        for (const command of [
          ['plan', '--from', FROM, '--to', '1.31'],
          ['verify', '--kubelet', FROM],
        ]) {
          const r = await cli([...command, '--pods', file, '--containerd-root', daemon.root, '--namespace', 'k8s']);
          expect(r.code).toBe(2);
          expect(r.out).toBe('');
          expect(r.err).toContain('EMPTY_STORE');
          expect(r.err).toContain('namespace "k8s"');
          expect(r.err).toContain(`k8s.io: ${fixtures.length + 3} containers, ${fixtures.length} CRI containers`);
        }
      });

      it('a wrong runtime root is refused: an empty store, one without CRI containers, or none at all (exit 2)', async () => {
        const file = write(
          'pods.json',
          pods.map((p) => running(p)),
        );
        await other.stop();
        const empty = await cli([
          'verify',
          '--json',
          '--kubelet',
          FROM,
          '--pods',
          file,
          '--containerd-root',
          other.root,
        ]);
        expect(empty.code).toBe(2);
        const e = (JSON.parse(empty.err) as { error: { code: string; detail: string } }).error;
        expect(e.code).toBe('EMPTY_STORE');
        expect(e.detail).toContain('wrong --namespace or runtime root?');
        await other.start();
        const plain = fixtures[0]!;
        await other.createContainers(
          [{ id: plain.id, labels: { app: 'not-cri' }, spec: fixtureSpec(plain), extensions: {} }],
          NS,
        );
        await other.stop();
        const noCri = await cli([
          'plan',
          '--from',
          FROM,
          '--to',
          '1.31',
          '--pods',
          file,
          '--containerd-root',
          other.root,
        ]);
        expect(noCri.code).toBe(2);
        expect(noCri.err).toContain('k8s.io: 1 containers, 0 CRI containers');
        const missing = await cli([
          'plan',
          '--from',
          FROM,
          '--to',
          '1.31',
          '--pods',
          file,
          '--containerd-root',
          join(dir, 'nowhere'),
        ]);
        expect(missing.code).toBe(2);
        expect(missing.err).toContain('STORE_IO');
        expect(missing.err).toContain(join(dir, 'nowhere'));
        await other.start();
      });
    },
    'plan and verify account for every container',
  );
