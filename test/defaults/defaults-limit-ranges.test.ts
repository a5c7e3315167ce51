/**
 * LimitRanger defaulting, with expected values worked out from the 1.20.2 sources (read in the
 * provisioned tree and a 1.32-era tree, unchanged there): plugin/pkg/admission/limitranger/admission.go
 * (defaultContainerResourceRequirements, mergeContainerResources, mergePodResourceRequirements) and
 * pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem (default ← max, defaultRequest ← default,
 * then ← min) with SetDefaults_ResourceList (RoundUp(-3)) from zz_generated.defaults.go.
 */
import { describe, expect, it } from 'vitest';
import {
  applyApiserverDefaults,
  applyApiserverDefaultsReport,
  hashContainer,
  limitRangerAnnotation,
} from '../../src/index.js';
import { errorOf } from '../support/error-of.js';

const BASE = {
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
};
const lr = (...limits: object[]): object => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name: 'x' },
  spec: { limits },
});
const report = (c: object, limitRanges?: unknown, more: object = {}) =>
  applyApiserverDefaultsReport(c, {
    kubeletVersion: '1.20',
    ...(limitRanges !== undefined ? { limitRanges } : {}),
    ...more,
  });
const resources = (c: object, limitRanges?: unknown, more: object = {}): unknown =>
  report(c, limitRanges, more).container['resources'];

const DEFAULTS = lr({ type: 'Container', default: { cpu: '0.5', memory: '256Mi' }, defaultRequest: { cpu: '100m' } });

describe('LimitRanger fills what a container leaves unset', () => {
  it('default → limits, defaultRequest → requests; a missing defaultRequest comes from default', () => {
    const r = report({ name: 'c', image: 'i:1' }, DEFAULTS);
    expect(r.container).toEqual({
      name: 'c',
      image: 'i:1',
      resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } },
      ...BASE,
    });
    expect(r.limitRanger).toEqual([{ limitRange: 0, limits: ['cpu', 'memory'], requests: ['cpu', 'memory'] }]);
    expect(r.assumptions).toEqual([]);
  });

  it('after the release defaults: requests copied from the container limits win over defaultRequest', () => {
    const r = report({ name: 'c', image: 'i:1', resources: { limits: { cpu: '1' } } }, DEFAULTS);
    expect(r.container['resources']).toEqual({
      limits: { cpu: '1', memory: '256Mi' },
      requests: { cpu: '1', memory: '256Mi' },
    });
    expect(r.limitRanger).toEqual([{ limitRange: 0, limits: ['memory'], requests: ['memory'] }]);
    // a request the container sets is kept, a missing limit is filled
    expect(
      resources({ name: 'c', image: 'i:1', resources: { requests: { cpu: '50m', memory: '1Gi' } } }, DEFAULTS),
    ).toEqual({
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { cpu: '50m', memory: '1Gi' },
    });
  });

  it('a max without default becomes the default limit (and request); a min the default request only', () => {
    expect(resources({ name: 'c', image: 'i:1' }, lr({ type: 'Container', max: { memory: '1Gi' } }))).toEqual({
      limits: { memory: '1Gi' },
      requests: { memory: '1Gi' },
    });
    expect(resources({ name: 'c', image: 'i:1' }, lr({ type: 'Container', min: { cpu: '10m' } }))).toEqual({
      requests: { cpu: '10m' },
    });
    expect(
      resources(
        { name: 'c', image: 'i:1' },
        lr({ type: 'Container', max: { cpu: '2' }, default: { cpu: '1' }, min: { cpu: '10m' } }),
      ),
    ).toEqual({ limits: { cpu: '1' }, requests: { cpu: '1' } });
  });

  it('quantities as the apiserver stores the LimitRange: rounded up to milli, String() form', () => {
    expect(
      resources({ name: 'c', image: 'i:1' }, lr({ type: 'Container', default: { cpu: '100u', memory: 1073741824 } })),
    ).toEqual({
      // a plain number is DecimalSI: 2^30 keeps its digits (only BinarySI input prints as Gi)
      limits: { cpu: '1m', memory: '1073741824' },
      requests: { cpu: '1m', memory: '1073741824' },
    });
  });

  it('Pod and PersistentVolumeClaim items never default; later Container items of one LimitRange win', () => {
    expect(
      resources(
        { name: 'c', image: 'i:1' },
        lr({ type: 'Pod', max: { cpu: '2' } }, { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } }),
      ),
    ).toEqual({});
    expect(
      resources(
        { name: 'c', image: 'i:1' },
        lr({ type: 'Container', default: { cpu: '1' } }, { type: 'Container', default: { cpu: '2' } }),
      ),
    ).toEqual({ limits: { cpu: '2' }, requests: { cpu: '2' } });
  });

  it('several LimitRanges: the first to set a key wins; a List / LimitRangeList / array are all read', () => {
    const first = lr({ type: 'Container', default: { cpu: '1' } });
    const second = lr({ type: 'Container', default: { cpu: '2', memory: '1Gi' } });
    const want = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } };
    expect(resources({ name: 'c', image: 'i:1' }, [first, second])).toEqual(want);
    expect(resources({ name: 'c', image: 'i:1' }, { apiVersion: 'v1', kind: 'List', items: [first, second] })).toEqual(
      want,
    );
    expect(
      resources(
        { name: 'c', image: 'i:1' },
        { kind: 'LimitRangeList', items: [{ spec: (first as { spec: object }).spec }, second] },
      ),
    ).toEqual(want);
    expect(report({ name: 'c', image: 'i:1' }, [first, second]).limitRanger).toEqual([
      { limitRange: 0, limits: ['cpu'], requests: ['cpu'] },
      { limitRange: 1, limits: ['memory'], requests: ['memory'] },
    ]);
  });

  it('init containers are defaulted, ephemeral containers are not', () => {
    expect(resources({ name: 'c', image: 'i:1' }, DEFAULTS, { list: 'initContainers' })).toEqual({
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { cpu: '100m', memory: '256Mi' },
    });
    const eph = report({ name: 'c', image: 'i:1' }, DEFAULTS, { list: 'ephemeralContainers' });
    expect(eph.container['resources']).toEqual({});
    expect(eph.limitRanger).toEqual([]);
    expect(eph.assumptions).toEqual([]);
  });

  it('the hash is that of the container with the defaults written out; the input objects are untouched', () => {
    const c = { name: 'c', image: 'i:1' };
    const ranges = [DEFAULTS];
    const frozen = structuredClone([c, ranges]);
    for (const v of ['1.20', '1.26']) {
      const out = applyApiserverDefaults(c, { kubeletVersion: v, limitRanges: ranges });
      expect(hashContainer(out, { kubeletVersion: v })).toBe(
        hashContainer(
          {
            ...c,
            ...BASE,
            resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } },
          },
          { kubeletVersion: v },
        ),
      );
      expect(hashContainer(out, { kubeletVersion: v })).not.toBe(
        hashContainer(applyApiserverDefaults(c, { kubeletVersion: v }), { kubeletVersion: v }),
      );
    }
    expect([c, ranges]).toEqual(frozen);
  });
});

describe('the pod annotation', () => {
  it('lists requests then limits per container, containers before init containers; the last LimitRange that set anything wins', () => {
    const spec = {
      initContainers: [{ name: 'init', image: 'i:1' }],
      containers: [
        { name: 'web', image: 'i:1', resources: { limits: { cpu: '1', memory: '1Gi' } } },
        { name: 'side', image: 'i:1' },
      ],
    };
    expect(limitRangerAnnotation(spec, { kubeletVersion: '1.20', limitRanges: [DEFAULTS] })).toBe(
      'LimitRanger plugin set: cpu, memory request for container side; cpu, memory limit for container side; ' +
        'cpu, memory request for init container init; cpu, memory limit for init container init',
    );
    const later = lr({ type: 'Container', default: { 'ephemeral-storage': '1Gi' } });
    expect(limitRangerAnnotation(spec, { kubeletVersion: '1.20', limitRanges: [DEFAULTS, later] })).toBe(
      'LimitRanger plugin set: ephemeral-storage request for container web; ephemeral-storage limit for container web; ' +
        'ephemeral-storage request for container side; ephemeral-storage limit for container side; ' +
        'ephemeral-storage request for init container init; ephemeral-storage limit for init container init',
    );
    expect(limitRangerAnnotation(spec, { kubeletVersion: '1.20', limitRanges: [] })).toBeNull();
  });
});

describe('when no LimitRanges are given', () => {
  it('a container whose hash covers resources and lacks cpu or memory says what it assumes', () => {
    expect(report({ name: 'c', image: 'i:1' }).assumptions).toHaveLength(1);
    expect(report({ name: 'c', image: 'i:1' }).assumptions[0]).toMatch(/no LimitRange/);
    expect(report({ name: 'c', image: 'i:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }).assumptions).toEqual(
      [],
    );
    expect(report({ name: 'c', image: 'i:1' }, []).assumptions).toEqual([]); // the namespace has none
    expect(report({ name: 'c', image: 'i:1' }, undefined, { kubeletVersion: '1.31' }).assumptions).toEqual([]); // name and image only
  });
});

describe('bad LimitRange input gets typed errors with the JSON path', () => {
  const cases: [unknown, string, (string | number)[]][] = [
    ['x', 'INVALID_OPTION', ['options', 'limitRanges']],
    [{ kind: 'Pod' }, 'INVALID_OPTION', ['options', 'limitRanges', 'kind']],
    [{ kind: 'List', items: {} }, 'INVALID_OPTION', ['options', 'limitRanges', 'items']],
    [[{ apiVersion: 'v2', kind: 'LimitRange' }], 'INVALID_OPTION', ['options', 'limitRanges', 0, 'apiVersion']],
    [[{ spec: [] }], 'INVALID_OPTION', ['options', 'limitRanges', 0, 'spec']],
    [[{ spec: { limits: {} } }], 'INVALID_OPTION', ['options', 'limitRanges', 0, 'spec', 'limits']],
    [[{ spec: { limits: [7] } }], 'INVALID_OPTION', ['options', 'limitRanges', 0, 'spec', 'limits', 0]],
    [
      [{ spec: { limits: [{ type: 3 }] } }],
      'INVALID_OPTION',
      ['options', 'limitRanges', 0, 'spec', 'limits', 0, 'type'],
    ],
    [
      [{ spec: { limits: [{ type: 'Container', default: [] }] } }],
      'INVALID_OPTION',
      ['options', 'limitRanges', 0, 'spec', 'limits', 0, 'default'],
    ],
    [
      [{ spec: { limits: [{ type: 'Container', default: { cpu: '1x' } }] } }],
      'INVALID_QUANTITY',
      ['options', 'limitRanges', 0, 'spec', 'limits', 0, 'default', 'cpu'],
    ],
    [
      [{ spec: { limits: [{ type: 'Pod', max: { cpu: true } }] } }],
      'INVALID_OPTION',
      ['options', 'limitRanges', 0, 'spec', 'limits', 0, 'max', 'cpu'],
    ],
  ];
  for (const [input, code, path] of cases) {
    it(`${JSON.stringify(input)} → ${code} at ${path.join('.')}`, () => {
      const e = errorOf(() =>
        applyApiserverDefaults({ name: 'c', image: 'i' }, { kubeletVersion: '1.20', limitRanges: input }),
      );
      expect(e.code).toBe(code);
      expect(e.path).toEqual(path);
    });
  }
});
