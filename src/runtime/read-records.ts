/** Reads what runtime records say about each container's identity and stored kubelet hash. */
import { primarySite } from './hash-sites.js';
import { parseRecord } from './parse-record.js';
import type { ContainerRecordInfo } from './types.js';

/**
 * One entry per container in the record: several for a docker inspect array, one otherwise.
 * `hash`/`hashWithoutResources` are the copies the kubelet reads back (status annotations for CRI
 * runtimes, the `annotation.` labels for docker), exactly as stored; `hashLocations` lists every copy.
 * Throws {@link RecordError} (code `INVALID_RECORD`, with the JSON path) for malformed records.
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
      ...(hash ? { hash: hash.text } : {}),
      ...(withoutResources ? { hashWithoutResources: withoutResources.text } : {}),
      hashLocations: c.sites.map((s) => s.location),
    };
    return info;
  });
}
