/**
 * Apply of kubelet-hash rewrites to 10,000 CRI containers in ONE containerd meta.db: re-read every
 * record, check its fingerprint and stored hash, rewrite the hash inside the protobuf/JSON value,
 * commit one bbolt transaction (fsync), with the full-file invariant check before and after.
 * Each iteration flips every hash between the 1.30 and 1.31 values (list + apply).
 * Peak memory of a lone apply: `npx tsx bench/containerd-apply-memory.ts`.
 * Run: npx vitest bench --run bench/containerd-apply.bench.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bench, describe } from 'vitest';
import { hashContainer } from '../src/hash-api/hash.js';
import { ContainerdStore } from '../src/stores/containerd/store.js';
import { buildNode } from './support/containerd-node.js';

const COUNT = 10_000;
const root = mkdtempSync(join(tmpdir(), 'kh-bench-containerd-'));
const fixtures = buildNode(root, COUNT);
const hashes = new Map(
  fixtures.map((f) => [f.id, [f.hash, hashContainer(f.container, { kubeletVersion: '1.31' })] as const]),
);
const store = new ContainerdStore({ root });
const noCheck = new ContainerdStore({ root, checkAfterWrite: false });
let flip = 0;

async function applyAll(s: ContainerdStore): Promise<void> {
  const list = await s.list();
  const from = flip % 2;
  flip++;
  const rewrites = list.map((c) => {
    const pair = hashes.get(c.containerId)!;
    return {
      containerId: c.containerId,
      fingerprint: c.fingerprint,
      change: { from: { hash: pair[from]! }, to: { hash: pair[1 - from]! } },
    };
  });
  const report = await s.apply(rewrites);
  if (report.changed.length !== COUNT) throw new Error(`changed ${report.changed.length}`);
}

describe(`containerd meta.db, ${COUNT} containers`, () => {
  bench('list + apply (checks before and after)', () => applyAll(store), { iterations: 4, warmupIterations: 1 });
  bench('list + apply (check before only)', () => applyAll(noCheck), { iterations: 4, warmupIterations: 1 });
  bench(
    'list only',
    async () => {
      await store.list();
    },
    { iterations: 4, warmupIterations: 1 },
  );
});
