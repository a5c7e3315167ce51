/**
 * `applyApiserverDefaults` returns the container as the apiserver writes it back, byte for byte
 * once keys are sorted. Expected values come from the upstream types, not from our output:
 * `Quantity.MarshalJSON` writes `String()`, the canonical form of the parsed value
 * (apimachinery pkg/api/resource/quantity.go: `0.5` is 5×10^-1 → `500m`, `1024Mi` is 2^30 →
 * `1Gi`, `1.5e3` → `1500` (the format stays DecimalExponent)); `ResourceFieldSelector.Divisor` is a non-pointer Quantity (written as `"0"`
 * when unset); `Container.Resources` is a non-pointer struct (`{}` even when absent); slices, maps,
 * strings, bools and ints under `omitempty` vanish when empty, nil pointers vanish, and fields the
 * release's `v1.Container` lacks are dropped by its decoder (core/v1/types.go json tags, v1.20.2).
 */
import { describe, expect, it } from 'vitest';
import { applyApiserverDefaults, hashContainer } from '../../src/index.js';

const sorted = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : typeof x === 'bigint'
        ? `${x}n`
        : x,
  );
const stored = (c: string | object, kubeletVersion = '1.20', more: object = {}): Record<string, unknown> =>
  applyApiserverDefaults(c, { kubeletVersion, ...more });
const BASE = {
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
};

describe('quantities come out as Quantity.String() writes them', () => {
  const cases: [string | number, string][] = [
    ['0.5', '500m'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1e3', '1e3'], // DecimalExponent keeps its format
    ['1000m', '1'],
    ['0.1', '100m'],
    ['100u', '1m'], // RoundUp(-3) first
    ['2000000', '2M'],
    ['128974848', '128974848'],
    ['129e6', '129e6'],
    ['1.5e3', '1500'], // 15e2 → exponent a multiple of 3: 1500e0
    ['123Mi', '123Mi'],
    ['0', '0'],
    [1.5, '1500m'], // a JSON number: Quantity parses its text
  ];
  for (const [given, want] of cases) {
    it(`${JSON.stringify(given)} → ${want}`, () => {
      const out = stored({ name: 'c', image: 'i:1', resources: { limits: { cpu: given }, requests: { cpu: given } } });
      expect(sorted(out)).toBe(
        sorted({ name: 'c', image: 'i:1', resources: { limits: { cpu: want }, requests: { cpu: want } }, ...BASE }),
      );
    });
  }

  it('a resourceFieldRef divisor is a Quantity too: canonical, and "0" when unset', () => {
    const out = stored({
      name: 'c',
      image: 'i:1',
      env: [
        { name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1000m' } } },
        { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
      ],
    });
    expect(out['env']).toEqual([
      { name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } } },
      { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '0' } } },
    ]);
  });

  it('the hash is the same before and after (the kubelet sees the round trip either way)', () => {
    const c = { name: 'c', image: 'i:1', resources: { limits: { cpu: '0.5', memory: '1024Mi' } } };
    for (const v of ['1.20', '1.24', '1.29']) {
      const out = stored(c, v);
      expect(hashContainer(out, { kubeletVersion: v })).toBe(
        hashContainer(
          { ...c, ...BASE, resources: { limits: c.resources.limits, requests: c.resources.limits } },
          { kubeletVersion: v },
        ),
      );
    }
  });
});

describe('everything else a round trip rewrites', () => {
  it('empty lists and maps, zero omitempty scalars, nulls and unknown fields are dropped; resources is always there', () => {
    const out = stored({
      name: 'c',
      image: 'i:1',
      command: [],
      args: null,
      ports: [],
      env: [],
      envFrom: [],
      volumeMounts: [],
      workingDir: '',
      stdin: false,
      tty: false,
      securityContext: null,
      livenessProbe: null,
      resources: { limits: {}, requests: null },
      notAField: 'x',
      Image: 'case-sensitive decoder: not a field',
    });
    expect(sorted(out)).toBe(sorted({ name: 'c', image: 'i:1', resources: {}, ...BASE }));
    expect(sorted(stored({ name: 'c', image: 'i:1' }))).toBe(
      sorted({ name: 'c', image: 'i:1', resources: {}, ...BASE }),
    );
  });

  it('non-omitempty members stay even when zero; empty structs behind pointers stay as {}', () => {
    const out = stored({
      name: 'c',
      image: 'i:1',
      ports: [{ containerPort: 80, hostPort: 0, name: '' }],
      env: [{ name: 'E', value: '' }],
      livenessProbe: { exec: {}, initialDelaySeconds: 0 },
      securityContext: { capabilities: {}, privileged: false },
      volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false, subPath: '' }],
    });
    expect(out['ports']).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(out['env']).toEqual([{ name: 'E' }]);
    expect(out['livenessProbe']).toEqual({
      exec: {},
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    // *bool false is a set pointer: kept
    expect(out['securityContext']).toEqual({ capabilities: {}, privileged: false });
    expect(out['volumeMounts']).toEqual([{ name: 'v', mountPath: '/v' }]);
  });

  it('int-or-string keeps its kind: a named port stays a string, a number stays a number', () => {
    const out = stored({
      name: 'c',
      image: 'i:1',
      readinessProbe: { httpGet: { port: 'http' } },
      livenessProbe: { tcpSocket: { port: 8080 } },
    });
    expect((out['readinessProbe'] as { httpGet: unknown }).httpGet).toEqual({
      port: 'http',
      path: '/',
      scheme: 'HTTP',
    });
    expect((out['livenessProbe'] as { tcpSocket: unknown }).tcpSocket).toEqual({ port: 8080 });
  });

  it('int64 beyond 2^53 come back exact (as bigints)', () => {
    const out = stored('{"name":"c","image":"i:1","securityContext":{"runAsUser":9007199254740993}}');
    expect(out['securityContext']).toEqual({ runAsUser: 9007199254740993n });
  });

  it('fields of later releases survive there (1.34: restartPolicy, resizePolicy, claims, stopSignal, fileKeyRef)', () => {
    const c = {
      name: 'c',
      image: 'i:1',
      restartPolicy: 'Always',
      resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      resources: { claims: [{ name: 'gpu' }] },
      lifecycle: { stopSignal: 'SIGTERM', preStop: { sleep: { seconds: 1 } } },
    };
    const out = stored(c, '1.34', { list: 'initContainers' });
    expect(sorted(out)).toBe(sorted({ ...c, ...BASE }));
    // the same container at 1.20: none of those fields exist yet
    expect(sorted(stored(c, '1.20', { list: 'initContainers' }))).toBe(
      sorted({ name: 'c', image: 'i:1', resources: {}, lifecycle: { preStop: {} }, ...BASE }),
    );
  });
});
