/**
 * The live Go differential of the pod-level decision: for each release of
 * test/support/go/pod-actions-judge/releases.txt, that release's own computePodActions
 * (.ci/provision/47-pod-actions-judges.sh) and predictRestarts judge the same generated pods: init
 * containers, sidecars, regular and ephemeral containers in every runtime state (absent, created,
 * running, exited 0/1/137, unknown), changed specs, liveness and startup probe results, a sandbox
 * that is missing, not ready or without an IP, hostNetwork, the pod's and (1.34+) a container's own
 * restart policy, (1.35+) restartPolicyRules with RestartAllContainers and the AllContainersRestarting
 * condition, and the release's feature gates. Compared per pod: the pod-level action, and per
 * container whether the kubelet starts it and whether it kills it in this sync.
 *
 * Seeded (`KH_POD_DIFF_SEED`, printed), `KH_POD_DIFF_N` cases per release (10,000 by default). In CI
 * (CI=true) a missing judge fails; elsewhere the missing ones are skipped with the command.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineJudge } from '../support/line-judge.js';
import { caseLine, compare, scenarioArb, type GoAnswer, type Tally } from '../support/pod-actions-cases.js';
import { POD_ACTIONS_JUDGES_HOW, podActionsJudges, type PodActionsJudge } from '../support/pod-actions-judges.js';

const PER_RELEASE = Number(process.env.KH_POD_DIFF_N ?? 10_000);
const BATCH = 1_000;
const SEED = Number(process.env.KH_POD_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REPLAY = `KH_POD_DIFF_SEED=${SEED} KH_POD_DIFF_N=${PER_RELEASE}`;

const inCi = process.env.CI === 'true';
const judges = podActionsJudges();
const ready = judges.filter((j): j is PodActionsJudge & { path: string; version: string } => j.path !== undefined);
const missing = judges.filter((j) => j.path === undefined);

// The closing `real:` line: every case of every release, all asserted the same.
const title = `real: Go computePodActions differential (${ready.map((j) => j.minor).join(', ')}) — ${ready.length * PER_RELEASE} cases, 0 different`;

describe.runIf(ready.length > 0 || inCi)(title, () => {
  const processes = new Map<string, LineJudge>();
  const tallies = new Map<string, Tally>();

  beforeAll(() => {
    for (const j of ready) {
      processes.set(j.minor, new LineJudge(j.path));
      tallies.set(j.minor, { cases: 0, same: 0, diverged: 0, mismatches: [], podActions: new Map() });
    }
  });
  afterAll(async () => {
    await Promise.all([...processes.values()].map((p) => p.close()));
  });

  if (inCi && missing.length) {
    it('has every pod-actions judge (required in CI)', () => {
      throw new Error(
        `CI requires every pod-actions judge, but ${missing.map((j) => j.missing ?? j.minor).join('; ')}. ${POD_ACTIONS_JUDGES_HOW}`,
      );
    });
  }
  for (const j of inCi ? [] : missing)
    it.skip(`kubelet ${j.minor} did not run: ${j.missing ?? '?'}; to run it: ${POD_ACTIONS_JUDGES_HOW}`, () => {});

  it(`streams ${PER_RELEASE} generated pods per release through each judge (seed ${SEED})`, async () => {
    const started = performance.now();
    for (const [rank, j] of ready.entries()) {
      const minor = Number(j.minor.split('.')[1]);
      const judge = processes.get(j.minor)!;
      const tally = tallies.get(j.minor)!;
      for (let done = 0, batch = 0; done < PER_RELEASE; done += BATCH, batch++) {
        const size = Math.min(BATCH, PER_RELEASE - done);
        const cases = fc.sample(scenarioArb(minor), { numRuns: size, seed: SEED + rank * 1000 + batch });
        const answers = await judge.judge<GoAnswer>(cases.map((s, i) => caseLine(s, minor, done + i)));
        cases.forEach((s, i) => compare(j.minor, s, answers[i]!, tally));
      }
    }
    console.info(
      `[pod-actions-judges] ${ready.length} releases × ${PER_RELEASE} pods in ${((performance.now() - started) / 1000).toFixed(1)}s (${REPLAY})`,
    );
  }, 1_800_000);

  for (const j of ready) {
    it(`kubelet ${j.minor} (${j.version}): the same pod action, starts and kills`, () => {
      const tally = tallies.get(j.minor)!;
      const seen = [...tally.podActions].map(([a, n]) => `${a} ${n}`).join(', ');
      console.info(
        `[pod-actions-judge ${j.minor}] ${tally.cases} cases, ${tally.same} the same, ${tally.diverged} different (pod actions: ${seen}; ${REPLAY})`,
      );
      expect(tally.mismatches, `${tally.diverged} different (${REPLAY})`).toEqual([]);
      expect(tally.cases).toBe(PER_RELEASE);
      // The generator reaches every pod-level outcome.
      const actions = ['none', 'create-sandbox', 'kill-and-recreate', 'kill'] as const;
      // RestartAllContainers (1.35+): some pods are reset.
      for (const action of Number(j.minor.split('.')[1]) >= 35 ? [...actions, 'restart-all' as const] : actions)
        expect(tally.podActions.get(action) ?? 0, action).toBeGreaterThan(PER_RELEASE / 100);
    });
  }
});

if (!inCi && ready.length === 0) {
  describe.skip('real: Go computePodActions differential', () => {
    it(`did not run: no pod-actions judge is built; to run it: ${POD_ACTIONS_JUDGES_HOW}`, () => {});
  });
}
