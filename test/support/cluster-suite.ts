/**
 * A real one-node 1.20.2 cluster (support/cluster.ts) judges what happens in a cluster, on one
 * containerd release:
 * - defaulting: varied pods sent through the apiserver (its defaulting and the ServiceAccount
 *   admission plugin's token mount); for every container `applyApiserverDefaults` of what was sent
 *   equals what the apiserver stored (JSON, keys sorted), and the hash the kubelet stored in CRI
 *   equals `hashContainer` of both;
 * - a node upgrade with those pods: the node made to look as if 1.15, 1.16 or 1.19 had run them,
 *   then `kubectl get pods -A -o json` → `plan` → `apply` → the kubelet restarted keeps every
 *   container; the control run without `apply` recreates them;
 * - in-place patches (a controller's case): before each patch of a running pod `predictRestarts`
 *   says per container restart or keep; after the kubelet synced, the containers CRI runs (ids) and
 *   the restart counts the pod's status reports equal the prediction for every container;
 * - rollouts and Pod edits (support/cluster-rollout-judge.ts): predictRollout against the real
 *   controllers and the apiserver's Pod update rules;
 * - the pod-level decision without a spec change (support/cluster-pod-actions-judge.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stableStringify from 'fast-json-stable-stringify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyApiserverDefaults, hashContainer, predictRestarts } from '../../src/index.js';
import { cli } from './cli.js';
import { Cluster, CLUSTER_IMAGE, CLUSTER_IMAGE_2 } from './cluster.js';
import { fleetJudge } from './cluster-fleet-judge.js';
import { clusterPods, NO_TOKEN_ACCOUNT, patchPod, type ApiPod } from './cluster-pods.js';
import { clusterRolloutJudges } from './cluster-rollout-judge.js';
import { clusterPodActionsJudges } from './cluster-pod-actions-judge.js';
import type { CriContainer } from './containerd-daemon.js';
import { describeReal } from './real-systems.js';

const NEW = '1.20';
/**
 * The releases the node is made to look as if they had run the pods (with the library's hash of
 * that release: from 1.15 every container differs from 1.20, the go-spew era; from 1.19 none does).
 */
const OLDER = ['1.15', '1.16', '1.19'];
const LISTS = ['initContainers', 'containers'] as const;
type List = (typeof LISTS)[number];
const RUNNING = 1;
/**
 * How long a restarted kubelet gets to act on every pod once it has them from the apiserver
 * (syncFrequency is 5 s); the control checks that it starts recreating well within this.
 */
const SETTLE_MS = 30_000;

type Json = Record<string, unknown>;
interface ServedPod {
  metadata: { name: string; namespace: string; uid: string };
  spec: Json & { containers: Json[]; initContainers?: Json[] };
  status: {
    phase?: string;
    containerStatuses?: { name: string; restartCount: number; state: Json }[];
    initContainerStatuses?: { name: string; restartCount: number; state: Json }[];
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The suite on `containerd` (a release that serves CRI v1alpha2: 1.6 or 1.7). */
export function clusterSuite(containerd: string): void {
  describeReal(
    [
      ['cluster', '1.20.2'],
      ['containerd', containerd],
    ],
    (systems) => {
      let cluster: Cluster;
      let made: Cluster | undefined; // for afterAll, which runs also when beforeAll failed
      const sentPods = new Map<string, ApiPod>(); // namespace/name → the pod as sent

      const pods = (ns: string): ServedPod[] => (cluster.getJson(['-n', ns, 'pods']) as { items: ServedPod[] }).items;
      const allPods = (): ServedPod[] => (cluster.getJson(['pods', '-A']) as { items: ServedPod[] }).items;

      /** The newest CRI instance of every container, by `podUid/list/name`. */
      async function instances(served: readonly ServedPod[]): Promise<Map<string, CriContainer>> {
        const byUid = new Map(served.map((p) => [p.metadata.uid, p]));
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

      /** Waits until every pod of `ns` runs all its app containers (init containers done). */
      async function allRunning(ns: string, timeoutMs = 300_000): Promise<ServedPod[]> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const served = pods(ns);
          const waiting = served.filter(
            (p) =>
              p.status.phase !== 'Running' ||
              (p.status.containerStatuses ?? []).length !== p.spec.containers.length ||
              !(p.status.containerStatuses ?? []).every((s) => 'running' in s.state),
          );
          if (waiting.length === 0) return served;
          if (Date.now() > deadline || !cluster.kubelet.running)
            throw new Error(
              `pods not running: ${waiting.map((p) => `${p.metadata.name} ${JSON.stringify(p.status)}`).join('\n')}\n${cluster.kubelet.log.slice(-3000)}`,
            );
          await sleep(2000);
        }
      }

      const create = (items: readonly ApiPod[]): void => {
        for (const p of items) sentPods.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
        cluster.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      };

      beforeAll(async () => {
        made = cluster = new Cluster({ cluster: systems.get('cluster')!, containerd: systems.get('containerd')! });
        await cluster.start();
      }, 600_000);

      afterAll(async () => {
        await made?.teardown();
      }, 120_000);

      // First, on a node no other judge has touched yet; it leaves no record behind.
      fleetJudge(() => cluster);

      it('defaulting: for every container of 41 varied pods sent through the apiserver, applyApiserverDefaults equals what it stored, and the kubelet stored hashContainer of both', async () => {
        const ns = await cluster.createNamespace('kh-defaults');
        cluster.kubectlOk(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: { name: NO_TOKEN_ACCOUNT, namespace: ns },
            automountServiceAccountToken: false,
          }),
        );
        const tokens = new Map([
          ['default', await cluster.serviceAccountToken(ns, 'default')],
          [NO_TOKEN_ACCOUNT, await cluster.serviceAccountToken(ns, NO_TOKEN_ACCOUNT)],
        ]);
        const sent = clusterPods(ns, cluster.node, 30_000);
        expect(sent.length).toBeGreaterThanOrEqual(40);
        create(sent);
        const served = await allRunning(ns);
        const cri = await instances(served);
        const differences: unknown[] = [];
        let containers = 0;
        for (const pod of served) {
          const mine = sentPods.get(`${ns}/${pod.metadata.name}`)!;
          const account = (mine.spec.serviceAccountName as string | undefined) ?? 'default';
          const automount =
            (mine.spec.automountServiceAccountToken as boolean | undefined) ?? account !== NO_TOKEN_ACCOUNT;
          for (const list of LISTS) {
            for (const c of mine.spec[list] ?? []) {
              containers++;
              const predicted = applyApiserverDefaults(c, {
                kubeletVersion: NEW,
                podSpec: mine.spec,
                list,
                ...(automount ? { tokenVolume: tokens.get(account)! } : {}),
              });
              const stored = pod.spec[list]!.find((s) => s.name === c.name)!;
              const at = `${pod.metadata.name}/${list}/${String(c.name)}`;
              // The JSON as it is, keys sorted (applyApiserverDefaults gives the stored form); per key when it differs.
              if (stableStringify(predicted) !== stableStringify(stored))
                for (const key of new Set([...Object.keys(predicted), ...Object.keys(stored)]))
                  if (stableStringify(predicted[key]) !== stableStringify(stored[key]))
                    differences.push({
                      at,
                      key,
                      predicted: predicted[key] ?? '(absent)',
                      stored: stored[key] ?? '(absent)',
                    });
              const kubelet = cri.get(`${pod.metadata.uid}/${list}/${String(c.name)}`)?.annotations[
                'io.kubernetes.container.hash'
              ];
              const hashes = {
                at,
                kubelet,
                stored: hashContainer(stored, { kubeletVersion: NEW }),
                library: hashContainer(predicted, { kubeletVersion: NEW }),
              };
              if (hashes.kubelet !== hashes.stored || hashes.stored !== hashes.library) differences.push(hashes);
            }
          }
        }
        expect(differences).toEqual([]);
        expect(containers).toBeGreaterThanOrEqual(60);
      }, 600_000);

      const running = (cri: Map<string, CriContainer>): Map<string, CriContainer> =>
        new Map([...cri].filter(([k, c]) => k.includes('/containers/') && c.state === RUNNING));

      async function planAndApply(
        dir: string,
        from: string,
        to: string,
        name: string,
      ): Promise<Record<string, number>> {
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

      /** Waits until the (restarted) kubelet logged the apiserver's pods: `SyncLoop (ADD, "api")` at --v=2. */
      async function kubeletHasPods(): Promise<void> {
        // 300 s: a loaded CI machine once kept the restarted 1.20 kubelet's runtime-dependent
        // start (cAdvisor, container manager) past 120 s, with pod sync skipped meanwhile.
        const deadline = Date.now() + 300_000;
        while (!cluster.kubelet.sawPods('api')) {
          if (Date.now() > deadline || !cluster.kubelet.running)
            throw new Error(
              `the kubelet did not get the pods from the apiserver:\n${cluster.kubelet.log.slice(-3000)}`,
            );
          await sleep(200);
        }
      }

      /** The node made to look as if `old` had run the pods, then upgraded to 1.20 (with or without `apply`) and restarted. */
      async function upgradeFrom(old: string, withApply: boolean) {
        const served = allPods();
        const before = running(await instances(served));
        const dir = join(cluster.dir, `upgrade-${old}-${String(withApply)}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'pods.json'), cluster.kubectlOk(['get', 'pods', '-A', '-o', 'json']));
        const containerOf = (key: string): Json => {
          const [uid, list, name] = key.split('/') as [string, List, string];
          const pod = served.find((p) => p.metadata.uid === uid)!;
          return pod.spec[list]!.find((c) => c.name === name)!;
        };
        const changed = [...before.keys()].filter(
          (k) =>
            hashContainer(containerOf(k), { kubeletVersion: old }) !==
            hashContainer(containerOf(k), { kubeletVersion: NEW }),
        );
        await cluster.stopNode();
        try {
          const look = await planAndApply(dir, NEW, old, 'look');
          expect(look.rewrite ?? 0).toBeGreaterThanOrEqual(changed.length);
          if (withApply) {
            const up = await planAndApply(dir, old, NEW, 'upgrade');
            expect(up).toMatchObject({ rewrite: look.rewrite, unknown: 0 });
          }
        } finally {
          await cluster.startNode(); // also after a failed step, so that the next test finds a node
        }
        // The window opens when the restarted kubelet has the pods from the apiserver: starting up can
        // take longer than the window itself on a loaded machine, which would make a kept run vacuous.
        await kubeletHasPods();
        const started = Date.now();
        const deadline = started + (withApply ? SETTLE_MS : 240_000);
        let after = running(await instances(allPods()));
        let firstRecreatedMs: number | undefined;
        while (Date.now() < deadline) {
          await sleep(1000);
          after = running(await instances(allPods()));
          const recreated = changed.filter((k) => after.get(k) && after.get(k)!.id !== before.get(k)!.id);
          if (recreated.length > 0) firstRecreatedMs ??= Date.now() - started;
          if (!withApply && recreated.length === changed.length) break;
        }
        return { before, after, changed, firstRecreatedMs };
      }

      for (const old of OLDER) {
        it(`node upgrade with apiserver pods: as if run by ${old}; kubectl get pods → plan --from ${old} --to 1.20 → apply → kubelet restarted: every container kept`, async () => {
          const { before, after } = await upgradeFrom(old, true);
          expect(before.size).toBeGreaterThanOrEqual(50);
          const kept = [...before.keys()].map((k) => ({
            k,
            id: after.get(k)?.id,
            attempt: after.get(k)?.metadata.attempt,
          }));
          expect(kept).toEqual([...before].map(([k, b]) => ({ k, id: b.id, attempt: b.metadata.attempt })));
        }, 600_000);
      }

      it('node upgrade control: the same from 1.15 without apply: the kubelet recreates every container', async () => {
        const { before, after, changed, firstRecreatedMs } = await upgradeFrom('1.15', false);
        expect(changed.length).toBe(before.size);
        // The kept runs watch for SETTLE_MS after the kubelet had the pods; it starts recreating far sooner.
        expect(firstRecreatedMs).toBeLessThan(SETTLE_MS);
        const recreated = changed.filter((k) => after.get(k) !== undefined && after.get(k)!.id !== before.get(k)!.id);
        expect(recreated).toEqual(changed);
      }, 600_000);

      it('in-place patches: for 34 patches of running pods, predictRestarts says exactly which containers the kubelet restarts', async () => {
        const ns = await cluster.createNamespace('kh-patch');
        const shapes: [number, number, boolean][] = [
          [1, 0, false],
          [2, 0, false],
          [2, 1, false],
          [3, 0, true],
          [1, 1, true],
          [3, 2, false],
          [2, 0, true],
          [1, 0, false],
          [2, 1, false],
          [3, 0, false],
        ];
        const sent = shapes.map(([c, i, h], k) => patchPod(ns, cluster.node, `patch-${String(k)}`, c, i, h));
        create(sent);
        await allRunning(ns);
        const flip = (image: unknown): string => (image === CLUSTER_IMAGE ? CLUSTER_IMAGE_2 : CLUSTER_IMAGE);
        /** The patch of kind `kind` for `pod` (strategic merge, as a controller sends it). */
        const patchOf = (pod: ServedPod, kind: number, round: number): Json => {
          const cs = pod.spec.containers;
          const inits = pod.spec.initContainers ?? [];
          switch (kind % 10) {
            case 0:
              return { spec: { containers: [{ name: cs[0]!.name, image: flip(cs[0]!.image) }] } };
            case 1:
              return { spec: { containers: cs.map((c) => ({ name: c.name, image: flip(c.image) })) } };
            case 2:
              return inits.length
                ? { spec: { initContainers: [{ name: inits[0]!.name, image: flip(inits[0]!.image) }] } }
                : { spec: { containers: [{ name: cs.at(-1)!.name, image: flip(cs.at(-1)!.image) }] } };
            case 3:
              return {
                spec: { activeDeadlineSeconds: ((pod.spec.activeDeadlineSeconds as number | undefined) ?? 86_401) - 1 },
              };
            case 4:
              return {
                spec: {
                  tolerations: [
                    ...((pod.spec.tolerations as Json[] | undefined) ?? []),
                    { key: `kh/round-${String(round)}`, operator: 'Exists', effect: 'NoSchedule' },
                  ],
                },
              };
            case 5:
              return { metadata: { labels: { round: String(round) } } };
            case 6:
              return { metadata: { annotations: { 'kh/note': `round ${String(round)}` } } };
            case 7:
              return {
                metadata: { labels: { step: String(round) } },
                spec: { containers: [{ name: cs.at(-1)!.name, image: flip(cs.at(-1)!.image) }] },
              };
            case 8:
              return {
                spec: {
                  containers: [{ name: cs[0]!.name, image: flip(cs[0]!.image) }],
                  ...(inits.length
                    ? { initContainers: inits.map((c) => ({ name: c.name, image: flip(c.image) })) }
                    : {}),
                },
              };
            default:
              return {
                spec: {
                  tolerations: [
                    ...((pod.spec.tolerations as Json[] | undefined) ?? []),
                    {
                      key: `kh/t-${String(round)}`,
                      operator: 'Equal',
                      value: 'v',
                      effect: 'NoExecute',
                      tolerationSeconds: 3600,
                    },
                  ],
                },
              };
          }
        };
        const comparisons: { at: string; predicted: string; observed: string }[] = [];
        let patches = 0;
        for (let round = 0; round < 4; round++) {
          const before = pods(ns);
          const beforeCri = await instances(before);
          const predictions = new Map<string, string>();
          for (const [k, pod] of before.entries()) {
            if (round === 3 && k >= 4) break; // 3 full rounds and 4 more: 34 patches
            const patch = JSON.stringify(patchOf(pod, k + round, round));
            const args = ['-n', ns, 'patch', 'pod', pod.metadata.name, '--type', 'strategic', '-p', patch];
            const next = JSON.parse(cluster.kubectlOk([...args, '--dry-run=server', '-o', 'json'])) as ServedPod;
            const prediction = predictRestarts(pod, next, { kubeletVersion: NEW, podStatus: pod.status });
            for (const c of prediction.containers) predictions.set(`${pod.metadata.uid}/${c.list}/${c.name}`, c.action);
            cluster.kubectlOk(args);
            patches++;
          }
          // Wait for the predicted restarts, then give the kubelet time to do anything else.
          const deadline = Date.now() + 120_000;
          for (;;) {
            const now = await instances(pods(ns));
            const pending = [...predictions].filter(
              ([k, a]) => a === 'restart' && now.get(k)?.id === beforeCri.get(k)?.id,
            );
            if (pending.length === 0 || Date.now() > deadline) break;
            await sleep(1000);
          }
          await sleep(8000);
          const afterCri = await instances(pods(ns));
          // The pod status catches up with CRI: wait until every restartCount agrees with what CRI shows.
          let after = pods(ns);
          const statusOf = (p: ServedPod, list: List, name: string) =>
            (list === 'containers' ? p.status.containerStatuses : p.status.initContainerStatuses)?.find(
              (s) => s.name === name,
            );
          for (let i = 0; i < 30; i++) {
            const lagging = after.some((p) =>
              p.spec.containers.some((c) => {
                const inst = afterCri.get(`${p.metadata.uid}/containers/${String(c.name)}`);
                return (
                  inst !== undefined &&
                  statusOf(p, 'containers', String(c.name))?.restartCount !== inst.metadata.attempt
                );
              }),
            );
            if (!lagging) break;
            await sleep(1000);
            after = pods(ns);
          }
          for (const [key, predicted] of predictions) {
            const [uid, list, name] = key.split('/') as [string, List, string];
            const podBefore = before.find((p) => p.metadata.uid === uid)!;
            const podAfter = after.find((p) => p.metadata.uid === uid)!;
            const restartedCri = afterCri.get(key)?.id !== beforeCri.get(key)?.id;
            const countBefore = statusOf(podBefore, list, name)?.restartCount;
            const countAfter = statusOf(podAfter, list, name)?.restartCount;
            const restartedStatus = countAfter !== countBefore;
            const observed =
              restartedCri && restartedStatus
                ? 'restart'
                : !restartedCri && !restartedStatus
                  ? 'keep'
                  : `cri ${String(restartedCri)}, restartCount ${String(countBefore)}→${String(countAfter)}`;
            comparisons.push({
              at: `round ${String(round)} ${podBefore.metadata.name}/${list}/${name}`,
              predicted,
              observed,
            });
          }
        }
        expect(patches).toBeGreaterThanOrEqual(30);
        expect(comparisons.filter((c) => c.predicted !== c.observed)).toEqual([]);
        expect(comparisons.some((c) => c.observed === 'restart')).toBe(true);
        expect(comparisons.some((c) => c.observed === 'keep')).toBe(true);
      }, 900_000);

      // The apiserver's Pod rules and the native controllers, judged against predictRollout.
      clusterRolloutJudges(() => cluster);
      clusterPodActionsJudges(() => cluster, '1.20');
    },
    'apiserver pods: defaulting, node upgrade, in-place patches, rollouts and Pod edits',
  );
}
