/**
 * The conformance table of restart decisions (fixtures/kubelet-scenarios.json): scenarios taken
 * from the kubelet's own tests, each row naming its upstream test and tag, run through
 * predictRestarts for every release and gate setting the row lists.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { predictRestarts, RESTART_RULES, supportedReleases } from '../../src/index.js';

function expandReleases(releases: string[] | string): string[] {
  if (Array.isArray(releases)) return releases;
  const all = supportedReleases();
  const from = all.indexOf(releases.slice(0, -1));
  if (from < 0) throw new Error(`no release ${releases}`);
  return all.slice(from);
}

const actionSchema = z.enum(['restart', 'keep', 'start', 'remove', 'deferred', 'stays-stopped']);
const ruleIds = RESTART_RULES.map((r) => r.id) as [string, ...string[]];
const scenarioSchema = z.strictObject({
  id: z.string(),
  // tag: the first release whose file has the case (`v1.34.0`), or the pre-release read for 1.37 (`v1.37.0-beta.0`).
  upstream: z.strictObject({ file: z.string(), test: z.string(), tag: z.string().regex(/^v1\.\d+\.0(-beta\.\d+)?$/) }),
  note: z.string().optional(),
  staticPod: z.boolean().optional(),
  before: z.unknown(),
  after: z.unknown(),
  podStatus: z.unknown().optional(),
  // A row with no run, or a run expecting nothing, would pass without predicting anything.
  runs: z
    .array(
      z.strictObject({
        // A list, or `1.32+`: that release and every later one modelled (so a new release runs the row).
        releases: z.union([z.array(z.string()).min(1), z.string().regex(/^1\.\d+\+$/)]).transform(expandReleases),
        featureGates: z.record(z.string(), z.union([z.boolean(), z.string()])).optional(),
        expect: z
          .record(z.string(), actionSchema)
          .refine((e) => Object.keys(e).length > 0, 'expect names no container'),
        rules: z.record(z.string(), z.enum(ruleIds)).optional(),
      }),
    )
    .min(1),
});
const table = z
  .strictObject({ description: z.string(), scenarios: z.array(scenarioSchema).min(1) })
  .parse(JSON.parse(readFileSync(new URL('../../fixtures/kubelet-scenarios.json', import.meta.url), 'utf8')));

describe('kubelet scenario table', () => {
  it('refuses a row that would check nothing: no run, or a run expecting nothing', () => {
    const row = table.scenarios[0]!;
    const raw = { ...row, runs: [{ releases: ['1.30'], expect: { app: 'keep' } }] };
    expect(scenarioSchema.safeParse(raw).success).toBe(true);
    expect(scenarioSchema.safeParse({ ...raw, runs: [] }).success).toBe(false);
    expect(scenarioSchema.safeParse({ ...raw, runs: [{ releases: ['1.30'], expect: {} }] }).success).toBe(false);
    expect(scenarioSchema.safeParse({ ...raw, runs: [{ releases: [], expect: { app: 'keep' } }] }).success).toBe(false);
    expect(table.scenarios.length).toBeGreaterThan(20);
  });

  it('has unique ids and covers every rule the table of rules names, except the upgrade-only one', () => {
    const ids = table.scenarios.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    const used = new Set(table.scenarios.flatMap((s) => s.runs.flatMap((r) => Object.values(r.rules ?? {}))));
    const missing = RESTART_RULES.map((r) => r.id).filter((id) => !used.has(id));
    // Covered elsewhere: the kubelet-upgrade rule is a planUpgrade decision (api-restart-rules.test.ts,
    // api-plan.test.ts); the pod-level rules (sandbox, initialisation, probes, ephemeral containers,
    // a pod that is done) by the computePodActions table (decide-pod.test.ts), which needs
    // the sandbox and probe inputs this table does not carry; the 1.33+ sidecar resize has no
    // running-pod scenario yet.
    expect(missing.sort()).toEqual([
      'ephemeral-never-restarted',
      'ephemeral-start',
      'init-failed-pod-killed',
      'init-start',
      'killed-with-pod',
      'pod-done',
      'pod-sandbox-changed',
      'probe-failed',
      'resize-policy-sidecar',
      'restart-all-containers',
      'sandbox-not-recreated',
      'static-pod-kubelet-upgrade',
    ]);
  });

  for (const s of table.scenarios) {
    it(`${s.id}: ${s.upstream.test} @${s.upstream.tag}`, () => {
      for (const run of s.runs) {
        for (const release of run.releases) {
          const p = predictRestarts(s.before as object, s.after as object, {
            kubeletVersion: release,
            ...(run.featureGates ? { featureGates: run.featureGates } : {}),
            ...(s.staticPod ? { staticPod: true } : {}),
            ...(s.podStatus !== undefined ? { podStatus: s.podStatus } : {}),
          });
          const where = `${s.id} @${release} ${JSON.stringify(run.featureGates ?? {})}`;
          for (const [name, action] of Object.entries(run.expect)) {
            const c = p.containers.find((x) => x.name === name);
            expect(c, `${where}: ${name}`).toBeDefined();
            expect(c!.action, `${where}: ${name} (${c!.reason})`).toBe(action);
            expect(c!.reason.length).toBeGreaterThan(0);
          }
          for (const [name, rule] of Object.entries(run.rules ?? {})) {
            const c = p.containers.find((x) => x.name === name)!;
            expect(c.ruleId, `${where}: ${name} (${c.reason})`).toBe(rule);
            expect(c.ruleSource).toBe(RESTART_RULES.find((r) => r.id === rule)!.source);
          }
        }
      }
    });
  }
});
