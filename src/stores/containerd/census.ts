/**
 * What a containerd `meta.db` holds besides the CRI container records: how many containers each
 * namespace has (so an empty read can name the namespace that does hold them), and the CRI
 * plugin's pod sandboxes (so a plan can say which pods the kubelet recreates whatever the hashes).
 *
 * Sandboxes: 1.x and 2.x keep the pause container at `v1/<ns>/containers/<id>` labelled
 * `io.cri-containerd.kind=sandbox`, its metadata in extension `io.cri-containerd.sandbox.metadata`;
 * 2.x also writes `v1/<ns>/sandboxes/<id>/extensions/metadata`. The value is an `Any` holding Go
 * JSON `{"Version":"v1","Metadata":{"ID","Name","Config":<PodSandboxConfig>,"NetNSPath","IP",…}}`.
 */
import { BoltFile, toRef, BUCKET_LEAF_FLAG, decodeBucketValue } from '../../bbolt/index.js';
import { decodeAny } from './any.js';
import { containerdMetaDbPath } from './store.js';

/** Containers per namespace of a meta.db, and how many of them the CRI plugin created. */
export interface ContainerdCensus {
  dbPath: string;
  namespaces: { namespace: string; containers: number; criContainers: number }[];
}

/** A CRI pod sandbox as containerd persisted it. */
export interface ContainerdSandbox {
  id: string;
  podUid: string;
  podName: string;
  podNamespace: string;
  /** CRI `NamespaceMode` of the network namespace: 0 POD, 1 CONTAINER, 2 NODE (host network). */
  networkMode: number;
  /** The pod IP the CRI plugin recorded ('' when none). */
  ip: string;
}

const enc = (s: string): Buffer => Buffer.from(s);
const KIND_LABEL = enc('io.cri-containerd.kind');
const SANDBOX_EXTENSION = enc('io.cri-containerd.sandbox.metadata');

function subBuckets(
  file: BoltFile,
  ref: ReturnType<BoltFile['bucketAt']>,
): { key: string; ref: ReturnType<typeof toRef> }[] {
  if (!ref) return [];
  const out: { key: string; ref: ReturnType<typeof toRef> }[] = [];
  for (const item of file.items(ref)) {
    if ((item.flags & BUCKET_LEAF_FLAG) === 0) continue;
    const key = item.key.toString('utf8');
    out.push({ key, ref: toRef(decodeBucketValue(item.value, `${file.path} bucket ${key}`)) });
  }
  return out;
}

function label(file: BoltFile, container: ReturnType<typeof toRef>, name: Buffer): string | undefined {
  const labels = file.bucket(container, enc('labels'));
  const v = labels ? file.get(labels, name) : undefined;
  return v && (v.flags & BUCKET_LEAF_FLAG) === 0 ? v.value.toString('utf8') : undefined;
}

/** Counts the containers of every namespace in `<root>`'s meta.db (containerd stopped or running). */
export function containerdCensus(root: string): ContainerdCensus {
  const dbPath = containerdMetaDbPath(root);
  const file = BoltFile.open(dbPath);
  try {
    const namespaces = subBuckets(file, file.bucketAt([enc('v1')])).map(({ key, ref }) => {
      const containers = subBuckets(file, file.bucket(ref, enc('containers')));
      const cri = containers.filter((c) => label(file, c.ref, KIND_LABEL) === 'container').length;
      return { namespace: key, containers: containers.length, criContainers: cri };
    });
    return { dbPath, namespaces };
  } finally {
    file.close();
  }
}

function sandboxOf(id: string, raw: Buffer, where: string): ContainerdSandbox | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(decodeAny(raw, where).value.toString('utf8'));
  } catch {
    return undefined;
  }
  const md = (doc as { Metadata?: Record<string, unknown> } | null)?.Metadata;
  const config = md?.['Config'] as
    | {
        metadata?: { uid?: unknown; name?: unknown; namespace?: unknown };
        linux?: { security_context?: { namespace_options?: { network?: unknown } } };
      }
    | undefined;
  const uid = config?.metadata?.uid;
  if (typeof uid !== 'string') return undefined;
  const network = config?.linux?.security_context?.namespace_options?.network;
  return {
    id,
    podUid: uid,
    podName: typeof config?.metadata?.name === 'string' ? config.metadata.name : '',
    podNamespace: typeof config?.metadata?.namespace === 'string' ? config.metadata.namespace : '',
    // Go's encoding/json omits the zero enum value (POD); 2.x may write the name instead of the number.
    networkMode: typeof network === 'number' ? network : network === 'NODE' ? 2 : network === 'CONTAINER' ? 1 : 0,
    ip: typeof md?.['IP'] === 'string' ? md['IP'] : '',
  };
}

/** Every CRI pod sandbox of `namespace` in `<root>`'s meta.db, by id (1.x pause containers and 2.x sandbox records). */
export function containerdSandboxes(root: string, namespace: string): ContainerdSandbox[] {
  const dbPath = containerdMetaDbPath(root);
  const file = BoltFile.open(dbPath);
  try {
    const found = new Map<string, ContainerdSandbox>();
    const ns = file.bucketAt([enc('v1'), enc(namespace)]);
    if (!ns) return [];
    for (const { key, ref } of subBuckets(file, file.bucket(ns, enc('containers')))) {
      if (label(file, ref, KIND_LABEL) !== 'sandbox') continue;
      const ext = file.bucket(ref, enc('extensions'));
      const v = ext ? file.get(ext, SANDBOX_EXTENSION) : undefined;
      if (!v || (v.flags & BUCKET_LEAF_FLAG) !== 0) continue;
      const s = sandboxOf(key, Buffer.from(v.value), `${dbPath}#v1/${namespace}/containers/${key}`);
      if (s) found.set(key, s);
    }
    for (const { key, ref } of subBuckets(file, file.bucket(ns, enc('sandboxes')))) {
      if (found.has(key)) continue;
      const ext = file.bucket(ref, enc('extensions'));
      const v = ext ? file.get(ext, enc('metadata')) : undefined;
      if (!v || (v.flags & BUCKET_LEAF_FLAG) !== 0) continue;
      const s = sandboxOf(key, Buffer.from(v.value), `${dbPath}#v1/${namespace}/sandboxes/${key}`);
      if (s) found.set(key, s);
    }
    return [...found.values()];
  } finally {
    file.close();
  }
}
