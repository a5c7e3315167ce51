/**
 * A containerd meta.db of a big node for benchmarks: `count` CRI containers of realistic pods (see
 * test/support/cri-fixtures.ts) with kubelet-1.30 hashes, each with its spec, labels, runtime and
 * timestamps as containerd stores them, and the synced freelist of containerd 1.4/1.6.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeBoltFile, type BoltTree } from '../../test/support/bolt-builder.js';
import { criRecord, fixtureContainers, fixturePod, type FixtureContainer } from '../../test/support/cri-fixtures.js';
import { containerdMetaDbPath } from '../../src/stores/containerd/store.js';

export function buildNode(root: string, count: number, freelist: 'synced' | 'none' = 'synced'): FixtureContainer[] {
  const pods = Array.from({ length: Math.ceil(count * 0.8) }, (_, i) => fixturePod(i));
  const all = fixtureContainers(pods, '1.30').slice(0, count);
  const containers: BoltTree = {};
  for (const f of all) {
    const { id, ...record } = criRecord(f, 1500);
    containers[id] = {
      ...record,
      createdat: Buffer.alloc(15, 1),
      image: 'registry.example.com/team/app:1.0',
      runtime: { name: 'io.containerd.runc.v2' },
      sandboxid: f.sandboxId,
      snapshotKey: f.id,
      snapshotter: 'overlayfs',
      updatedat: Buffer.alloc(15, 1),
    };
  }
  mkdirSync(join(root, 'io.containerd.metadata.v1.bolt'), { recursive: true });
  writeBoltFile(
    containerdMetaDbPath(root),
    { v1: { 'k8s.io': { containers }, version: Buffer.from([3]) } },
    { freelist, freePages: 50 },
  );
  return all;
}
