/**
 * planUpgrade over a node-sized fleet: 10,000 DaemonSet-like containers (5,000 pods × 2 containers
 * from two templates), records as parsed infos and as crictl-inspect texts. Identical specs are
 * hashed once, so the cost is the join, the stable keys and (for texts) record parsing.
 * Run: npx vitest bench --run bench/plan-upgrade.bench.ts
 */
import { bench, describe } from 'vitest';
import { planUpgrade } from '../src/plan/plan-upgrade.js';
import { daemonSetFleet } from './fleet.js';

const { pods, infos, texts } = daemonSetFleet(5000);

describe('planUpgrade, 10,000 DaemonSet containers (1.29 → 1.33)', () => {
  bench('records as parsed infos', () => {
    const plan = planUpgrade({ pods, records: infos, from: '1.29', to: '1.33' });
    if (plan.counts.rewrite !== 10000) throw new Error(`expected 10000 rewrites, got ${JSON.stringify(plan.counts)}`);
  });
  bench('records as crictl inspect texts', () => {
    const plan = planUpgrade({ pods, records: texts, from: '1.29', to: '1.33' });
    if (plan.counts.rewrite !== 10000) throw new Error(`expected 10000 rewrites, got ${JSON.stringify(plan.counts)}`);
  });
});
