/**
 * Time and peak memory of ONE apply of 10,000 rewrites to one containerd meta.db, in a process of
 * its own running the compiled package with plain node, as the CLI runs (the file and the rewrites
 * are made by the parent, so making them does not count):
 *   npm run build && npx tsx bench/containerd-apply-memory.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashContainer } from '../src/hash-api/hash.js';
import { ContainerdStore, containerdMetaDbPath } from '../src/stores/containerd/store.js';
import { buildNode } from './support/containerd-node.js';

const COUNT = 10_000;
// The published node entry (dist/ is bundled: its modules are no longer files of their own).
const DIST_STORE = new URL('../dist/node.js', import.meta.url).href;

function peakRssMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

async function parent(): Promise<void> {
  for (const freelist of ['synced', 'none'] as const) {
    const root = mkdtempSync(join(tmpdir(), 'kh-bench-mem-'));
    const fixtures = buildNode(root, COUNT, freelist);
    const list = await new ContainerdStore({ root }).list();
    const byId = new Map(fixtures.map((f) => [f.id, f]));
    const rewrites = list.map((c) => ({
      containerId: c.containerId,
      fingerprint: c.fingerprint,
      change: {
        from: { hash: c.hash! },
        to: { hash: hashContainer(byId.get(c.containerId)!.container, { kubeletVersion: '1.31' }) },
      },
    }));
    const plan = join(root, 'rewrites.json');
    writeFileSync(plan, JSON.stringify(rewrites));
    const size = statSync(containerdMetaDbPath(root)).size;
    if (!existsSync(fileURLToPath(DIST_STORE)))
      throw new Error('run `npm run build` first: the child runs the compiled package');
    const child = join(root, 'child.mjs');
    writeFileSync(
      child,
      `${peakRssMb.toString()}\nconst DIST_STORE = ${JSON.stringify(DIST_STORE)};\nimport { readFileSync } from 'node:fs';\nimport { join } from 'node:path';\n${childSource()}\nawait child(process.argv[2], process.argv[3]);\n`,
    );
    const run = spawnSync(process.execPath, [child, root, plan], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    console.log(
      `freelist ${freelist}: meta.db ${(size / 1e6).toFixed(1)} MB, ${COUNT} containers: ${run.stdout.trim()}`,
    );
    rmSync(root, { recursive: true, force: true });
  }
}

/** The child's code as plain JavaScript (it runs without tsx, like the CLI). */
function childSource(): string {
  return `async function child(root, plan) {
  const { ContainerdStore: Store } = await import(DIST_STORE);
  const rewrites = JSON.parse(readFileSync(plan, 'utf8'));
  const baseline = peakRssMb();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const report = await new Store({ root }).apply(rewrites, { backupDir: join(root, 'backup') });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ changed: report.changed.length, applyMs: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), steps: report.timings, peakRssMb: Math.round(peakRssMb()), baselineRssMb: Math.round(baseline) }));
}`;
}

await parent();
