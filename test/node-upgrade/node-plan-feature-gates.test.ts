/**
 * `--feature-gates` through a whole upgrade on a containerd meta.db (the bbolt file containerd
 * keeps, written in containerd 1.7's layout): plan writes the gates as booleans, apply takes that
 * plan, verify with the same gates keeps every container. The gates are read once, at the flag.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/hash-api/index.js';
import { ContainerdStore, containerdMetaDbPath, fingerprintFile } from '../../src/stores/index.js';
import { planNodeUpgrade, type NodeUpgradePlan } from '../../src/node-upgrade/index.js';
import { cli } from '../support/cli.js';
import { planArgs, writeContainerdNode, writePodList } from '../support/node-fixture.js';
import { fixtureContainers, fixturePod } from '../support/cri-fixtures.js';
import { expectRealBboltAgrees } from '../support/real-bbolt.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-plan-gates-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const pods = Array.from({ length: 6 }, (_, i) => fixturePod(i));
const fixtures = fixtureContainers(pods, '1.30');

/** A containerd root whose meta.db holds the fixtures' CRI records, as a 1.30 kubelet left them. */
function containerdRoot(name: string): string {
  return writeContainerdNode(join(dir, name), fixtures);
}

describe('plan --feature-gates --out → apply → verify (containerd meta.db)', () => {
  const podsFile = writePodList(join(dir, 'pods.json'), pods);

  it.each(['true', 'True', '1', 't'])('InPlacePodVerticalScaling=%s: the plan applies and verifies', async (value) => {
    const root = containerdRoot(`ctd-${value}`);
    const store = ['--containerd-root', root];
    const gates = ['--feature-gates', `InPlacePodVerticalScaling=${value}`];
    const planFile = join(dir, `plan-${value}.json`);

    const planned = await cli(planArgs({ podsFile, store, extra: gates, out: planFile }));
    expect(planned.err).toBe('');
    expect(planned.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as NodeUpgradePlan;
    // One form: the boolean, whatever Go spelling the flag used.
    expect(plan.featureGates).toStrictEqual({ InPlacePodVerticalScaling: true });
    expect(plan.counts).toEqual({ keep: 0, rewrite: fixtures.length, 'will-restart': 0, unknown: 0 });

    const applied = await cli(['apply', planFile]);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    const want = Object.fromEntries(
      fixtures.map((f) => [f.id, hashContainer(f.container, { kubeletVersion: '1.31' })]),
    );
    const stored = Object.fromEntries((await new ContainerdStore({ root }).list()).map((c) => [c.containerId, c.hash]));
    expect(stored).toEqual(want);
    expectRealBboltAgrees(containerdMetaDbPath(root), { hashes: want });

    const verified = await cli(['verify', '--kubelet', '1.31', '--pods', podsFile, ...store, ...gates]);
    expect(verified.err).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.out).toContain(`${fixtures.length} of ${fixtures.length} containers keep running`);
  });

  it('the library writes booleans too, for gates given as Go text', async () => {
    const root = containerdRoot('ctd-api');
    const plan = await planNodeUpgrade({
      pods,
      from: '1.30',
      to: '1.31',
      featureGates: { InPlacePodVerticalScaling: 'T', SidecarContainers: 'false' },
      store: { runtime: 'containerd', root, namespace: 'k8s.io' },
    });
    expect(plan.featureGates).toStrictEqual({ InPlacePodVerticalScaling: true, SidecarContainers: false });
  });

  it('a gate value Go does not read is refused at the flag, before anything is planned', async () => {
    const root = containerdRoot('ctd-bad');
    const before = await fingerprintFile(containerdMetaDbPath(root));
    const planFile = join(dir, 'plan-bad.json');
    const r = await cli(
      planArgs({
        podsFile,
        store: ['--containerd-root', root],
        extra: ['--feature-gates', 'InPlacePodVerticalScaling=yes'],
        out: planFile,
      }),
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('INVALID_OPTION');
    expect(r.err).toContain('--feature-gates');
    expect(() => readFileSync(planFile)).toThrow();
    expect(await fingerprintFile(containerdMetaDbPath(root))).toBe(before);
  });

  it('planNodeUpgrade refuses featureGates that are not an object, naming the path', async () => {
    const root = containerdRoot('ctd-shape');
    await expect(
      planNodeUpgrade({
        pods,
        from: '1.30',
        to: '1.31',
        featureGates: 'InPlacePodVerticalScaling=true' as never,
        store: { runtime: 'containerd', root, namespace: 'k8s.io' },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', path: ['input', 'featureGates'] });
  });
});
