/**
 * Which of many runtime records is the one of a given container: a node-wide `docker inspect` or a
 * store listing holds every pod's containers, and container names repeat across pods, so a record
 * is matched by its pod's identity where that is known, and never guessed.
 */
import { RecordError } from '../errors.js';
import type { ContainerRecordInfo } from './types.js';

/**
 * The container whose record {@link selectRecord} picks, and its pod as far as it is known.
 *
 * @example
 * ```ts
 * import type { SelectRecordInput } from 'kubelet-hash';
 *
 * // A Pod read from the apiserver: all three. For a mirror pod (a static pod seen through the
 * // apiserver) the records carry the static pod's UID, its `kubernetes.io/config.mirror` annotation.
 * const fromApiserver: SelectRecordInput = { container: 'web', pod: { uid: 'uid-1', name: 'web-0', namespace: 'default' } };
 * // A bare container or a template: the records must then hold one pod only.
 * const bare: SelectRecordInput = { container: 'web' };
 * [fromApiserver.pod?.name, bare.pod]; // → ['web-0', undefined]
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface SelectRecordInput {
  /** The container's name in the pod spec (the kubelet's `io.kubernetes.container.name` label). */
  container: string;
  /**
   * The pod, by whichever of its uid (`io.kubernetes.pod.uid`), name and namespace are known; each
   * one given must match. Without a uid or a name the records (of that namespace) must hold one pod.
   */
  pod?: {
    /** `metadata.uid`, or a mirror pod's `kubernetes.io/config.mirror` annotation (the `io.kubernetes.pod.uid` label). */
    uid?: string;
    /** `metadata.name` (the `io.kubernetes.pod.name` label). */
    name?: string;
    /** `metadata.namespace` (the `io.kubernetes.pod.namespace` label). */
    namespace?: string;
  };
}

/** What a record must say for {@link selectRecord}: a {@link ContainerRecordInfo}, or a store's record. */
type RecordFields = Pick<ContainerRecordInfo, 'containerName' | 'podUid' | 'podName' | 'podNamespace' | 'containerId'>;

/**
 * The record of one container of one pod out of `records` (from {@link readRuntimeRecords} or a
 * store's listing). With the pod's uid or name, the one record of that container in the pod that
 * matches every field given; without, the records must hold one pod and one record of that
 * container. Throws {@link RecordError} at `["records"]`: `AMBIGUOUS_RECORD` when several records
 * fit (or records of several pods and no pod to tell them apart), `RECORD_MISMATCH` when none does.
 *
 * @example
 * ```ts
 * import { selectRecord, RecordError, type ContainerRecordInfo } from 'kubelet-hash';
 *
 * const record = (podName: string, podUid: string, containerName: string): ContainerRecordInfo => ({
 *   kind: 'docker-inspect', runtime: 'docker', containerId: `${podName}-${containerName}`,
 *   containerName, podName, podNamespace: 'default', podUid, hash: '590c88e0', hashLocations: [],
 * });
 * const node = [record('web-0', 'uid-0', 'web'), record('web-1', 'uid-1', 'web'), record('web-1', 'uid-1', 'proxy')];
 * selectRecord(node, { container: 'web', pod: { uid: 'uid-1' } }).containerId; // → 'web-1-web'
 * selectRecord(node, { container: 'web', pod: { namespace: 'default', name: 'web-0' } }).podUid; // → 'uid-0'
 * try {
 *   selectRecord(node, { container: 'web' }); // two pods have a "web": which one?
 * } catch (e) {
 *   e instanceof RecordError && [e.code, e.path]; // → ['AMBIGUOUS_RECORD', ['records']]
 * }
 * try {
 *   selectRecord(node, { container: 'db', pod: { uid: 'uid-1' } });
 * } catch (e) {
 *   e instanceof RecordError && [e.code, e.detail]; // → ['RECORD_MISMATCH', 'found none; the pod has "web", "proxy"']
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function selectRecord<
  R extends Pick<ContainerRecordInfo, 'containerName' | 'podUid' | 'podName' | 'podNamespace' | 'containerId'>,
>(records: readonly R[], input: SelectRecordInput): R {
  const { container, pod = {} } = input;
  const name = JSON.stringify(container);
  const inNamespace = records.filter((r) => pod.namespace === undefined || r.podNamespace === pod.namespace);
  if (pod.uid !== undefined || pod.name !== undefined) {
    const ofPod = inNamespace.filter(
      (r) => (pod.uid === undefined || r.podUid === pod.uid) && (pod.name === undefined || r.podName === pod.name),
    );
    const target = `a record of container ${name} of pod ${podLabel(pod)}`;
    const same = ofPod.filter((r) => r.containerName === container);
    if (same.length === 1) return same[0]!;
    if (same.length > 1) throw new RecordError('AMBIGUOUS_RECORD', ['records'], `one ${target}`, found(same));
    const elsewhere = records.filter((r) => r.containerName === container);
    throw new RecordError(
      'RECORD_MISMATCH',
      ['records'],
      target,
      ofPod.length > 0
        ? `found none; the pod has ${names(ofPod)}`
        : elsewhere.length > 0
          ? `found none; ${name} is of ${[...new Set(elsewhere.map(podOf))].join(', ')}`
          : `found none; the records are of ${names(records) || 'no container'}`,
    );
  }
  const pods = [...new Set(inNamespace.map(podOf))];
  if (pods.length > 1) {
    throw new RecordError(
      'AMBIGUOUS_RECORD',
      ['records'],
      `the pod of container ${name} (its uid or name), or records of one pod: a container name alone matches no record`,
      `found records of ${pods.length} pods: ${pods.slice(0, 5).join(', ')}${pods.length > 5 ? ', …' : ''}`,
    );
  }
  const same = inNamespace.filter((r) => r.containerName === container);
  if (same.length === 1) return same[0]!;
  const target = `one record of a container named ${name}`;
  if (same.length > 1) throw new RecordError('AMBIGUOUS_RECORD', ['records'], target, found(same));
  throw new RecordError('RECORD_MISMATCH', ['records'], target, `found ${names(inNamespace) || 'no container'}`);
}

/** `default/web-0 (uid u)`, with `?` for what is not known. */
function podLabel(pod: { uid?: string; name?: string; namespace?: string }): string {
  return `${pod.namespace ?? '?'}/${pod.name ?? '?'}${pod.uid !== undefined ? ` (uid ${pod.uid})` : ''}`;
}

function podOf(r: RecordFields): string {
  return podLabel({ uid: r.podUid, name: r.podName, namespace: r.podNamespace });
}

/** The distinct container names, quoted, in record order. */
function names(records: readonly RecordFields[]): string {
  return [...new Set(records.map((r) => JSON.stringify(r.containerName)))].join(', ');
}

/** `found 2: container ids a, b`: which records fit, so the caller can pick. */
function found(records: readonly RecordFields[]): string {
  const ids = records.map((r) => r.containerId ?? '(no id)');
  return `found ${records.length}: container ids ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
}
