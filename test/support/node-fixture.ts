/**
 * The node set-up the upgrade tests share: the pods file the CLI reads, a containerd meta.db holding
 * fixture containers' CRI records as a kubelet left them, and the `plan` command line over them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerdMetaDbPath } from '../../src/stores/index.js';
import { writeBoltFile, type BoltTree } from './bolt-builder.js';
import { criRecord, type FixtureContainer } from './cri-fixtures.js';

/** Writes `pods` as the API serves them (`kubectl get pods -o json`: a PodList) to `file`; returns `file`. */
export function writePodList(file: string, pods: readonly unknown[], kind: 'PodList' | 'List' = 'PodList'): string {
  writeFileSync(
    file,
    JSON.stringify(kind === 'List' ? { apiVersion: 'v1', kind, items: pods } : { kind, items: pods }),
  );
  return file;
}

/** A containerd root whose meta.db holds `fixtures`' CRI records (namespace k8s.io); returns `root`. */
export function writeContainerdNode(root: string, fixtures: readonly FixtureContainer[]): string {
  mkdirSync(join(root, 'io.containerd.metadata.v1.bolt'), { recursive: true });
  const containers: BoltTree = {};
  for (const f of fixtures) {
    const { id, ...record } = criRecord(f);
    containers[id] = {
      ...record,
      createdat: Buffer.alloc(15, 1),
      runtime: { name: 'io.containerd.runc.v2' },
      updatedat: Buffer.alloc(15, 1),
    };
  }
  writeBoltFile(
    containerdMetaDbPath(root),
    { v1: { 'k8s.io': { containers }, version: Buffer.from([3]) } },
    { freelist: 'none' },
  );
  return root;
}

/** `kubelet-hash plan --from FROM --to TO --pods FILE STORE… [EXTRA…] [--out FILE]` (1.30 → 1.31 unless told). */
export function planArgs(options: {
  podsFile: string;
  store: readonly string[];
  out?: string;
  from?: string;
  to?: string;
  extra?: readonly string[];
}): string[] {
  const { podsFile, store, out, from = '1.30', to = '1.31', extra = [] } = options;
  return ['plan', '--from', from, '--to', to, '--pods', podsFile, ...store, ...extra, ...(out ? ['--out', out] : [])];
}
