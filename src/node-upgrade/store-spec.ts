/** Opens the record store a plan names. */
import { resolve } from 'node:path';
import { OptionError } from '../errors.js';
import { ContainerdStore, CrioStore, DEFAULT_CRI_NAMESPACE, DockerStore, type RecordStore } from '../stores/index.js';
import type { StoreSpec } from './plan-file.js';

/** A store spec with absolute paths and defaults filled in, as a plan records it. */
export function normalizeStoreSpec(spec: StoreSpec): StoreSpec {
  switch (spec.runtime) {
    case 'containerd':
      return { runtime: 'containerd', root: resolve(spec.root), namespace: spec.namespace || DEFAULT_CRI_NAMESPACE };
    case 'cri-o':
      return {
        runtime: 'cri-o',
        graphRoot: resolve(spec.graphRoot),
        ...(spec.runRoot !== undefined ? { runRoot: resolve(spec.runRoot) } : {}),
      };
    case 'docker':
      return {
        runtime: 'docker',
        root: resolve(spec.root),
        ...(spec.daemonConfig !== undefined ? { daemonConfig: resolve(spec.daemonConfig) } : {}),
      };
    case 'records':
      return { runtime: 'records', files: spec.files.map((f) => resolve(f)) };
  }
}

/** The store of `spec`; record files are not a store (they can be planned, not applied). */
export function openStore(spec: StoreSpec): RecordStore {
  switch (spec.runtime) {
    case 'containerd':
      return new ContainerdStore({ root: spec.root, namespace: spec.namespace });
    case 'cri-o':
      return new CrioStore({
        graphRoot: spec.graphRoot,
        ...(spec.runRoot !== undefined ? { runRoot: spec.runRoot } : {}),
      });
    case 'docker':
      return new DockerStore({
        root: spec.root,
        ...(spec.daemonConfig !== undefined ? { daemonConfig: spec.daemonConfig } : {}),
      });
    case 'records':
      throw new OptionError(
        'INVALID_OPTION',
        ['store'],
        "a plan made from a runtime's persisted store (--containerd-root, --crio-root or --docker-root)",
        'record files (crictl inspect, docker inspect output) are read-only views of the runtime',
      );
  }
}
