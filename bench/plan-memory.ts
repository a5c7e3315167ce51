/**
 * Child process of the benchmark suite: plans a node-wide `docker inspect` text of the given size
 * (MB) and prints, as JSON, the process's peak resident memory before and after planning.
 * Run: node --expose-gc --import tsx bench/plan-memory.ts 50
 */
import { resourceUsage } from 'node:process';
import { planUpgrade } from '../src/index.js';
import { nodeWideDockerInspect } from './fleet.js';

const megabytes = Number(process.argv[2] ?? 50);
const { text, pods } = nodeWideDockerInspect(megabytes);
(globalThis as { gc?: () => void }).gc?.();
const peakBefore = resourceUsage().maxRSS / 1024;
const rssBefore = process.memoryUsage().rss / 2 ** 20;
const t0 = performance.now();
const plan = planUpgrade({ pods, records: [text], from: '1.29', to: '1.33' });
const ms = performance.now() - t0;
const peakAfter = resourceUsage().maxRSS / 1024;
if (plan.counts.rewrite !== pods.length)
  throw new Error(`expected ${pods.length} rewrites, got ${JSON.stringify(plan.counts)}`);
console.log(
  JSON.stringify({
    inputMB: text.length / 1e6,
    containers: pods.length,
    ms,
    rssBeforeMB: rssBefore,
    peakBeforeMB: peakBefore,
    peakAfterMB: peakAfter,
  }),
);
