/**
 * The one rule a node plan's success rests on: every container the runtime holds where the
 * kubelet's containers live, and every running container of every API pod on the node, was
 * joined and checked. planUpgrade marks API containers without a record and records without an
 * API pod `unknown` (so they can never pass); this refuses the views in which that marking cannot
 * happen because one side was never read: no pod given, a containerd namespace that is not the
 * kubelet's, a store that is empty while the pods run, a CRI-O runroot left out. Plan and verify
 * (and every library function over them) go through {@link checkNodeCoverage}.
 */
import { existsSync, statSync } from 'node:fs';
import { StoreError } from '../errors.js';
import { containerdCensus } from '../stores/index.js';
import type { StoreSpec } from './plan-file.js';

/** What the store holds, for a refusal: where it was read and how many records each namespace has. */
function describeStore(store: StoreSpec): string {
  switch (store.runtime) {
    case 'containerd': {
      const census = containerdCensus(store.root);
      const counts = census.namespaces.map(
        (n) => `${n.namespace}: ${n.containers} containers, ${n.criContainers} CRI containers`,
      );
      return `read ${census.dbPath}, namespace ${JSON.stringify(store.namespace)}; namespaces in the file: ${counts.length > 0 ? counts.join('; ') : 'none'}`;
    }
    case 'cri-o':
      return `read ${store.graphRoot}/overlay-containers/*/userdata/config.json`;
    case 'docker':
      return `read ${store.root}/containers/*/config.v2.json`;
    case 'records':
      return `read ${store.files.length} record files`;
  }
}

/** The facts of one join of a node's pods with its store. */
export interface CoverageFacts {
  store: StoreSpec;
  /** The records read (store order). */
  records: readonly unknown[];
  /** Record files that could not be read (each becomes an `unknown` entry). */
  unreadable: number;
  /** How many API pods were given (all nodes). */
  podsGiven: number;
  /** planUpgrade's count of running containers of the API pods on the node. */
  nodeContainers: number;
}

/** The CRI containers of a containerd meta.db outside `namespace`: the kubelet's may be there. */
function otherCriNamespaces(store: Extract<StoreSpec, { runtime: 'containerd' }>): string[] {
  const census = containerdCensus(store.root);
  return census.namespaces
    .filter((n) => n.namespace !== store.namespace && n.criContainers > 0)
    .map((n) => `${n.namespace} (${n.criContainers} CRI containers)`);
}

/** Refuses a CRI-O store whose runroot copies would be left unread or unwritten. */
/** The store's root directory: the location of a StoreError about the store as a whole. */
function storeRoot(store: StoreSpec): string {
  switch (store.runtime) {
    case 'cri-o':
      return store.graphRoot;
    case 'records':
      return store.files.join(' + ');
    default:
      return store.root;
  }
}

function checkRunRoot(store: Extract<StoreSpec, { runtime: 'cri-o' }>, records: number): void {
  if (store.runRoot !== undefined) {
    let isDir: boolean;
    try {
      isDir = statSync(store.runRoot).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir)
      throw new StoreError(
        'MISSING_RUNROOT',
        ['store', 'runRoot'],
        "CRI-O's runroot (storage.conf runroot, default /run/containers/storage): a directory",
        `${store.runRoot} ${existsSync(store.runRoot) ? 'is not a directory' : 'does not exist'}`,
        store.runRoot,
      );
    return;
  }
  if (records > 0)
    throw new StoreError(
      'MISSING_RUNROOT',
      ['store', 'runRoot'],
      "CRI-O's runroot too (--crio-runroot, storage.conf runroot, default /run/containers/storage): CRI-O keeps a copy of every config.json there, and a plan without it would leave those copies with the old hash",
      `${records} containers in ${store.graphRoot}`,
      store.graphRoot,
    );
}

/**
 * Refuses (typed {@link StoreError}, naming what is missing) a join that would leave containers
 * unchecked: see the module comment. Called once per plan or verification, before any entry is used.
 */
export function checkNodeCoverage(facts: CoverageFacts): void {
  const { store, records, unreadable, podsGiven, nodeContainers } = facts;
  const held = records.length + unreadable;
  // Nothing read while the API pods run containers here: a wrong root or namespace, never "all clear".
  if (held === 0 && nodeContainers > 0) {
    throw new StoreError(
      'EMPTY_STORE',
      [],
      `CRI container records for the ${nodeContainers} running containers of the node's API pods`,
      `no record found: wrong --namespace or runtime root? (${describeStore(store)})`,
      storeRoot(store),
    );
  }
  // No pod view: every record would be checked against nothing (an empty `--pods -`, an empty List).
  if (podsGiven === 0 && held > 0) {
    throw new StoreError(
      'EMPTY_POD_VIEW',
      ['pods'],
      "the node's API pods (kubectl get pods -A --field-selector spec.nodeName=NODE -o json): the store holds containers to check against them",
      `no pod given; ${held} container records (${describeStore(store)})`,
      storeRoot(store),
    );
  }
  // Refused only when the namespace read holds no CRI container while another does. The kubelet's
  // CRI plugin serves one namespace; when the one read holds CRI containers, the join already makes
  // every running API container without a record there, and every record there without an API pod,
  // `unknown` (never a pass), so a wrong --namespace cannot pass silently; the CRI containers of the
  // other namespaces are ones that plugin does not serve (and verify --runtime-endpoint asks it).
  // Refusing them too left a node with, say, a leftover CRI-labelled namespace no way through.
  if (store.runtime === 'containerd' && records.length === 0) {
    const others = otherCriNamespaces(store);
    if (others.length > 0)
      throw new StoreError(
        'NAMESPACE_MISMATCH',
        ['store', 'namespace'],
        `the kubelet's CRI containers in the namespace read (${JSON.stringify(store.namespace)})`,
        `it holds none, while other namespaces hold CRI containers that would go unchecked: ${others.join(', ')} (${describeStore(store)})`,
        storeRoot(store),
      );
  }
  if (store.runtime === 'cri-o') checkRunRoot(store, records.length);
}
