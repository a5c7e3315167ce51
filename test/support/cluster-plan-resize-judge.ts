/**
 * The real cluster (1.33+) judges `planUpgrade` reading `ContainerStatus.resources`: pods resized
 * through the `resize` subresource (one applied: a RestartContainer container restarted, a NotRequired
 * one resized in place; one deferred, so PodResizePending) are planned from the kubelet's release to
 * itself with the served pods and CRI's records. The served status resources (the real kubelet's own
 * Quantity spellings) equal the spec for the applied resize: `keep`, where the same pods without status
 * resources give `unknown`; the deferred one is `unknown`, naming the condition. Then the kubelet is
 * restarted: once it has synced again (a marker pod's image patch is applied), every `keep` container
 * runs on with the same CRI id.
 */
import { expect, it } from 'vitest';
import { planUpgrade } from '../../src/index.js';
import { apiGet, apiRequest } from './cluster-api.js';
import { CLUSTER_IMAGE, CLUSTER_IMAGE_2, type Cluster } from './cluster.js';
import type { CriContainer } from './containerd-daemon.js';

type Json = Record<string, unknown>;
interface ServedPod {
  metadata: { name: string; uid: string };
  spec: { containers: Json[] };
  status: {
    conditions?: { type: string; status: string }[];
    containerStatuses?: (Json & { name: string; state: Json; containerID?: string; resources?: Json })[];
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const STRATEGIC = 'application/strategic-merge-patch+json';
const resized = (name: string, cpuPolicy: string): Json => ({
  name,
  image: CLUSTER_IMAGE,
  command: ['/bin/sleep', '3600'],
  resizePolicy: [
    { resourceName: 'cpu', restartPolicy: cpuPolicy },
    { resourceName: 'memory', restartPolicy: 'NotRequired' },
  ],
  // Burstable (requests below limits), so that raising a limit keeps the QoS class.
  resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
});

/** The judge, for a cluster of `minor` ≥ 1.33; `cluster` is read when the test runs. */
export function clusterPlanResizeJudge(cluster: () => Cluster, minor: string): void {
  it(`plan at ${minor} reads ContainerStatus.resources: after a resize the kubelet applied, its containers are keep (unknown without the status resources), a deferred one unknown; a kubelet restart keeps every keep`, async () => {
    const c = cluster();
    const ns = await c.createNamespace('kh-plan-resize');
    const pod = (name: string, containers: Json[]) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: { nodeName: c.node, terminationGracePeriodSeconds: 1, automountServiceAccountToken: false, containers },
    });
    c.kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          pod('sized', [resized('r', 'RestartContainer'), resized('n', 'NotRequired')]),
          pod('deferred', [resized('r', 'RestartContainer')]),
          pod('marker', [{ name: 'm', image: CLUSTER_IMAGE, command: ['/bin/sleep', '3600'] }]),
        ],
      }),
    );
    const served = () => (apiGet(c, `/api/v1/namespaces/${ns}/pods`) as { items: ServedPod[] }).items;
    const byName = (name: string) => served().find((p) => p.metadata.name === name)!;
    /** CRI's containers of the namespace's pods, by `pod/container`: the newest instance. */
    const newest = async (): Promise<Map<string, CriContainer>> => {
      const names = new Map(served().map((p) => [p.metadata.uid, p.metadata.name]));
      const out = new Map<string, CriContainer>();
      for (const x of await c.runtime.criListContainers()) {
        const podName = names.get(x.labels['io.kubernetes.pod.uid'] ?? '');
        if (podName === undefined) continue;
        const k = `${podName}/${x.metadata.name}`;
        if (!out.has(k) || BigInt(x.created_at) > BigInt(out.get(k)!.created_at)) out.set(k, x);
      }
      return out;
    };
    const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + 240_000;
      for (;;) {
        const got = await probe();
        if (got !== undefined) return got;
        if (Date.now() > deadline || !c.kubelet.running)
          throw new Error(`no ${what} in 240 s\n${c.kubelet.log.slice(-3000)}`);
        await sleep(500);
      }
    };
    const runningAll = (p: ServedPod) =>
      (p.status.containerStatuses ?? []).length === p.spec.containers.length &&
      (p.status.containerStatuses ?? []).every((s) => 'running' in s.state);
    await until('the pods running', () => Promise.resolve(served().every(runningAll) ? true : undefined));
    const first = await newest();

    const resize = (name: string, containers: Json[]): void => {
      const r = apiRequest(
        c,
        'PATCH',
        `/api/v1/namespaces/${ns}/pods/${name}/resize`,
        JSON.stringify({ spec: { containers } }),
        STRATEGIC,
      );
      if (r.code !== 200) throw new Error(`resize ${name}: ${String(r.code)} ${r.body}`);
    };
    const raised = { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '150m', memory: '64Mi' } };
    resize('sized', [
      { name: 'r', resources: raised },
      { name: 'n', resources: raised },
    ]);
    // Within the node's 2 CPUs (the 1.37 apiserver refuses more) but more than the others leave free:
    // the kubelet defers it (PodResizePending, Deferred).
    resize('deferred', [
      { name: 'r', resources: { requests: { cpu: '1990m' }, limits: { cpu: '1990m', memory: '64Mi' } } },
    ]);
    const condition = (p: ServedPod, type: string) =>
      (p.status.conditions ?? []).some((x) => x.type === type && x.status === 'True');
    await until('the resize applied and the other pending', async () => {
      const sized = byName('sized');
      const cri = await newest();
      const applied =
        runningAll(sized) &&
        !condition(sized, 'PodResizeInProgress') &&
        !condition(sized, 'PodResizePending') &&
        cri.get('sized/r')?.id !== first.get('sized/r')?.id &&
        (sized.status.containerStatuses ?? []).every(
          (s) => s.containerID === `containerd://${cri.get(`sized/${s.name}`)?.id ?? ''}`,
        );
      return applied && condition(byName('deferred'), 'PodResizePending') ? true : undefined;
    });

    const pods = served();
    const cri = await newest();
    const records = [...cri.values()].map((x) =>
      JSON.stringify({ status: { id: x.id, metadata: x.metadata, labels: x.labels, annotations: x.annotations } }),
    );
    const verdicts = (items: unknown[]) =>
      Object.fromEntries(
        planUpgrade({ pods: items, records, from: minor, to: minor }).entries.map((e) => [
          `${e.podName ?? ''}/${e.containerName}`,
          e.action,
        ]),
      );
    const plan = verdicts(pods);
    const withoutResources = verdicts(
      pods.map((p) => ({
        ...p,
        status: { ...p.status, containerStatuses: p.status.containerStatuses?.map(({ resources: _, ...s }) => s) },
      })),
    );
    const served1 = byName('sized').status.containerStatuses!.map((s) => ({ name: s.name, resources: s.resources }));
    console.log(
      `plan resize judge ${minor}: plan ${JSON.stringify(plan)}; without status resources ${JSON.stringify(withoutResources)}; served ${JSON.stringify(served1)}`,
    );
    expect(plan).toEqual({ 'sized/r': 'keep', 'sized/n': 'keep', 'deferred/r': 'unknown', 'marker/m': 'keep' });
    expect(withoutResources['sized/r']).toBe('unknown');
    expect(withoutResources['deferred/r']).toBe('unknown');

    // The kubelet restarted: once it has applied an image patch of the marker pod it has synced.
    await c.kubelet.stop();
    await c.kubelet.start();
    await until('the kubelet seeing the pods', () => Promise.resolve(c.kubelet.sawPods('api') ? true : undefined));
    const patched = apiRequest(
      c,
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/marker`,
      JSON.stringify({ spec: { containers: [{ name: 'm', image: CLUSTER_IMAGE_2 }] } }),
      STRATEGIC,
    );
    if (patched.code !== 200) throw new Error(`marker: ${String(patched.code)} ${patched.body}`);
    const after = await until('the marker restarted', async () => {
      const now = await newest();
      return now.get('marker/m')?.id !== cri.get('marker/m')?.id && now.get('marker/m')?.state === 1 ? now : undefined;
    });
    const kept = Object.entries(plan)
      .filter(([k, action]) => action === 'keep' && k !== 'marker/m')
      .filter(([k]) => after.get(k)?.id !== cri.get(k)?.id);
    console.log(
      `plan resize judge ${minor}: after a kubelet restart ${String(Object.values(plan).filter((a) => a === 'keep').length - 1)} keep containers, ${String(kept.length)} restarted`,
    );
    expect(kept).toEqual([]);
  }, 600_000);
}
