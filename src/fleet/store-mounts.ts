/**
 * What the agent's plan reads of a node, per runtime: only the directories of the runtime's
 * container records, never the runtime's whole root (image layers, snapshots, other state) and
 * never the kubelet's root (every pod's volumes and secrets; plan reads none of it). A read-only
 * hostPath of a parent would expose everything below it, and readOnly is not recursive.
 */

import type { RuntimeName } from '../runtime-records/index.js';

/** A host directory the plan container mounts read-only at the same path. */
export interface StoreMount {
  /** The volume's name (a DNS-1123 label). */
  name: string;
  /** The directory on the node, mounted at the same path in the container. */
  path: string;
}

const under = (root: string, dir: string): string => `${root.replace(/\/+$/, '')}/${dir}`;

/** containerd: its metadata directory (meta.db); CRI-O: overlay-containers under graphroot and runroot; docker: containers/. */
export function storeMounts(runtime: RuntimeName, root: string, crioRunRoot: string): StoreMount[] {
  if (runtime === 'containerd')
    return [{ name: 'containerd-metadata', path: under(root, 'io.containerd.metadata.v1.bolt') }];
  if (runtime === 'docker') return [{ name: 'docker-containers', path: under(root, 'containers') }];
  return [
    { name: 'crio-containers', path: under(root, 'overlay-containers') },
    // The runroot's copies of config.json: plan refuses (MISSING_RUNROOT) without them.
    { name: 'crio-run-containers', path: under(crioRunRoot, 'overlay-containers') },
  ];
}
