/** predictRollout's refusals of bad input and its edges: options, kinds, unknown controllers, caller input untouched. */
import { describe, expect, it } from 'vitest';
import { DecodeError, OptionError, predictRollout } from '../../src/index.js';

const c = (image: string) => ({ name: 'web', image });
const cloneSet = (image: string) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web' },
  spec: { updateStrategy: { type: 'InPlaceIfPossible' }, template: { spec: { containers: [c(image)] } } },
});
const deployment = (image: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { template: { metadata: { labels }, spec: { containers: [c(image)] } } },
});

function thrown(run: () => unknown): { error: unknown } {
  try {
    run();
  } catch (error) {
    return { error };
  }
  return { error: undefined };
}

describe('predictRollout: options', () => {
  it('an OpenKruise workload needs openKruise, a modelled release and known gates', () => {
    const cases: [unknown, string, (string | number)[]][] = [
      [undefined, 'INVALID_OPTION', ['openKruise']],
      [{ version: 'v2.0' }, 'INVALID_OPTION', ['openKruise', 'version']],
      [
        { version: 'v1.8', featureGates: { Nope: true } },
        'UNKNOWN_FEATURE_GATE',
        ['openKruise', 'featureGates', 'Nope'],
      ],
      [
        { version: 'v1.7', featureGates: { InPlaceWorkloadVerticalScaling: true } },
        'UNKNOWN_FEATURE_GATE',
        ['openKruise', 'featureGates', 'InPlaceWorkloadVerticalScaling'],
      ],
      [
        { version: 'v1.8', featureGates: { InPlaceUpdateEnvFromMetadata: 'maybe' } },
        'INVALID_OPTION',
        ['openKruise', 'featureGates', 'InPlaceUpdateEnvFromMetadata'],
      ],
    ];
    for (const [openKruise, code, path] of cases) {
      const { error } = thrown(() =>
        predictRollout(cloneSet('a:1'), cloneSet('a:2'), { kubeletVersion: '1.31', openKruise } as never),
      );
      expect(error).toBeInstanceOf(OptionError);
      expect((error as OptionError).code).toBe(code);
      expect((error as OptionError).path).toEqual(path);
    }
  });

  it('refuses a missing kubelet version, unknown kubelet gates and a kind that changed', () => {
    expect(thrown(() => predictRollout(deployment('a'), deployment('b'), {})).error).toBeInstanceOf(Error);
    const gate = thrown(() =>
      predictRollout(deployment('a'), deployment('b'), { kubeletVersion: '1.31', featureGates: { Nope: true } }),
    );
    expect((gate.error as OptionError).code).toBe('UNKNOWN_FEATURE_GATE');
    const kind = thrown(() =>
      predictRollout(
        deployment('a'),
        { ...cloneSet('b'), apiVersion: 'apps/v1', kind: 'DaemonSet' },
        { kubeletVersion: '1.31' },
      ),
    );
    expect(kind.error).toBeInstanceOf(DecodeError);
    expect((kind.error as DecodeError).path).toEqual(['kind']);
  });
});

describe('predictRollout: edges', () => {
  it('a controller it does not model is not predictable (exit 2), not an all-clear', () => {
    const rollout = (image: string) => ({ ...deployment(image), apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' });
    const p = predictRollout(rollout('a'), rollout('b'), { kubeletVersion: '1.31' });
    expect([p.verdict, p.exitCode]).toEqual(['unpredictable', 2]);
    // A StatefulSet kind under OpenKruise's group but an unmodelled one of its kinds is not a native StatefulSet either.
    const broadcast = (image: string) => ({ ...cloneSet(image), kind: 'BroadcastJob' });
    expect(predictRollout(broadcast('a'), broadcast('b'), { kubeletVersion: '1.31' }).exitCode).toBe(2);
  });

  it("the Deployment's pod-template-hash label is not a template change (EqualIgnoreHash)", () => {
    const p = predictRollout(
      deployment('a', { 'pod-template-hash': '1' }),
      deployment('a', { 'pod-template-hash': '2' }),
      {
        kubeletVersion: '1.31',
      },
    );
    expect([p.verdict, p.exitCode]).toEqual(['unchanged', 0]);
    expect(
      predictRollout(deployment('a', { app: '1' }), deployment('a', { app: '2' }), { kubeletVersion: '1.31' }).verdict,
    ).toBe('replaced');
  });

  it('a sidecar added at 1.28 with SidecarContainers off is refused by the apiserver (no "start")', () => {
    const pod = (init: unknown[]) => ({
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [c('a')], initContainers: init },
    });
    const p = predictRollout(pod([]), pod([{ name: 'side', image: 'b', restartPolicy: 'Always' }]), {
      kubeletVersion: '1.28',
      featureGates: { SidecarContainers: false },
    });
    expect([p.verdict, p.field, p.kubelet]).toEqual(['refused', 'spec.initContainers', undefined]);
  });

  it("leaves the caller's objects as they were", () => {
    const before = cloneSet('a:1');
    const after = cloneSet('a:2');
    const copies = JSON.stringify([before, after]);
    predictRollout(before, after, { kubeletVersion: '1.31', openKruise: { version: 'v1.8' } });
    predictRollout(deployment('a'), deployment('b'), { kubeletVersion: '1.31' });
    expect(JSON.stringify([before, after])).toBe(copies);
  });

  it('a decode error in a template container is rooted where the container sits', () => {
    const bad = {
      ...deployment('a'),
      spec: { template: { spec: { containers: [{ name: 'web', image: 'a', ports: 'x' }] } } },
    };
    const { error } = thrown(() => predictRollout(deployment('a'), bad, { kubeletVersion: '1.31' }));
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as DecodeError).path.slice(0, 5)).toEqual(['spec', 'template', 'spec', 'containers', 0]);
  });
});
