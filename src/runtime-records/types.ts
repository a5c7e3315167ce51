/**
 * The three kinds of runtime record this library reads and rewrites.
 *
 * @example
 * ```ts
 * import { detectRecordKind, type RecordKind } from 'kubelet-hash';
 *
 * const kind: RecordKind = detectRecordKind({ ID: 'c0ffee', Config: { Labels: {} } });
 * kind; // → 'docker-config-v2'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type RecordKind = 'docker-inspect' | 'docker-config-v2' | 'crictl-inspect';

/**
 * A container runtime whose records this library reads and rewrites: the one runtime-name union,
 * from the record reader to the stores. A record that shows no runtime's traits says `'unknown'`
 * beside it ({@link RuntimeRecord.runtime}).
 *
 * @example
 * ```ts
 * import { readRuntimeRecords, type RuntimeName } from 'kubelet-hash';
 *
 * const record = JSON.stringify({
 *   status: {
 *     id: 'c0ffee',
 *     labels: {
 *       'io.kubernetes.pod.name': 'web-0',
 *       'io.kubernetes.pod.namespace': 'default',
 *       'io.kubernetes.pod.uid': 'uid-1',
 *       'io.kubernetes.container.name': 'web',
 *     },
 *     annotations: { 'io.kubernetes.container.hash': '590c88e0' },
 *   },
 * });
 * const runtimes: RuntimeName[] = ['containerd', 'cri-o', 'docker'];
 * // A bare crictl record shows neither containerd's nor CRI-O's traits.
 * readRuntimeRecords(record)[0]!.runtime; // → 'unknown'
 * runtimes.length; // → 3
 * ```
 *
 * @group Upgrades and runtime stores
 */
export type RuntimeName = 'docker' | 'containerd' | 'cri-o';

/**
 * One container's runtime record as this library reads it: who the container is (the kubelet's
 * labels) and the hashes the kubelet stored. The one record type, from reader to rewriter:
 * {@link ContainerRecordInfo} (a record's text read) and the stores' `StoredContainer` (a record as
 * persisted, with where it lives) are this with what each adds.
 *
 * @example
 * ```ts
 * import type { RuntimeRecord } from 'kubelet-hash';
 *
 * const record: RuntimeRecord = { runtime: 'containerd', containerId: 'c1', podUid: 'u1', podNamespace: 'default', podName: 'web-0', containerName: 'web', hash: '590c88e0' };
 * record.hash; // → '590c88e0'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface RuntimeRecord {
  /** The runtime that wrote it (`unknown` when a crictl record shows neither containerd nor CRI-O traits). */
  runtime: RuntimeName | 'unknown';
  /** The runtime's container id (docker `Id`/`ID`, crictl `status.id`); absent when the record's id is empty. */
  containerId?: string;
  /** The pod-spec container name, from the kubelet's `io.kubernetes.container.name` label. */
  containerName: string;
  /** From the kubelet's `io.kubernetes.pod.name` label. */
  podName: string;
  /** From the kubelet's `io.kubernetes.pod.namespace` label. */
  podNamespace: string;
  /** From the kubelet's `io.kubernetes.pod.uid` label: joins the record with its API pod. */
  podUid: string;
  /**
   * The container's CRI attempt (0 for its first container, one more for each restart), when the
   * record keeps it: crictl's `status.metadata.attempt`, containerd's `Metadata.Config.metadata`,
   * CRI-O's `io.kubernetes.cri-o.Metadata`, the attempt in a docker name
   * (`k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`). The kubelet compares only the newest
   * attempt of a pod's container.
   */
  attempt?: number;
  /** The stored `io.kubernetes.container.hash` text, exactly as stored (not normalised). */
  hash?: string;
  /** The stored `io.kubernetes.container.hashWithoutResources` text (kubelet 1.27–1.30 with InPlacePodVerticalScaling). */
  hashWithoutResources?: string;
}

/**
 * What one container's runtime record says about its identity and its stored kubelet hash: what
 * {@link readRuntimeRecords} returns, and what {@link planUpgrade} accepts in place of record text.
 *
 * @example
 * ```ts
 * import { readRuntimeRecords, type ContainerRecordInfo } from 'kubelet-hash';
 *
 * const record = JSON.stringify({
 *   status: {
 *     id: 'c0ffee',
 *     labels: {
 *       'io.kubernetes.pod.name': 'web-0',
 *       'io.kubernetes.pod.namespace': 'default',
 *       'io.kubernetes.pod.uid': 'uid-1',
 *       'io.kubernetes.container.name': 'web',
 *     },
 *     annotations: { 'io.kubernetes.container.hash': '590c88e0' },
 *   },
 * });
 * const [info]: ContainerRecordInfo[] = readRuntimeRecords(record);
 * [info!.podUid, info!.containerName, info!.hash]; // → ['uid-1', 'web', '590c88e0']
 * info!.hashLocations; // → ['status.annotations["io.kubernetes.container.hash"]']
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ContainerRecordInfo extends RuntimeRecord {
  /** Which kind of record it was read from. */
  kind: RecordKind;
  /**
   * Every place the hash text (either key) was found, as jq-like paths without the leading dot,
   * e.g. `status.annotations["io.kubernetes.container.hash"]`. A hash kept inside a JSON-encoded
   * string (CRI-O's `io.kubernetes.cri-o.Annotations`) reads `…["io.kubernetes.cri-o.Annotations"] | fromjson | ["io.kubernetes.container.hash"]`.
   */
  hashLocations: string[];
}

/**
 * A container hash and, for kubelets 1.27–1.30 with in-place resize, its hash without resources (lowercase hex text).
 *
 * @example
 * ```ts
 * import { hashContainer, hashContainerWithoutResources, type HashPair } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const options = { kubeletVersion: '1.29' };
 * const stored: HashPair = { hash: hashContainer(container, options), hashWithoutResources: hashContainerWithoutResources(container, options) };
 * stored; // → { hash: '590c88e0', hashWithoutResources: '371a981f' }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface HashPair {
  /** The `io.kubernetes.container.hash` text, e.g. `311670a`. */
  hash: string;
  /** The `io.kubernetes.container.hashWithoutResources` text; omitted from `to`, that annotation is left untouched. */
  hashWithoutResources?: string;
}

/**
 * What {@link rewriteRuntimeRecord} changes: the stored pair it expects and the pair it writes.
 * {@link planUpgrade} proposes one per container to rewrite ({@link RewritePlanEntry.change}).
 *
 * @example
 * ```ts
 * import { translateHash, rewriteRuntimeRecord, type HashChange } from 'kubelet-hash';
 *
 * const container = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const change: HashChange = {
 *   from: { hash: '590c88e0' },
 *   to: { hash: translateHash(container, { from: '1.30', to: '1.31', observed: '590c88e0' }) },
 * };
 * change.to; // → { hash: 'e220f96' }
 * rewriteRuntimeRecord('{"status":{"id":"c0ffee","labels":{"io.kubernetes.pod.name":"web-0","io.kubernetes.pod.namespace":"default","io.kubernetes.pod.uid":"uid-1","io.kubernetes.container.name":"web"},"annotations":{"io.kubernetes.container.hash":"590c88e0"}}}', change).includes('"e220f96"'); // → true
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface HashChange {
  /** The hashes the record must store now (compared as numbers, like the kubelet); any other value is refused. */
  from: HashPair;
  /** The hashes to write instead: canonical kubelet text (lowercase hex, no leading zeros). */
  to: HashPair;
  /** Which container of a docker inspect array to rewrite (its full Id or a unique prefix). */
  containerId?: string;
}
