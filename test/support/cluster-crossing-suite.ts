/**
 * A real one-node cluster crosses a kubelet minor with pods from the apiserver (support/cluster.ts,
 * the components of two releases built from the Go module proxy by 60-kubernetes-modules.sh):
 * - on FROM (apiserver, controller manager, kubelet), varied pods sent through the apiserver run, and
 *   the kubelet stored for every container the library's hash of the container the apiserver serves;
 * - the control plane is upgraded to TO first: the FROM kubelet, now fed by the TO apiserver, keeps
 *   every container;
 * - then the node: kubelet and containerd stopped → `kubectl get pods -A -o json` → `plan --from FROM
 *   --to TO` → `apply` → containerd and the TO kubelet started: every container kept (same ids,
 *   same attempt, restart counts unchanged), and the hashes now stored are TO's;
 * - the control: the node made to look as FROM left it (our `plan --from TO --to FROM` + `apply`,
 *   which writes back exactly the hashes the real FROM kubelet had stored, checked above), restarted
 *   without `apply`: the TO kubelet recreates every container.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashContainer } from '../../src/index.js';
import { cli } from './cli.js';
import { Cluster, type ClusterComponents } from './cluster.js';
import { clusterPods, NO_TOKEN_ACCOUNT } from './cluster-pods.js';
import type { CriContainer } from './containerd-daemon.js';
import { describeReal } from './real-systems.js';

type List = 'initContainers' | 'containers';
const RUNNING = 1;
/** How long a restarted kubelet gets to act once it has the pods (syncFrequency is 5 s). */
const SETTLE_MS = 30_000;

type Json = Record<string, unknown>;
interface ServedPod {
  metadata: { name: string; namespace: string; uid: string };
  spec: Json & { containers: Json[]; initContainers?: Json[] };
  status: {
    phase?: string;
    containerStatuses?: { name: string; restartCount: number; state: Json }[];
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const minor = (release: string): string => release.split('.').slice(0, 2).join('.');

/** The suite on the `cluster FROM-TO` record (`1.30.14-1.31.14`) and containerd `containerd`. */
export function clusterCrossingSuite(crossing: string, containerd: string): void {
  describeReal(
    [
      ['cluster', crossing],
      ['containerd', containerd],
    ],
    (systems) => {
      const record = systems.get('cluster')!.record;
      const release = (side: 'FROM' | 'TO'): ClusterComponents => ({
        release: record[`${side}_RELEASE`]!,
        apiserver: record[`${side}_APISERVER`]!,
        controllerManager: record[`${side}_CONTROLLER_MANAGER`]!,
        kubelet: record[`${side}_KUBELET`]!,
      });
      const from = release('FROM');
      const to = release('TO');
      const FROM = minor(from.release);
      const TO = minor(to.release);
      let cluster: Cluster;
      let made: Cluster | undefined; // for afterAll, which runs also when beforeAll failed
      let ns: string;

      const served = (): ServedPod[] => (cluster.getJson(['-n', ns, 'pods']) as { items: ServedPod[] }).items;

      /** The newest CRI instance of every container of our pods, by `podUid/list/name`. */
      async function instances(pods: readonly ServedPod[]): Promise<Map<string, CriContainer>> {
        const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
        const out = new Map<string, CriContainer>();
        for (const c of await cluster.runtime.criListContainers()) {
          const pod = byUid.get(c.labels['io.kubernetes.pod.uid'] ?? '');
          if (!pod) continue;
          const name = c.labels['io.kubernetes.container.name']!;
          const list: List = pod.spec.initContainers?.some((x) => x.name === name) ? 'initContainers' : 'containers';
          const key = `${pod.metadata.uid}/${list}/${name}`;
          const had = out.get(key);
          if (!had || c.metadata.attempt > had.metadata.attempt) out.set(key, c);
        }
        return out;
      }
      const running = (cri: Map<string, CriContainer>): Map<string, CriContainer> =>
        new Map([...cri].filter(([k, c]) => k.includes('/containers/') && c.state === RUNNING));

      /** The served container behind `podUid/list/name`. */
      const containerOf = (pods: readonly ServedPod[], key: string): Json => {
        const [uid, list, name] = key.split('/') as [string, List, string];
        return pods.find((p) => p.metadata.uid === uid)!.spec[list]!.find((c) => c.name === name)!;
      };

      /** Every container whose stored hash is not the library's for `kubelet` (of what the apiserver serves). */
      async function hashMismatches(kubelet: string): Promise<unknown[]> {
        const pods = served();
        const out: unknown[] = [];
        for (const [k, c] of await instances(pods)) {
          const container = containerOf(pods, k);
          // An init container that ran to completion keeps the hash it was created with: no kubelet
          // compares it (init-not-compared), so plan leaves it as it is. Sidecars are compared.
          if (k.includes('/initContainers/') && (container as { restartPolicy?: unknown }).restartPolicy !== 'Always')
            continue;
          const library = hashContainer(container, { kubeletVersion: kubelet });
          const stored = c.annotations['io.kubernetes.container.hash'];
          if (stored !== library) out.push({ container: k, stored, library });
        }
        return out;
      }

      async function allRunning(timeoutMs = 600_000): Promise<ServedPod[]> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const pods = served();
          const waiting = pods.filter(
            (p) =>
              p.status.phase !== 'Running' ||
              (p.status.containerStatuses ?? []).length !== p.spec.containers.length ||
              !(p.status.containerStatuses ?? []).every((s) => 'running' in s.state),
          );
          if (waiting.length === 0) return pods;
          if (Date.now() > deadline || !cluster.kubelet.running)
            throw new Error(
              `pods not running: ${waiting.map((p) => `${p.metadata.name} ${JSON.stringify(p.status)}`).join('\n')}\n${cluster.kubelet.log.slice(-3000)}`,
            );
          await sleep(2000);
        }
      }

      async function planAndApply(dir: string, planFrom: string, planTo: string, name: string) {
        const planFile = join(dir, `${name}.plan.json`);
        const plan = await cli([
          'plan',
          // Probed pods: the restart's readiness flap (≤ 1.34) is known and accepted here; these judge the hash.
          '--accept-cause',
          'readiness-flap',
          '--from',
          planFrom,
          '--to',
          planTo,
          '--pods',
          join(dir, 'pods.json'),
          '--containerd-root',
          cluster.runtime.root,
          '--out',
          planFile,
          '--json',
        ]);
        expect(plan.err).not.toMatch(/"code"/);
        const counts = (JSON.parse(plan.out) as { summary: { counts: Record<string, number> } }).summary.counts;
        const applied = await cli(['apply', planFile, '--backup-dir', join(dir, `${name}.backup`)]);
        expect({ code: applied.code, err: applied.err }).toEqual({ code: 0, err: '' });
        return counts;
      }

      /** Waits until the restarted kubelet has the apiserver's pods, then watches for `ms` (or until `done`). */
      async function watch(
        before: Map<string, CriContainer>,
        ms: number,
        done?: (recreated: number) => boolean,
      ): Promise<{ after: Map<string, CriContainer>; firstRecreatedMs?: number }> {
        const deadline = Date.now() + 180_000;
        while (!cluster.kubelet.sawPods('api')) {
          if (Date.now() > deadline || !cluster.kubelet.running)
            throw new Error(`the kubelet did not get the pods:\n${cluster.kubelet.log.slice(-3000)}`);
          await sleep(200);
        }
        const started = Date.now();
        let after = running(await instances(served()));
        let firstRecreatedMs: number | undefined;
        while (Date.now() < started + ms) {
          await sleep(1000);
          after = running(await instances(served()));
          const recreated = [...before].filter(([k, b]) => after.get(k) && after.get(k)!.id !== b.id).length;
          if (recreated > 0) firstRecreatedMs ??= Date.now() - started;
          if (done?.(recreated)) break;
        }
        return { after, ...(firstRecreatedMs === undefined ? {} : { firstRecreatedMs }) };
      }

      const ids = (m: Map<string, CriContainer>) =>
        [...m].map(([k, c]) => ({ k, id: c.id, attempt: c.metadata.attempt })).sort((a, b) => (a.k < b.k ? -1 : 1));

      beforeAll(async () => {
        made = cluster = new Cluster(
          { cluster: systems.get('cluster')!, containerd: systems.get('containerd')! },
          from,
        );
        await cluster.start();
      }, 600_000);

      afterAll(async () => {
        await made?.teardown();
      }, 120_000);

      it(`on ${from.release}: varied pods from the apiserver run; the kubelet stored the library's ${FROM} hash of every served container`, async () => {
        ns = await cluster.createNamespace('kh-crossing');
        cluster.kubectlOk(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: { name: NO_TOKEN_ACCOUNT, namespace: ns },
            automountServiceAccountToken: false,
          }),
        );
        await cluster.serviceAccount(ns, NO_TOKEN_ACCOUNT);
        const sent = clusterPods(ns, cluster.node, 30_000);
        expect(sent.length).toBeGreaterThanOrEqual(20);
        cluster.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: sent }));
        const pods = await allRunning();
        expect(pods).toHaveLength(sent.length);
        expect(await hashMismatches(FROM)).toEqual([]);
        // Every container's hash differs between the two releases, so each kept run below can fail.
        const all = [...(await instances(pods)).keys()];
        expect(
          all.filter(
            (k) =>
              hashContainer(containerOf(pods, k), { kubeletVersion: TO }) ===
              hashContainer(containerOf(pods, k), { kubeletVersion: FROM }),
          ),
        ).toEqual([]);
      }, 900_000);

      it(`control plane ${from.release} → ${to.release} first: the ${FROM} kubelet keeps every container`, async () => {
        const before = running(await instances(served()));
        await cluster.upgradeControlPlane(to);
        expect(cluster.kubectlOk(['version', '-o', 'json'])).toContain(`"gitVersion": "v${to.release}"`);
        await sleep(SETTLE_MS);
        expect(ids(running(await instances(served())))).toEqual(ids(before));
        expect(await hashMismatches(FROM)).toEqual([]);
      }, 300_000);

      it(`kubelet stopped → kubectl get pods → plan --from ${FROM} --to ${TO} → apply → kubelet ${to.release} started: every container kept`, async () => {
        const pods = served();
        const before = running(await instances(pods));
        expect(before.size).toBeGreaterThanOrEqual(20);
        const dir = join(cluster.dir, 'crossing');
        mkdirSync(dir, { recursive: true });
        await cluster.stopNode();
        try {
          writeFileSync(join(dir, 'pods.json'), cluster.kubectlOk(['get', 'pods', '-A', '-o', 'json']));
          const counts = await planAndApply(dir, FROM, TO, 'upgrade');
          // Every running container is rewritten; init containers that ran to completion are kept.
          expect(counts).toMatchObject({ unknown: 0 });
          expect(counts.rewrite).toBeGreaterThanOrEqual(before.size);
        } finally {
          await cluster.startNode(to); // also after a failed step, so that the control finds a node
        }
        expect(cluster.kubeletRelease).toBe(to.release);
        const { after } = await watch(before, SETTLE_MS);
        expect(ids(after)).toEqual(ids(before));
        const statuses = served().flatMap((p) => (p.status.containerStatuses ?? []).map((s) => s.restartCount));
        expect(statuses.every((n) => n === 0)).toBe(true);
        expect(await hashMismatches(TO)).toEqual([]);
        const verified = await cli([
          'verify',
          // Probed pods: the restart's readiness flap (≤ 1.34) is known and accepted here; these judge the hash.
          '--accept-cause',
          'readiness-flap',
          '--kubelet',
          TO,
          '--pods',
          join(dir, 'pods.json'),
          '--containerd-root',
          cluster.runtime.root,
        ]);
        expect(verified.code).toBe(0);
      }, 600_000);

      it(`control: the node as ${FROM} left it, kubelet ${to.release} started without apply: it recreates every container`, async () => {
        const before = running(await instances(served()));
        const dir = join(cluster.dir, 'control');
        mkdirSync(dir, { recursive: true });
        await cluster.stopNode();
        try {
          writeFileSync(join(dir, 'pods.json'), cluster.kubectlOk(['get', 'pods', '-A', '-o', 'json']));
          const look = await planAndApply(dir, TO, FROM, 'look');
          expect(look.rewrite).toBeGreaterThanOrEqual(before.size);
        } finally {
          await cluster.startNode();
        }
        const { after, firstRecreatedMs } = await watch(before, 300_000, (n) => n === before.size);
        expect(firstRecreatedMs).toBeLessThan(SETTLE_MS);
        const recreated = [...before].filter(([k, b]) => after.get(k) && after.get(k)!.id !== b.id).map(([k]) => k);
        expect(recreated.sort()).toEqual([...before.keys()].sort());
      }, 600_000);
    },
    'API pods across the kubelet minor',
  );
}
