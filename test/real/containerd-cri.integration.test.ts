/**
 * Containers created through CRI, as a kubelet creates them, on every containerd release of the
 * registry (on 2.1.9 this is the main evidence: kubelet 1.20 cannot talk to 2.x). A test client calls
 * RunPodSandbox / CreateContainer / StartContainer with the kubelet's labels and annotations (the 1.30
 * hash of each container after 1.30's defaulting); the containers really run (busybox). Then: plan
 * while containerd runs, apply refused while it holds meta.db, containerd stopped (shims and
 * containers keep running), apply, verify, containerd started: CRI serves the 1.31 hash for the same
 * containers, still running with the same processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyApiserverDefaults, hashContainer } from '../../src/index.js';
import { checkBoltFile } from '../../src/bbolt/index.js';
import { containerdSandboxes } from '../../src/stores/containerd/census.js';
import { containerdMetaDbPath } from '../../src/stores/containerd/store.js';
import { buildBusyboxImage } from '../support/busybox-image.js';
import { cli } from '../support/cli.js';
import { ContainerdDaemon } from '../support/containerd-daemon.js';
import { CONTAINERD_RELEASES, describeReal } from '../support/real-systems.js';
import { IMAGE, staticPods, type StaticPod } from '../support/static-pods.js';

const FROM = '1.30';
const TO = '1.31';
const RUNNING = 1;

interface Created {
  id: string;
  pod: StaticPod & { metadata: { uid: string } };
  container: Record<string, unknown>;
}

/** The container as the 1.30 apiserver serves it (what the kubelet hashes). */
const served = (pod: StaticPod, c: Record<string, unknown>): Record<string, unknown> =>
  applyApiserverDefaults(c, { kubeletVersion: FROM, podSpec: pod.spec });

for (const release of CONTAINERD_RELEASES)
  describeReal(
    [['containerd', release]],
    (systems) => {
      // Ordinary API pods (not static): every pod with a uid, app containers only.
      const pods = staticPods(randomBytes(4).toString('hex'), 20_000 + Math.floor(Math.random() * 20_000)).filter(
        (p): p is Created['pod'] => p.metadata.uid !== undefined,
      );
      let dir: string;
      let runtime: ContainerdDaemon;
      const created: Created[] = [];
      const podsFile = (): string => join(dir, 'pods.json');
      const planFile = (): string => join(dir, 'plan.json');
      const store = (): string[] => ['--containerd-root', runtime.root];

      /** Container id → PID of its task, as this containerd's `ctr tasks ls` lists them. */
      const taskPids = (): Map<string, string> =>
        new Map(
          runtime
            .ctr(['-n', 'k8s.io', 'tasks', 'ls'])
            .trim()
            .split('\n')
            .slice(1)
            .map((line) => line.split(/\s+/) as [string, string]),
        );

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kh-cri-'));
        runtime = new ContainerdDaemon(join(dir, 'containerd'), {
          bin: systems.get('containerd')!.bin,
          sandboxImage: IMAGE,
        });
        await runtime.start();
        runtime.importImage(buildBusyboxImage(join(dir, 'image'), systems.get('containerd')!.record.BUSYBOX!, IMAGE));
        writeFileSync(
          podsFile(),
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'List',
            items: pods.map((p) => ({
              ...p,
              spec: { ...p.spec, initContainers: undefined, containers: p.spec.containers.map((c) => served(p, c)) },
            })),
          }),
        );
      }, 120_000);

      afterAll(async () => {
        await runtime.teardown();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it(`RunPodSandbox, CreateContainer, StartContainer as a ${FROM} kubelet does: running, and CRI serves the ${FROM} hash`, async () => {
        for (const pod of pods) {
          const { name, namespace, uid } = pod.metadata;
          const podLabels = {
            'io.kubernetes.pod.name': name,
            'io.kubernetes.pod.namespace': namespace,
            'io.kubernetes.pod.uid': uid,
          };
          const sandboxConfig = {
            metadata: { name, uid, namespace, attempt: 0 },
            log_directory: join(dir, 'logs', `${namespace}_${name}_${uid}`),
            labels: podLabels,
            annotations: { 'kubernetes.io/config.seen': '2026-12-01T00:00:00Z', 'kubernetes.io/config.source': 'api' },
            linux: { security_context: { namespace_options: { network: 2, pid: 1, ipc: 0 } } },
          };
          const { pod_sandbox_id } = await runtime.cri<{ pod_sandbox_id: string }>('RunPodSandbox', {
            config: sandboxConfig,
          });
          for (const container of pod.spec.containers) {
            const c = served(pod, container);
            const ports = (c.ports as Record<string, unknown>[] | undefined) ?? [];
            const annotations: Record<string, string> = {
              'io.kubernetes.container.hash': hashContainer(c, { kubeletVersion: FROM }),
              'io.kubernetes.container.restartCount': '0',
              'io.kubernetes.container.terminationMessagePath': String(c.terminationMessagePath),
              'io.kubernetes.container.terminationMessagePolicy': String(c.terminationMessagePolicy),
              'io.kubernetes.pod.terminationGracePeriod': '2',
            };
            if (ports.length) annotations['io.kubernetes.container.ports'] = JSON.stringify(ports);
            const env = ((c.env as { name: string; value?: string }[] | undefined) ?? []).map((e) => ({
              key: e.name,
              value: e.value ?? 'from-a-field',
            }));
            const { container_id } = await runtime.cri<{ container_id: string }>('CreateContainer', {
              pod_sandbox_id,
              sandbox_config: sandboxConfig,
              config: {
                metadata: { name: c.name, attempt: 0 },
                image: { image: IMAGE },
                command: c.command ?? [],
                args: c.args ?? [],
                working_dir: c.workingDir ?? '',
                envs: env,
                labels: { ...podLabels, 'io.kubernetes.container.name': c.name },
                annotations,
                log_path: `${String(c.name)}/0.log`,
              },
            });
            await runtime.cri('StartContainer', { container_id });
            created.push({ id: container_id, pod, container: c });
          }
        }
        const listed = new Map((await runtime.criListContainers()).map((c) => [c.id, c]));
        expect(listed.size).toBe(created.length);
        for (const k of created) {
          const c = listed.get(k.id)!;
          expect(c.state).toBe(RUNNING);
          expect(c.annotations['io.kubernetes.container.hash']).toBe(
            hashContainer(k.container, { kubeletVersion: FROM }),
          );
        }
        expect(runtime.version()).toContain(` ${release}`);
      });

      it('the census reads from meta.db the pod sandboxes CRI serves (id, uid, name, namespace, host network)', async () => {
        // The sandboxes RunPodSandbox made, as this release persists them (1.x: pause containers with
        // the sandbox extension; 2.x also its sandbox store), against what CRI serves the kubelet.
        const served = new Map((await runtime.criPodSandboxes()).map((s) => [s.id, s]));
        const read = containerdSandboxes(runtime.root, 'k8s.io');
        expect(read.map((s) => s.id).sort()).toEqual([...served.keys()].sort());
        expect(read).toHaveLength(pods.length);
        const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
        for (const s of read) {
          const cri = served.get(s.id)!;
          expect(s.podUid).toBe(cri.uid);
          expect(s.networkMode).toBe(cri.network);
          expect(s.networkMode).toBe(2); // the test pods run in the node's network (no CNI here)
          expect([s.podName, s.podNamespace]).toEqual([
            byUid.get(s.podUid)!.metadata.name,
            byUid.get(s.podUid)!.metadata.namespace,
          ]);
        }
      });

      it(`plan while containerd runs; apply refused while it holds meta.db; stopped, apply; started, the same containers run with the ${TO} hash`, async () => {
        const plan = await cli([
          'plan',
          // Probed pods: the restart's readiness flap (≤ 1.34) is known and accepted here; these judge the hash.
          '--accept-cause',
          'readiness-flap',
          '--from',
          FROM,
          '--to',
          TO,
          '--pods',
          podsFile(),
          ...store(),
          '--out',
          planFile(),
        ]);
        expect(plan.err).toBe('');
        expect(plan.code).toBe(0);
        expect(plan.out).toContain(`rewrite ${created.length}, will-restart 0, unknown 0`);
        const refused = await cli(['apply', planFile()]);
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('STORE_LOCKED');

        const pidsBefore = taskPids();
        const startedBefore = new Map<string, string>();
        for (const k of created)
          startedBefore.set(
            k.id,
            (await runtime.cri<{ status: { started_at: string } }>('ContainerStatus', { container_id: k.id })).status
              .started_at,
          );
        await runtime.stop();
        const applied = await cli(['apply', planFile(), '--backup-dir', join(dir, 'backup')]);
        expect(applied.err).toBe('');
        expect(applied.code).toBe(0);
        expect(applied.out).toContain(`# rewrote ${created.length} records`);
        expect(checkBoltFile(containerdMetaDbPath(runtime.root)).faults).toEqual([]);
        expect(
          (await cli(['verify', '--accept-cause', 'readiness-flap', '--kubelet', TO, '--pods', podsFile(), ...store()]))
            .code,
        ).toBe(0);

        await runtime.start();
        const listed = new Map((await runtime.criListContainers()).map((c) => [c.id, c]));
        expect(listed.size).toBe(created.length);
        const pidsAfter = taskPids();
        for (const k of created) {
          const c = listed.get(k.id)!;
          const want = hashContainer(k.container, { kubeletVersion: TO });
          expect(want).not.toBe(hashContainer(k.container, { kubeletVersion: FROM }));
          expect(c.annotations['io.kubernetes.container.hash']).toBe(want);
          expect(c.state).toBe(RUNNING);
          expect(pidsAfter.get(k.id)).toBe(pidsBefore.get(k.id)); // the same process, never restarted
          const status = await runtime.cri<{ status: { started_at: string } }>('ContainerStatus', {
            container_id: k.id,
          });
          expect(status.status.started_at).toBe(startedBefore.get(k.id));
        }
        expect((await runtime.criListSandboxes()).filter((s) => s.state === 0)).toHaveLength(pods.length);
      });
    },
    'containers created through CRI, running across apply',
  );
