/** Reads what runtime records say about each container's identity and stored kubelet hash. */
import { primarySite } from './hash-sites.js';
import { parseRecord } from './parse-record.js';
import type { ContainerRecordInfo } from './types.js';

/**
 * One entry per container in the record: several for a docker inspect array, one otherwise.
 * `hash`/`hashWithoutResources` are the copies the kubelet reads back (status annotations for CRI
 * runtimes, the `annotation.` labels for docker), exactly as stored; `hashLocations` lists every copy.
 * Throws {@link RecordError} (code `INVALID_RECORD`, with the JSON path) for malformed records.
 *
 * Accepts the text of `docker inspect` (an array; containers the kubelet did not create are skipped),
 * docker's `config.v2.json`, and `crictl inspect` of containerd or CRI-O.
 *
 * @example
 * ```ts
 * import { readRuntimeRecords, RecordError } from 'kubelet-hash';
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
 * readRuntimeRecords(record); // → [{ kind: 'crictl-inspect', runtime: 'unknown', containerId: 'c0ffee', containerName: 'web', podName: 'web-0', podNamespace: 'default', podUid: 'uid-1', hash: '590c88e0', hashLocations: ['status.annotations["io.kubernetes.container.hash"]'] }]
 * try {
 *   readRuntimeRecords('{"status": {"id": 1}}');
 * } catch (e) {
 *   e instanceof RecordError && e.message; // → 'INVALID_RECORD at .status.id: expected the container id as a string (found a number)'
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function readRuntimeRecords(text: string): ContainerRecordInfo[] {
  const { kind, containers } = parseRecord(text);
  return containers.map((c) => {
    // Only the copy the kubelet reads counts: a config-only copy would still read as 0 to the kubelet.
    const hash = primarySite(c, 'hash');
    const withoutResources = primarySite(c, 'hashWithoutResources');
    const info: ContainerRecordInfo = {
      kind,
      runtime: c.runtime,
      ...(c.containerId !== '' ? { containerId: c.containerId } : {}),
      containerName: c.containerName,
      podName: c.podName,
      podNamespace: c.podNamespace,
      podUid: c.podUid,
      ...(c.attempt !== undefined ? { attempt: c.attempt } : {}),
      ...(hash ? { hash: hash.text } : {}),
      ...(withoutResources ? { hashWithoutResources: withoutResources.text } : {}),
      hashLocations: c.sites.map((s) => s.location),
    };
    return info;
  });
}
