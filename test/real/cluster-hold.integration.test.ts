/**
 * The window guard judged by a real one-node cluster (support/cluster.ts, 1.31.14 built from the Go
 * module proxy) whose controller manager runs the node lifecycle, taint eviction and EndpointSlice
 * controllers with `--node-monitor-grace-period=20s`; two pods behind a Service. The kubelet is
 * stopped for 60 s (three grace periods):
 * - with `kubelet-hash hold` (the built CLI, in the cluster's network namespace, with the kubelet's
 *   own kubeconfig): the node never turns Unknown, gets no taint, no pod turns NotReady, the
 *   EndpointSlice never changes; the guard hands over to the restarted kubelet and
 *   `hold-audit --after` exits 0;
 * - the control, without it: all four happen, and `hold-audit --after` exits 1 naming the node's
 *   Ready condition and each pod.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster, CLUSTER_IMAGE, type ClusterComponents } from '../support/cluster.js';
import { NetnsCli } from '../support/netns-cli.js';
import { describeReal, type FoundSystem } from '../support/real-systems.js';

const GRACE = '20s';
const DOWN_MS = 60_000;
const PODS = ['web-0', 'web-1'];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Condition {
  type: string;
  status: string;
}
interface ServedNode {
  spec: { taints?: { key: string; effect: string }[] };
  status: { conditions: Condition[] };
}
interface ServedPod {
  metadata: { name: string };
  status: { conditions?: Condition[] };
}
interface ServedSlice {
  endpoints?: { addresses: string[]; conditions: Record<string, unknown>; targetRef?: { name: string } }[];
}
type Json = Record<string, unknown>;

/** What the watcher saw while the kubelet was down. */
interface Seen {
  unknown: boolean;
  taints: Set<string>;
  notReadyPods: Set<string>;
  sliceChanged: boolean;
}

describeReal(
  [
    ['kubernetes', '1.31.14'],
    ['kubectl', '1.20.2'],
    ['containerd', '2.1.9'],
  ],
  (systems) => {
    const k8s = systems.get('kubernetes')!;
    const components: ClusterComponents = {
      release: k8s.version,
      apiserver: k8s.record['APISERVER']!,
      controllerManager: k8s.record['CONTROLLER_MANAGER']!,
      kubelet: k8s.record['KUBELET']!,
    };
    // The cluster record's keys, from the release's own record (its etcd) and kubectl's; the CNI
    // plugins are Debian's, where 60-kubernetes-modules.sh records them for its clusters too.
    const clusterSystem: FoundSystem = {
      ...k8s,
      record: {
        ...k8s.record,
        ETCD: k8s.record['ETCD']!,
        KUBECTL: systems.get('kubectl')!.bin,
        CNI_BIN_DIR: '/usr/lib/cni',
      },
    };
    let cluster: Cluster;
    let made: Cluster | undefined;
    let ns: string;

    /** The built CLI inside the cluster's namespace, as the node's kubelet would be run next to. */
    const runCli = (args: string[]) => cli.run(cluster.netns, args);
    const kubeconfig = (): string => join(cluster.dir, 'admin.kubeconfig'); // the kubelet's own

    const slices = (): string =>
      JSON.stringify(
        // kubectl 1.20 knows EndpointSlices only as v1beta1, which 1.25 removed: ask for v1 directly.
        (
          JSON.parse(
            cluster.kubectlOk([
              'get',
              '--raw',
              `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkh-hold`,
            ]),
          ) as { items: ServedSlice[] }
        ).items
          .flatMap((s) => s.endpoints ?? [])
          .map((e) => ({ addresses: e.addresses, conditions: e.conditions, pod: e.targetRef?.name }))
          .sort((a, b) => String(a.pod).localeCompare(String(b.pod))),
      );

    /** Watches node, taints, pods and the EndpointSlice every 2 s until `until` resolves. */
    async function watch(baseline: string, until: Promise<unknown>): Promise<Seen> {
      const seen: Seen = { unknown: false, taints: new Set(), notReadyPods: new Set(), sliceChanged: false };
      let done = false;
      void until.finally(() => (done = true));
      while (!done) {
        const node = cluster.getJson(['node', cluster.node]) as ServedNode;
        const ready = node.status.conditions.find((c) => c.type === 'Ready');
        if (ready?.status === 'Unknown') seen.unknown = true;
        for (const t of node.spec.taints ?? []) seen.taints.add(`${t.key}:${t.effect}`);
        for (const p of (cluster.getJson(['-n', ns, 'pods']) as { items: ServedPod[] }).items) {
          const c = (p.status.conditions ?? []).find((x) => x.type === 'Ready');
          if (c?.status !== 'True') seen.notReadyPods.add(p.metadata.name);
        }
        if (slices() !== baseline) seen.sliceChanged = true;
        await sleep(2000);
      }
      return seen;
    }

    /** Until the node is Ready without taints, every pod Ready and the slice as at the start. */
    async function settled(baseline: string): Promise<void> {
      const deadline = Date.now() + 180_000;
      for (;;) {
        const node = cluster.getJson(['node', cluster.node]) as ServedNode;
        const ready = node.status.conditions.find((c) => c.type === 'Ready');
        const pods = (cluster.getJson(['-n', ns, 'pods']) as { items: ServedPod[] }).items;
        const podsReady = pods.every(
          (p) => (p.status.conditions ?? []).find((x) => x.type === 'Ready')?.status === 'True',
        );
        if (ready?.status === 'True' && !node.spec.taints && podsReady && slices() === baseline) return;
        if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(node.spec)}\n${slices()}`);
        await sleep(2000);
      }
    }

    let baseline: string;

    // At collection, right after this run's globalSetup built dist/.
    const cli = new NetnsCli('hold');

    beforeAll(async () => {
      made = cluster = new Cluster({ cluster: clusterSystem, containerd: systems.get('containerd')! }, components, {
        controllers: ['node-lifecycle-controller', 'taint-eviction-controller', 'endpointslice-controller'],
        args: [`--node-monitor-grace-period=${GRACE}`],
      });
      await cluster.start();
      ns = await cluster.createNamespace('kh-hold');
      for (const name of PODS)
        cluster.kubectlOk(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: ns, labels: { app: 'kh-hold' } },
            spec: {
              nodeName: cluster.node,
              automountServiceAccountToken: false,
              terminationGracePeriodSeconds: 1,
              // What the DefaultTolerationSeconds admission plugin gives every pod (longer, so the
              // control's taint evicts nothing the audit would then only see as gone).
              tolerations: ['unreachable', 'not-ready'].map((k) => ({
                key: `node.kubernetes.io/${k}`,
                operator: 'Exists',
                effect: 'NoExecute',
                tolerationSeconds: 900,
              })),
              containers: [{ name: 'web', image: CLUSTER_IMAGE, command: ['sh', '-c', 'sleep 100000'] }],
            },
          }),
        );
      cluster.kubectlOk(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'kh-hold', namespace: ns },
          spec: { selector: { app: 'kh-hold' }, ports: [{ port: 80, targetPort: 8080 }] },
        }),
      );
      const deadline = Date.now() + 300_000;
      for (;;) {
        baseline = slices();
        const eps = JSON.parse(baseline) as { conditions: { ready?: boolean } }[];
        if (eps.length === PODS.length && eps.every((e) => e.conditions.ready === true)) break;
        if (Date.now() > deadline)
          throw new Error(`no ready EndpointSlice: ${baseline}\n${cluster.kubelet.log.slice(-2000)}`);
        await sleep(2000);
      }
    }, 900_000);

    afterAll(async () => {
      cli.remove();
      await made?.teardown();
    }, 120_000);

    it(`with hold: the kubelet down ${DOWN_MS / 1000} s under a ${GRACE} grace period — no Unknown, no taint, no pod NotReady, EndpointSlice unchanged; hold hands over; hold-audit exits 0`, async () => {
      // The 1.31 kubelet keeps a node Lease: wait until it exists, so the guard is judged renewing it
      // (one run found none right after the cluster came up, and the guard fell back to the status).
      const lease = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${cluster.node}`;
      const leaseBy = Date.now() + 120_000;
      while (cluster.kubectl(['get', '--raw', lease]).code !== 0) {
        if (Date.now() > leaseBy)
          throw new Error(`no node Lease ${lease} in 120 s:\n${cluster.kubelet.log.slice(-3000)}`);
        await sleep(2000);
      }
      await cluster.kubelet.stop();
      const snapshot = join(cluster.dir, 'hold-before.json');
      const held = runCli([
        'hold',
        '--node',
        cluster.node,
        '--kubeconfig',
        kubeconfig(),
        '--to',
        components.release,
        '--deadline',
        '5m',
        '--snapshot',
        snapshot,
        '--json',
      ]);
      const restarted = (async () => {
        await sleep(DOWN_MS);
        await cluster.kubelet.start();
        return held;
      })();
      const seen = await watch(
        baseline,
        restarted.then((h) => h),
      );
      const result = await held;
      expect({
        code: result.code,
        err: result.err
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join(''),
      }).toEqual({
        code: 0,
        err: '',
      });
      const summary = (JSON.parse(result.out) as { summary: Json }).summary;
      expect(summary).toMatchObject({
        mode: 'lease',
        outcome: 'handed-over',
        kubeletVersion: `v${components.release}`,
      });
      expect(summary['renewals']).toBeGreaterThanOrEqual(DOWN_MS / 10_000 - 1);
      expect({
        unknown: seen.unknown,
        taints: [...seen.taints],
        notReady: [...seen.notReadyPods],
        slice: seen.sliceChanged,
      }).toEqual({
        unknown: false,
        taints: [],
        notReady: [],
        slice: false,
      });
      await sleep(15_000); // the restarted kubelet's first status round
      const audit = await runCli([
        'hold-audit',
        '--node',
        cluster.node,
        '--kubeconfig',
        kubeconfig(),
        '--after',
        snapshot,
      ]);
      expect({ code: audit.code, out: audit.out, err: audit.err }).toMatchObject({ code: 0, err: '' });
      expect(audit.out).toMatch(/unchanged since/);
    }, 600_000);

    it(`control, without hold: the same window — the node turns Unknown and is tainted, every pod NotReady, the EndpointSlice changes; hold-audit exits 1 naming them`, async () => {
      await settled(baseline);
      const snapshot = join(cluster.dir, 'control-before.json');
      const taken = await runCli([
        'hold-audit',
        '--node',
        cluster.node,
        '--kubeconfig',
        kubeconfig(),
        '--out',
        snapshot,
      ]);
      expect({ code: taken.code, err: taken.err }).toEqual({ code: 0, err: '' });
      await cluster.kubelet.stop();
      const seen = await watch(
        baseline,
        (async () => {
          await sleep(DOWN_MS);
          await cluster.kubelet.start();
        })(),
      );
      expect({
        unknown: seen.unknown,
        unreachable: [...seen.taints].some((t) => t.startsWith('node.kubernetes.io/unreachable')),
        notReady: [...seen.notReadyPods].sort(),
        slice: seen.sliceChanged,
      }).toEqual({
        unknown: true,
        unreachable: true,
        notReady: PODS,
        slice: true,
      });
      await settled(baseline);
      const audit = await runCli([
        'hold-audit',
        '--node',
        cluster.node,
        '--kubeconfig',
        kubeconfig(),
        '--after',
        snapshot,
        '--json',
      ]);
      expect(audit.code).toBe(1);
      const rows = (JSON.parse(audit.out) as { rows: { kind: string; subject: string }[] }).rows;
      expect(rows).toContainEqual(
        expect.objectContaining({ kind: 'node-condition', subject: `node/${cluster.node} Ready` }),
      );
      for (const pod of PODS)
        expect(rows).toContainEqual(expect.objectContaining({ kind: 'pod-ready', subject: `pod ${ns}/${pod}` }));
    }, 600_000);
  },
  'the window guard: hold, and its control',
);
