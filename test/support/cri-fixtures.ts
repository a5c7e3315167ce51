/**
 * Realistic pods (as the apiserver serves them) and the CRI container records a kubelet of a given
 * release would leave in containerd for them: the CRI plugin's metadata extension (Go-style JSON
 * inside a protobuf Any) with the kubelet's labels and annotations, the hash computed by this
 * library for that release. Deterministic: the same arguments give the same bytes.
 */
import { hashContainer } from '../../src/hash-api/index.js';
import { encodeAny } from '../../src/stores/containerd/any.js';
import { CONTAINER_METADATA_TYPE_URL } from '../../src/stores/containerd/metadata.js';

export interface FixturePod {
  metadata: { uid: string; name: string; namespace: string };
  spec: { containers: Record<string, unknown>[] };
}

export interface FixtureContainer {
  id: string;
  sandboxId: string;
  pod: FixturePod;
  container: Record<string, unknown>;
  hash: string;
  /** The CRI labels (also containerd container labels, plus the kind label). */
  labels: Record<string, string>;
  /** The metadata extension value: Any bytes. */
  extension: Buffer;
  /** The JSON inside it. */
  json: string;
  /** The CRI annotations the kubelet set (`Metadata.Config.annotations`). */
  annotations: Record<string, string>;
  /** The CRI attempt (`Metadata.Config.metadata.attempt`, omitted by Go when 0). */
  attempt: number;
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** A container id like containerd's: 64 hex digits. */
function containerId(seed: number): string {
  let s = '';
  let x = (seed * 2654435761) >>> 0;
  while (s.length < 64) {
    x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    s += hex(x, 8);
  }
  return s.slice(0, 64);
}

function uid(seed: number): string {
  const h = containerId(seed + 1_000_000);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Pod `i` of a node: app containers of a few shapes; every 25th has values large enough to span pages. */
export function fixturePod(i: number): FixturePod {
  const app = ['web', 'api', 'worker', 'cache', 'metrics'][i % 5]!;
  const big = i % 25 === 7;
  const env = Array.from({ length: big ? 120 : 3 + (i % 4) }, (_, k) => ({
    name: `ENV_${k}`,
    value: big ? `value-${k}-${'x'.repeat(60)}` : `v${k}`,
  }));
  const main: Record<string, unknown> = {
    name: app,
    image: `registry.example.com/team/${app}:1.${i % 7}.${i % 3}`,
    ports: [{ containerPort: 8080 + (i % 3), name: 'http', protocol: 'TCP' }],
    env,
    resources: {
      limits: { cpu: `${(i % 4) + 1}`, memory: `${128 * ((i % 3) + 1)}Mi` },
      requests: { cpu: '100m', memory: '64Mi' },
    },
    volumeMounts: [
      { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    livenessProbe: {
      httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
  if (big) main.args = Array.from({ length: 40 }, (_, k) => `--flag-${k}=${'y'.repeat(80)}`);
  const containers = [main];
  if (i % 3 === 0) {
    containers.push({
      name: 'log-shipper',
      image: 'registry.example.com/infra/shipper:2.4.1',
      resources: { limits: { memory: '50Mi' }, requests: { cpu: '10m', memory: '20Mi' } },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
    });
  }
  return {
    metadata: { uid: uid(i), name: `${app}-${hex(i, 5)}`, namespace: ['default', 'shop', 'infra'][i % 3]! },
    spec: { containers },
  };
}

/** The CRI container records for `pods`, hashed by `kubelet` (e.g. `1.30`). */
export function fixtureContainers(pods: readonly FixturePod[], kubelet: string, firstPod = 0): FixtureContainer[] {
  const out: FixtureContainer[] = [];
  const hashCache = new Map<string, string>();
  pods.forEach((pod, index) => {
    const p = firstPod + index;
    const sandboxId = containerId(p + 500_000);
    pod.spec.containers.forEach((container, c) => {
      const id = containerId(p * 10 + c);
      const name = container.name as string;
      const key = JSON.stringify(container);
      let hash = hashCache.get(key);
      if (hash === undefined) hashCache.set(key, (hash = hashContainer(container, { kubeletVersion: kubelet })));
      const labels = {
        'io.kubernetes.container.name': name,
        'io.kubernetes.pod.name': pod.metadata.name,
        'io.kubernetes.pod.namespace': pod.metadata.namespace,
        'io.kubernetes.pod.uid': pod.metadata.uid,
      };
      const ports = (container.ports as { containerPort: number; name: string; protocol: string }[] | undefined) ?? [];
      const annotations: Record<string, string> = {
        'io.kubernetes.container.hash': hash,
        'io.kubernetes.container.restartCount': '0',
        'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
        'io.kubernetes.container.terminationMessagePolicy': 'File',
        'io.kubernetes.pod.terminationGracePeriod': '30',
      };
      if (ports.length > 0) annotations['io.kubernetes.container.ports'] = JSON.stringify(ports);
      const env = ((container.env as { name: string; value: string }[] | undefined) ?? []).map((e) => ({
        key: e.name,
        value: e.value,
      }));
      // Go encoding/json of the CRI plugin's Metadata: struct fields in declaration order, omitempty.
      const config: Record<string, unknown> = {
        metadata: { name },
        image: { image: container.image },
        ...(container.args ? { args: container.args } : {}),
        ...(env.length > 0 ? { envs: env } : {}),
        labels,
        annotations,
        log_path: `${name}/0.log`,
        linux: {
          resources: {
            cpu_period: 100000,
            cpu_quota: 100000,
            cpu_shares: 102,
            memory_limit_in_bytes: 134217728,
            oom_score_adj: 999,
          },
        },
      };
      const json = JSON.stringify({
        Version: 'v1',
        Metadata: {
          ID: id,
          Name: `${name}_${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_0`,
          SandboxID: sandboxId,
          Config: config,
          ImageRef: `sha256:${containerId(p + 900_000)}`,
          LogPath: `/var/log/pods/${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}/${name}/0.log`,
          StopSignal: 'SIGTERM',
          ProcessLabel: '',
        },
      });
      out.push({
        id,
        sandboxId,
        pod,
        container,
        hash,
        labels,
        json,
        annotations,
        extension: encodeAny(CONTAINER_METADATA_TYPE_URL, Buffer.from(json)),
        attempt: 0,
      });
    });
  });
  return out;
}

/**
 * Another attempt of fixture container `f` (its pod, its name), as the kubelet creates one after a
 * restart or a new sandbox: a new id from `seed`, CRI attempt `attempt` (in the metadata, the
 * record's `Name` and the restart count), and the stored hash `hash` (default `f`'s).
 */
export function fixtureAttempt(
  f: FixtureContainer,
  attempt: number,
  options: { seed: number; hash?: string },
): FixtureContainer {
  const id = containerId(options.seed);
  const hash = options.hash ?? f.hash;
  const annotations = {
    ...f.annotations,
    'io.kubernetes.container.hash': hash,
    'io.kubernetes.container.restartCount': String(attempt),
  };
  const doc = JSON.parse(f.json) as { Metadata: Record<string, unknown> & { Config: Record<string, unknown> } };
  const name = f.labels['io.kubernetes.container.name']!;
  const json = JSON.stringify({
    ...doc,
    Metadata: {
      ...doc.Metadata,
      ID: id,
      Name: `${name}_${f.pod.metadata.name}_${f.pod.metadata.namespace}_${f.pod.metadata.uid}_${attempt}`,
      // Go's omitempty: attempt 0 is not written. (Members keep their places: metadata comes first.)
      Config: { ...doc.Metadata.Config, metadata: attempt === 0 ? { name } : { name, attempt }, annotations },
    },
  });
  return {
    ...f,
    id,
    hash,
    json,
    annotations,
    attempt,
    extension: encodeAny(CONTAINER_METADATA_TYPE_URL, Buffer.from(json)),
  };
}

/**
 * The container record containerd's CRI plugin keeps for `c`: its kubelet labels with the CRI kind,
 * the spec ({@link fixtureSpec}, `padding`) and the CRI metadata extension. What a test hands to
 * containerd's containers API, or writes into a meta.db with the other fields of a record.
 */
export function criRecord(
  c: FixtureContainer,
  padding = 0,
): { id: string; labels: Record<string, string>; spec: Buffer; extensions: Record<string, Buffer> } {
  return {
    id: c.id,
    labels: { ...c.labels, 'io.cri-containerd.kind': 'container' },
    spec: fixtureSpec(c, padding),
    extensions: { 'io.cri-containerd.container.metadata': c.extension },
  };
}

/** A minimal OCI runtime spec as containerd stores it (Any around JSON), `padding` bytes long-ish. */
export function fixtureSpec(c: FixtureContainer, padding = 0): Buffer {
  const spec = {
    ociVersion: '1.0.2-dev',
    process: { user: { uid: 0, gid: 0 }, args: ['/app', ...(padding > 0 ? ['x'.repeat(padding)] : [])], cwd: '/' },
    root: { path: 'rootfs' },
    annotations: { 'io.kubernetes.cri.container-type': 'container', 'io.kubernetes.cri.sandbox-id': c.sandboxId },
    linux: { namespaces: [{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }] },
  };
  return encodeAny('types.containerd.io/opencontainers/runtime-spec/1/Spec', Buffer.from(JSON.stringify(spec)));
}
