/**
 * A real OpenKruise judges `predictRollout` on CloneSet and Advanced StatefulSet edits
 * (support/openkruise-judge.ts: kruise-manager and kruise-daemon v1.8.2 from the Go module proxy, in a
 * one-node cluster of the 1.30.14 components). Each edit is made with kubectl on the served workload;
 * the library is asked about the workload as the apiserver stored it before and after (defaulted by
 * Kruise's own webhook); then what happened to the pods is read back: pod UIDs (kept: in place; all
 * new: recreated; the named ones gone: deleted) and, per container, its ID and restart count
 * (restarted or kept), and the pods' InPlaceUpdateReady. On both kinds:
 * - a new image (another digest): in place, that container restarted by the kubelet;
 * - a label that a container's env reads (InPlaceUpdateEnvFromMetadata, on by default in v1.8): in
 *   place, that container restarted by kruise-daemon while the kubelet keeps every container;
 * - another template field (an env value): recreated;
 * - `scaleStrategy.podsToDelete` (CloneSet), replicas lowered (Advanced StatefulSet): those pods
 *   deleted, the other kept;
 * - resources, with Kruise's InPlaceWorkloadVerticalScaling and Kubernetes' InPlacePodVerticalScaling
 *   on (alpha in both; pod cgroups for the kubelet's resize), on a CloneSet and an Advanced
 *   StatefulSet whose containers differ in resizePolicy: a replaced cpu or memory value is patched
 *   into the pods in place, the kubelet resizes (the pod's spec and its status' resources take the
 *   new values) and restarts only a container whose changed resource says RestartContainer; a removed
 *   limit or a QoS change recreates the pods (pkg/util/inplaceupdate/inplace_update_vertical.go:75,
 *   inplace_update_defaults.go:340 (v1.8.2));
 * - issue 39 item 5, OpenKruise's own readiness check (openkruise/kruise#2297): a tag changed to
 *   another of the same image. Kruise 1.8 compares the hash kruise-daemon reads from the runtime with
 *   its vendored 1.30 HashContainer, else falls back to image IDs. On the 1.30 kubelet the hashes
 *   match and InPlaceUpdateReady turns true; after the node crosses to 1.31 they do not, the image ID
 *   did not change, and InPlaceUpdateReady stays false — each as `kruiseReadiness` predicts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { predictRollout, type RolloutPrediction } from '../../src/index.js';
import { buildBusyboxImage } from '../support/busybox-image.js';
import { Cluster, CLUSTER_IMAGE, type ClusterComponents } from '../support/cluster.js';
import { Kruise } from '../support/openkruise-judge.js';
import { describeReal } from '../support/real-systems.js';

const KRUISE = '1.8.2';
/** An image of another digest than CLUSTER_IMAGE, and two more tags of it (same digest). */
const IMAGE_B = 'kubelet-hash.local/busybox-b:1';
const IMAGE_B_TAG_2 = 'kubelet-hash.local/busybox-b:2';
const IMAGE_B_TAG_3 = 'kubelet-hash.local/busybox-b:3';
/** The gates the cluster and Kruise run with, and predict is told of: resources resize in place. */
const KUBE_GATES = { InPlacePodVerticalScaling: true } as const;
const KRUISE_GATES = { InPlaceWorkloadVerticalScaling: true } as const;
/** How long an update that predict says never reads as done is watched. */
const NEVER_READY_WATCH_MS = 45_000;

type Json = Record<string, unknown>;
interface Workload {
  /** kubectl's resource, with its group (the Advanced StatefulSet is not apps/v1's). */
  resource: string;
  name: string;
}
const CLONESET: Workload = { resource: 'cloneset.apps.kruise.io', name: 'web' };
const ASTS: Workload = { resource: 'statefulset.apps.kruise.io', name: 'db' };
/** The workloads whose containers have resources (the vertical-scaling steps). */
const CLONESET_SIZED: Workload = { resource: 'cloneset.apps.kruise.io', name: 'sized' };
const ASTS_SIZED: Workload = { resource: 'statefulset.apps.kruise.io', name: 'sized-db' };

/** The pod template of both workloads: `side`'s env reads the label `ver`. */
function podTemplate(app: string, node: string): Json {
  // Kruise's webhook defaults imagePullPolicy to Always (apis/apps/defaults/pod.go): the images are local.
  const sleeper = { command: ['/bin/sleep', '3600'], imagePullPolicy: 'IfNotPresent' };
  return {
    metadata: { labels: { app, ver: '1' } },
    spec: {
      nodeName: node,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      // Kruise's in-place readiness gate, which the Advanced StatefulSet's docs ask for in the template.
      readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
      containers: [
        { name: 'app', image: CLUSTER_IMAGE, ...sleeper },
        {
          name: 'side',
          image: CLUSTER_IMAGE,
          ...sleeper,
          env: [{ name: 'VER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['ver']" } } }],
        },
      ],
    },
  };
}
/**
 * Burstable containers: `app` resizes both resources without a restart, `side` restarts for memory
 * (its cpu is NotRequired).
 */
function sizedTemplate(app: string, node: string): Json {
  const t = podTemplate(app, node);
  const resources = { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '20m', memory: '64Mi' } };
  const policy = (memory: string) => [
    { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    { resourceName: 'memory', restartPolicy: memory },
  ];
  const [app0, side] = (t.spec as { containers: Json[] }).containers;
  (t.spec as Json).containers = [
    { ...app0, resources, resizePolicy: policy('NotRequired') },
    { ...side, resources, resizePolicy: policy('RestartContainer') },
  ];
  return t;
}

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };
interface ServedPod {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: { name: string; image: string; resources?: Resources }[] };
  status: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      containerID?: string;
      imageID: string;
      image: string;
      restartCount: number;
      state: Json;
      resources?: Resources;
    }[];
    resize?: string;
  };
}
interface Observed {
  verdict: string;
  restarted: string[];
  deleted: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describeReal(
  [
    ['openkruise', KRUISE],
    ['cluster', '1.30.14-1.31.14'],
    ['containerd', '1.7.24'],
  ],
  (systems) => {
    const record = systems.get('cluster')!.record;
    // Webhooks are reached through our Endpoints: there is no kube-proxy for the ClusterIP.
    // InPlacePodVerticalScaling (alpha on 1.30 and 1.31) on the apiserver, for Kruise's resource
    // patch of a pod, and on the kubelet, which resizes.
    const release = (side: 'FROM' | 'TO'): ClusterComponents => ({
      release: record[`${side}_RELEASE`]!,
      apiserver: record[`${side}_APISERVER`]!,
      controllerManager: record[`${side}_CONTROLLER_MANAGER`]!,
      kubelet: record[`${side}_KUBELET`]!,
      apiserverFlags: ['--enable-aggregator-routing=true', '--feature-gates=InPlacePodVerticalScaling=true'],
      kubeletFeatureGates: KUBE_GATES,
    });
    const from = release('FROM');
    const to = release('TO');
    let cluster: Cluster;
    let made: Cluster | undefined;
    let kruise: Kruise | undefined;
    let ns: string;
    let kubeletMinor = '';
    /** The steps build on each other: after a failed one, the rest fail at once instead of waiting out their timeouts. */
    let broken = '';
    const step = (name: string, body: () => Promise<void>, timeout: number): void => {
      it(
        name,
        async () => {
          if (broken) throw new Error(`not run: an earlier step failed (${broken})`);
          try {
            await body();
          } catch (e) {
            broken = name;
            throw e;
          }
        },
        timeout,
      );
    };

    /** The workload the steps edit now (its pods carry `app: NAME`). */
    let on: Workload = CLONESET;
    const workload = (): Json => cluster.getJson(['-n', ns, on.resource, on.name]) as Json;
    const pods = (): ServedPod[] =>
      (cluster.getJson(['-n', ns, 'pods', '-l', `app=${on.name}`]) as { items: ServedPod[] }).items.sort((a, b) =>
        a.metadata.name < b.metadata.name ? -1 : 1,
      );
    const replicas = (w: Json): number => Number((w.spec as Json).replicas);
    const condition = (p: ServedPod, type: string): string | undefined =>
      p.status.conditions?.find((c) => c.type === type)?.status;
    const allRunning = (ps: ServedPod[], n = replicas(workload())): boolean =>
      ps.length === n &&
      ps.every(
        (p) =>
          p.status.phase === 'Running' &&
          (p.status.containerStatuses ?? []).length === p.spec.containers.length &&
          (p.status.containerStatuses ?? []).every((s) => 'running' in s.state),
      );

    /** Until `done` holds for the workload and its pods; throws with Kruise's logs otherwise. */
    async function until(
      what: string,
      done: (cs: Json, ps: ServedPod[]) => boolean,
      ms = 240_000,
    ): Promise<ServedPod[]> {
      const deadline = Date.now() + ms;
      for (;;) {
        const ps = pods();
        if (done(workload(), ps)) return ps;
        if (Date.now() > deadline || !kruise?.running)
          throw new Error(`no ${what}: ${JSON.stringify(ps.map((p) => p.status))}\n${kruise?.logs() ?? ''}`);
        await sleep(2000);
      }
    }
    /** The workload's update finished: every replica updated and ready (ready needs InPlaceUpdateReady). */
    const rolledOut = (w: Json, ps: ServedPod[]): boolean => {
      const s = (w.status ?? {}) as Json;
      const meta = w.metadata as Json;
      const n = replicas(w);
      return (
        s.observedGeneration === meta.generation &&
        s.updatedReplicas === n &&
        s.updatedReadyReplicas === n &&
        allRunning(ps, n) &&
        ps.every((p) => condition(p, 'Ready') === 'True')
      );
    };

    const containerIds = (ps: ServedPod[]): Map<string, string> =>
      new Map(
        ps.flatMap((p) =>
          (p.status.containerStatuses ?? []).map((s) => [`${p.metadata.uid}/${s.name}`, s.containerID ?? ''] as const),
        ),
      );

    /** What happened between two views of the pods. */
    function observe(before: ServedPod[], after: ServedPod[]): Observed {
      const uidsAfter = new Set(after.map((p) => p.metadata.uid));
      const gone = before.filter((p) => !uidsAfter.has(p.metadata.uid)).map((p) => p.metadata.name);
      const verdict = gone.length === 0 ? 'in-place' : gone.length === before.length ? 'replaced' : 'delete';
      const idsAfter = containerIds(after);
      const restarted = new Set<string>();
      for (const [key, id] of containerIds(before)) {
        const now = idsAfter.get(key);
        if (now !== undefined && now !== id) restarted.add(key.split('/')[1]!);
      }
      // A restart in place is also counted by the kubelet, on the same pod.
      for (const p of after)
        for (const s of p.status.containerStatuses ?? []) {
          const was = before
            .find((b) => b.metadata.uid === p.metadata.uid)
            ?.status.containerStatuses?.find((b) => b.name === s.name);
          if (was && restarted.has(s.name)) expect(s.restartCount).toBe(was.restartCount + 1);
        }
      return { verdict, restarted: [...restarted].sort(), deleted: verdict === 'delete' ? gone.sort() : [] };
    }

    /** The library's answer in the same terms. */
    function predicted(p: RolloutPrediction): Observed {
      const restarted = new Set<string>(p.controllerRestarts.map((r) => r.name));
      for (const c of p.kubelet?.containers ?? []) if (c.action === 'restart') restarted.add(c.name);
      return {
        verdict: p.verdict,
        restarted: p.verdict === 'in-place' ? [...restarted].sort() : [],
        deleted: p.verdict === 'delete' ? [...(p.podNames ?? [])].sort() : [],
      };
    }

    /**
     * Applies `patch` to the workload (a JSON patch when an array: a merge patch of a custom resource
     * replaces whole lists); returns the library's prediction for the objects served before and after.
     */
    function edit(patch: Json | Json[]): RolloutPrediction {
      const before = workload();
      const type = Array.isArray(patch) ? 'json' : 'merge';
      // The object as the patch stored it: a read after it can already show the controller's own
      // edits (it truncates podsToDelete once those pods are gone).
      const after = JSON.parse(
        cluster.kubectlOk([
          '-n',
          ns,
          'patch',
          on.resource,
          on.name,
          '--type',
          type,
          '-p',
          JSON.stringify(patch),
          '-o',
          'json',
        ]),
      ) as Json;
      return predictRollout(before, after, {
        kubeletVersion: kubeletMinor,
        featureGates: KUBE_GATES,
        openKruise: { version: `v${KRUISE}`, featureGates: KRUISE_GATES },
      });
    }
    const setImage = (image: string): Json[] => [
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: image },
    ];

    beforeAll(async () => {
      // Pod cgroups: the kubelet resizes through them.
      made = cluster = new Cluster({ cluster: systems.get('cluster')!, containerd: systems.get('containerd')! }, from, {
        podCgroups: true,
      });
      await cluster.start();
      kubeletMinor = from.release.split('.').slice(0, 2).join('.');
      const busybox = systems.get('containerd')!.record.BUSYBOX!;
      cluster.runtime.importImage(buildBusyboxImage(`${cluster.dir}/image-b`, busybox, IMAGE_B, 'b'));
      for (const tag of [IMAGE_B_TAG_2, IMAGE_B_TAG_3])
        cluster.runtime.ctr(['-n', 'k8s.io', 'images', 'tag', IMAGE_B, tag]);
      kruise = new Kruise(cluster, systems.get('openkruise')!.record, KRUISE_GATES);
      await kruise.start();
      ns = await cluster.createNamespace('kh-kruise');
    }, 900_000);

    afterAll(async () => {
      await kruise?.stop();
      await made?.teardown();
    }, 180_000);

    /** Creates the workload `w` (spec besides the template) and waits until its pods run. */
    async function create(w: Workload, kind: Json, spec: Json, template = podTemplate): Promise<void> {
      on = w;
      cluster.kubectlOk(
        ['create', '-f', '-'],
        JSON.stringify({
          ...kind,
          metadata: { name: w.name, namespace: ns },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: w.name } },
            template: template(w.name, cluster.node),
            ...spec,
          },
        }),
      );
      const ps = await until('pods running', rolledOut);
      // Kruise's readiness gate is on every pod: ready means InPlaceUpdateReady too.
      expect(ps.map((p) => condition(p, 'InPlaceUpdateReady'))).toEqual(['True', 'True']);
    }

    async function newImage(): Promise<void> {
      const before = pods();
      const p = edit(setImage(IMAGE_B));
      expect(p.verdict).toBe('in-place');
      const after = await until('the image rolled out', rolledOut);
      expect(observe(before, after)).toEqual(predicted(p));
      expect(predicted(p).restarted).toEqual(['app']);
    }

    async function labelEnvReads(): Promise<void> {
      const before = pods();
      const p = edit([{ op: 'replace', path: '/spec/template/metadata/labels/ver', value: '2' }]);
      expect(p.controllerRestarts.map((r) => r.name)).toEqual(['side']);
      // Kruise reads the pods as updated only once kruise-daemon saw the env hash it expects (after
      // restarting the container): a finished rollout is the whole story, and nothing else restarts.
      const after = await until(
        'the label rolled out',
        (w, ps) => rolledOut(w, ps) && ps.every((x) => x.metadata.labels?.ver === '2'),
      );
      expect(observe(before, after)).toEqual(predicted(p));
    }

    async function envValueAdded(): Promise<void> {
      const before = pods();
      const p = edit([
        { op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'MODE', value: 'b' }] },
      ]);
      const uids = new Set(before.map((x) => x.metadata.uid));
      const after = await until(
        'the pods recreated',
        (w, ps) => rolledOut(w, ps) && ps.every((x) => !uids.has(x.metadata.uid)),
      );
      expect(observe(before, after)).toEqual(predicted(p));
      expect(p.verdict).toBe('replaced');
    }

    step(
      'a CloneSet created through the real webhook runs its pods',
      () =>
        create(
          CLONESET,
          { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
          { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' } },
        ),
      300_000,
    );
    step('CloneSet, a new image (another digest): in place, the container restarted, as predicted', newImage, 300_000);
    step(
      'CloneSet, a label an env reads (InPlaceUpdateEnvFromMetadata): in place, kruise-daemon restarts that container, as predicted',
      labelEnvReads,
      400_000,
    );
    step('CloneSet, another template field (an env value): recreated, as predicted', envValueAdded, 400_000);
    step(
      'CloneSet, scaleStrategy.podsToDelete: that pod deleted, the other kept, as predicted (delete, exit 1)',
      async () => {
        const before = pods();
        const victim = before[0]!.metadata.name;
        const p = edit({ spec: { scaleStrategy: { podsToDelete: [victim] } } });
        expect([p.verdict, p.exitCode, p.podNames]).toEqual(['delete', 1, [victim]]);
        const after = await until(
          'the pod replaced',
          (w, ps) => rolledOut(w, ps) && !ps.some((x) => x.metadata.name === victim),
        );
        expect(observe(before, after)).toEqual(predicted(p));
      },
      400_000,
    );

    step(
      'an Advanced StatefulSet created through the real webhook runs its pods',
      () =>
        create(
          ASTS,
          { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' },
          {
            serviceName: ASTS.name,
            podManagementPolicy: 'Parallel',
            updateStrategy: {
              type: 'RollingUpdate',
              rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', maxUnavailable: '100%' },
            },
          },
        ),
      300_000,
    );
    step('Advanced StatefulSet, a new image: in place, the container restarted, as predicted', newImage, 300_000);
    step(
      'Advanced StatefulSet, a label an env reads: in place, kruise-daemon restarts that container, as predicted',
      labelEnvReads,
      400_000,
    );
    step('Advanced StatefulSet, an env value: recreated, as predicted', envValueAdded, 400_000);
    step(
      'Advanced StatefulSet, replicas 2 → 1: the highest ordinal deleted, as predicted (delete, exit 1)',
      async () => {
        const before = pods();
        const p = edit({ spec: { replicas: 1 } });
        expect([p.verdict, p.exitCode, p.podNames]).toEqual(['delete', 1, [`${ASTS.name}-1`]]);
        const after = await until('the pod deleted', rolledOut);
        expect(observe(before, after)).toEqual(predicted(p));
        on = CLONESET;
      },
      400_000,
    );

    /** Per pod, each container's resources as its spec says and as the kubelet applied them (status). */
    const applied = (ps: ServedPod[]): Json[] =>
      ps.map((x) => ({
        spec: Object.fromEntries(x.spec.containers.map((c) => [c.name, c.resources])),
        status: Object.fromEntries((x.status.containerStatuses ?? []).map((c) => [c.name, c.resources])),
      }));
    /** What every pod should run with: the served template's resources, in the spec and applied. */
    const templateResources = (w: Json): Json => {
      const cs = (((w.spec as Json).template as Json).spec as { containers: { name: string; resources: Resources }[] })
        .containers;
      const byName = Object.fromEntries(cs.map((c) => [c.name, c.resources]));
      return { spec: byName, status: byName };
    };
    const resource = (container: number, list: 'limits' | 'requests', name: 'cpu' | 'memory', value: string): Json => ({
      op: 'replace',
      path: `/spec/template/spec/containers/${String(container)}/resources/${list}/${name}`,
      value,
    });

    /** A resize Kruise patches in place: `restarted` is what predict must say (the kubelet's resizePolicy). */
    async function resizedInPlace(patch: Json[], restarted: string[]): Promise<void> {
      const before = pods();
      const p = edit(patch);
      expect([p.verdict, predicted(p).restarted]).toEqual(['in-place', restarted]);
      // Kruise reads a pod as updated once its status' resources equal its spec's (IsUpdateCompleted,
      // inplace_update_vertical.go:171 (v1.8.2)); the kubelet clears status.resize once it resized.
      const after = await until(
        'the resize rolled out',
        (w, ps) => rolledOut(w, ps) && ps.every((x) => x.status.resize === undefined),
      );
      expect(observe(before, after)).toEqual(predicted(p));
      expect(applied(after)).toEqual(after.map(() => templateResources(workload())));
    }

    /** A resources edit Kruise does not apply in place: every pod recreated, as predicted. */
    async function resourcesRecreate(patch: Json[]): Promise<void> {
      const before = pods();
      const p = edit(patch);
      expect(p.verdict).toBe('replaced');
      const uids = new Set(before.map((x) => x.metadata.uid));
      const after = await until(
        'the pods recreated',
        (w, ps) => rolledOut(w, ps) && ps.every((x) => !uids.has(x.metadata.uid)),
      );
      expect(observe(before, after)).toEqual(predicted(p));
      expect(applied(after).map((x) => x.spec)).toEqual(after.map(() => templateResources(workload()).spec));
    }

    step(
      'a CloneSet whose containers have resources and resize policies runs its pods',
      () =>
        create(
          CLONESET_SIZED,
          { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
          { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' } },
          sizedTemplate,
        ),
      300_000,
    );
    step(
      'CloneSet, cpu requests and limits raised (InPlaceWorkloadVerticalScaling): in place, resized, no container restarted, as predicted',
      () =>
        resizedInPlace(
          [0, 1].flatMap((i) => [resource(i, 'requests', 'cpu', '15m'), resource(i, 'limits', 'cpu', '30m')]),
          [],
        ),
      400_000,
    );
    step(
      'CloneSet, memory limits raised: in place, resized; the RestartContainer container restarted, the NotRequired one kept, as predicted',
      () =>
        resizedInPlace(
          [0, 1].map((i) => resource(i, 'limits', 'memory', '96Mi')),
          ['side'],
        ),
      400_000,
    );
    step(
      'CloneSet, requests raised to the limits (the QoS class changes to Guaranteed): recreated, as predicted',
      () =>
        resourcesRecreate(
          [0, 1].flatMap((i) => [resource(i, 'requests', 'cpu', '30m'), resource(i, 'requests', 'memory', '96Mi')]),
        ),
      400_000,
    );
    step(
      'CloneSet, a cpu limit removed: recreated (Kruise resizes no added or removed resource), as predicted',
      () => resourcesRecreate([{ op: 'remove', path: '/spec/template/spec/containers/0/resources/limits/cpu' }]),
      400_000,
    );
    step(
      'an Advanced StatefulSet whose containers have resources and resize policies runs its pods',
      () =>
        create(
          ASTS_SIZED,
          { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' },
          {
            serviceName: ASTS_SIZED.name,
            podManagementPolicy: 'Parallel',
            updateStrategy: {
              type: 'RollingUpdate',
              rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', maxUnavailable: '100%' },
            },
          },
          sizedTemplate,
        ),
      300_000,
    );
    step(
      'Advanced StatefulSet, cpu and memory limits raised: in place, resized; only the container whose memory says RestartContainer restarted, as predicted',
      async () => {
        await resizedInPlace(
          [0, 1].flatMap((i) => [resource(i, 'limits', 'cpu', '30m'), resource(i, 'limits', 'memory', '96Mi')]),
          ['side'],
        );
        on = CLONESET;
      },
      400_000,
    );

    /** A tag moved to another of the same image; returns whether Kruise read the update as done. */
    async function sameDigestTag(tag: string): Promise<{ p: RolloutPrediction; ready: boolean; pods: ServedPod[] }> {
      const before = await until('the pods ready', rolledOut);
      const p = edit(setImage(tag));
      // The kubelet restarts the container (its hash changed); then Kruise's check decides.
      const restarted = await until('the container restarted', (_cs, ps) => {
        const ids = containerIds(ps);
        return (
          allRunning(ps) &&
          [...containerIds(before)].filter(([k, id]) => k.endsWith('/app') && ids.get(k) !== id).length ===
            before.length
        );
      });
      const deadline = Date.now() + NEVER_READY_WATCH_MS;
      let now = restarted;
      while (Date.now() < deadline) {
        now = pods();
        if (now.every((x) => condition(x, 'InPlaceUpdateReady') === 'True')) break;
        await sleep(2000);
      }
      // The fallback's premise: the image ID did not change, and the status names another tag.
      for (const x of now) {
        const was = before.find((b) => b.metadata.uid === x.metadata.uid)!;
        const app = (q: ServedPod) => q.status.containerStatuses!.find((s) => s.name === 'app')!;
        expect(app(x).imageID).toBe(app(was).imageID);
        expect(app(x).image).not.toBe(tag);
      }
      expect(observe(before, now)).toEqual(predicted(p));
      return { p, ready: now.every((x) => condition(x, 'InPlaceUpdateReady') === 'True'), pods: now };
    }

    /** The hash kruise-daemon read from the runtime (runtime-containers-meta) for `app`, as the kubelet prints it. */
    const daemonHash = (x: ServedPod): string | undefined => {
      const meta = x.metadata.annotations?.['apps.kruise.io/runtime-containers-meta'];
      if (meta === undefined) return undefined;
      const c = (JSON.parse(meta) as { containers: { name: string; hashes: { plainHash: number } }[] }).containers.find(
        (m) => m.name === 'app',
      );
      return c === undefined ? undefined : BigInt(c.hashes.plainHash).toString(16);
    };

    step(
      `a tag changed to the same image on the ${from.release} kubelet: Kruise's hash check matches, InPlaceUpdateReady true, as predicted`,
      async () => {
        const { p, ready, pods: now } = await sameDigestTag(IMAGE_B_TAG_2);
        const r = p.kruiseReadiness ?? [];
        expect(r.map((x) => [x.name, x.hashMatches])).toEqual([['app', true]]);
        expect(ready).toBe(true);
        // kruise-daemon reports what the kubelet stored: the hash predict names.
        expect(now.map(daemonHash)).toEqual(now.map(() => r[0]!.kubeletHash));
      },
      400_000,
    );

    step(
      `the node crossed to ${to.release}, a tag changed to the same image: no hash matches, InPlaceUpdateReady stays false (openkruise/kruise#2297), as predicted`,
      async () => {
        await cluster.upgradeControlPlane(to);
        const crossed = containerIds(pods());
        await cluster.stopNode();
        await cluster.startNode(to);
        kubeletMinor = to.release.split('.').slice(0, 2).join('.');
        // The new kubelet recreates every container (every hash differs between 1.30 and 1.31): until
        // it has, the pods' statuses still show the old ones.
        await until(
          'every container recreated by the new kubelet',
          (w, ps) => rolledOut(w, ps) && [...containerIds(ps)].every(([k, id]) => crossed.get(k) !== id),
          300_000,
        );
        const { p, ready, pods: now } = await sameDigestTag(IMAGE_B_TAG_3);
        const r = p.kruiseReadiness ?? [];
        expect(r.map((x) => [x.name, x.hashMatches])).toEqual([['app', false]]);
        expect(ready).toBe(false);
        expect(now.map(daemonHash)).toEqual(now.map(() => r[0]!.kubeletHash));
      },
      900_000,
    );

    step(
      `on the ${to.release} kubelet, memory limits raised: in place, resized, the RestartContainer container restarted; no hash matches, yet InPlaceUpdateReady turns true (the image-ID fallback has no changed image to wait for), as predicted`,
      async () => {
        on = CLONESET_SIZED;
        // Its containers were recreated by the new kubelet too: ready again first.
        await until('the resized CloneSet ready on the new kubelet', rolledOut, 300_000);
        const before = pods();
        const p = edit([0, 1].map((i) => resource(i, 'limits', 'memory', '128Mi')));
        const r = p.kruiseReadiness ?? [];
        expect(r.map((x) => [x.name, x.hashMatches, x.imageChanged])).toEqual([['side', false, false]]);
        // The rollout counts only pods Kruise reads as updated and ready.
        const after = await until(
          'the resize rolled out',
          (w, ps) => rolledOut(w, ps) && ps.every((x) => x.status.resize === undefined),
        );
        expect(observe(before, after)).toEqual(predicted(p));
        expect(predicted(p).restarted).toEqual(['side']);
        expect(after.map((x) => condition(x, 'InPlaceUpdateReady'))).toEqual(['True', 'True']);
        expect(applied(after)).toEqual(after.map(() => templateResources(workload())));
      },
      600_000,
    );
  },
  'CloneSet and Advanced StatefulSet: in place, recreate, delete',
);

/**
 * The same resource edit on a 1.33 cluster (InPlacePodVerticalScaling beta, on): kruise-manager
 * v1.8.2 writes the new resources into the pods with a Pod update (updatePodInPlace,
 * pkg/util/inplaceupdate/inplace_update.go:361 (v1.8.2)), which 1.33 refuses — resources change only
 * through pods/resize (ValidatePodUpdate, pkg/apis/core/validation/validation.go:5331 (v1.33.13)
 * munges images, not resources). Kruise records FailedUpdatePodInPlace and retries; the pods run on
 * unchanged. `predictRollout` says refused, at the pod's `spec`.
 */
describeReal(
  [
    ['openkruise', KRUISE],
    ['cluster', '1.33.13'],
    ['containerd', '1.7.24'],
  ],
  (systems) => {
    let cluster: Cluster | undefined;
    let kruise: Kruise | undefined;
    beforeAll(async () => {
      const r = systems.get('cluster')!.record;
      cluster = new Cluster(
        { cluster: systems.get('cluster')!, containerd: systems.get('containerd')! },
        {
          release: r.RELEASE!,
          apiserver: r.APISERVER!,
          controllerManager: r.CONTROLLER_MANAGER!,
          kubelet: r.KUBELET!,
          apiserverFlags: ['--enable-aggregator-routing=true'],
        },
        { podCgroups: true },
      );
      await cluster.start();
      kruise = new Kruise(cluster, systems.get('openkruise')!.record, KRUISE_GATES);
      await kruise.start();
    }, 900_000);
    afterAll(async () => {
      await kruise?.stop();
      await cluster?.teardown();
    }, 180_000);

    it('CloneSet, cpu raised with InPlaceWorkloadVerticalScaling on 1.33: Kruise’s Pod update is refused at spec, the pods run unchanged, as predicted (refused)', async () => {
      const c = cluster!;
      const ns = await c.createNamespace('kh-kruise-133');
      const name = CLONESET_SIZED.name;
      c.kubectlOk(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'apps.kruise.io/v1alpha1',
          kind: 'CloneSet',
          metadata: { name, namespace: ns },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: name } },
            template: sizedTemplate(name, c.node),
            updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' },
          },
        }),
      );
      const pods = (): ServedPod[] =>
        (c.getJson(['-n', ns, 'pods', '-l', `app=${name}`]) as { items: ServedPod[] }).items.sort((a, b) =>
          a.metadata.name < b.metadata.name ? -1 : 1,
        );
      const running = (ps: ServedPod[]): boolean =>
        ps.length === 2 &&
        ps.every(
          (p) => (p.status.containerStatuses ?? []).every((s) => 'running' in s.state) && p.status.phase === 'Running',
        );
      const waitFor = async <T>(what: string, get: () => T | undefined, ms = 240_000): Promise<T> => {
        const deadline = Date.now() + ms;
        for (;;) {
          const v = get();
          if (v !== undefined) return v;
          if (Date.now() > deadline || !kruise!.running) throw new Error(`no ${what}\n${kruise!.logs()}`);
          await sleep(2000);
        }
      };
      const before = await waitFor('pods running', () => {
        const ps = pods();
        return running(ps) ? ps : undefined;
      });
      const old = { apiVersion: 'apps.kruise.io/v1alpha1', ...(c.getJson(['-n', ns, 'cloneset', name]) as Json) };
      const patch = [0, 1].flatMap((i) => [
        { op: 'replace', path: `/spec/template/spec/containers/${String(i)}/resources/requests/cpu`, value: '15m' },
        { op: 'replace', path: `/spec/template/spec/containers/${String(i)}/resources/limits/cpu`, value: '30m' },
      ]);
      const next = JSON.parse(
        c.kubectlOk(['-n', ns, 'patch', 'cloneset', name, '--type', 'json', '-p', JSON.stringify(patch), '-o', 'json']),
      ) as Json;
      const p = predictRollout(
        old,
        { apiVersion: 'apps.kruise.io/v1alpha1', ...next },
        {
          kubeletVersion: '1.33',
          openKruise: { version: `v${KRUISE}`, featureGates: KRUISE_GATES },
        },
      );
      // Kruise's event carries the apiserver's refusal.
      const event = await waitFor('a FailedUpdatePodInPlace event', () => {
        const items = (
          c.getJson(['-n', ns, 'events', '--field-selector', 'reason=FailedUpdatePodInPlace']) as {
            items: { message: string }[];
          }
        ).items;
        return items[0]?.message;
      });
      expect(event).toContain(`${p.reportedField ?? ''}: Forbidden: pod updates may not change fields other than`);
      expect([p.verdict, p.decidedBy, p.reportedField, p.exitCode]).toEqual(['refused', 'apiserver', 'spec', 2]);
      // The pods as they were: same UIDs, containers, resources.
      await sleep(10_000);
      const after = pods();
      const view = (ps: ServedPod[]) =>
        ps.map((x) => ({
          uid: x.metadata.uid,
          containers: (x.status.containerStatuses ?? []).map((s) => [s.name, s.containerID, s.restartCount]),
          resources: x.spec.containers.map((s) => s.resources),
        }));
      expect(view(after)).toEqual(view(before));
    }, 900_000);
  },
  'CloneSet resources on a 1.33 cluster',
);
