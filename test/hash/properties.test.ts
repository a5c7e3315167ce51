/** Properties of the hashing pipeline over generated containers (fast-check). */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { formatHash, hashContainer, parseHash, preimage, releaseInfo, supportedReleases } from '../../src/index.js';
import { containerArb, releaseArb } from '../support/arbitraries.js';

/** Rebuilds an object with its keys (recursively) in a permuted order. */
function permuteKeys(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) return v.map((x, i) => permuteKeys(x, seed + i));
  if (v === null || typeof v !== 'object') return v;
  const keys = Object.keys(v);
  const order = keys
    .map((k, i) => [k, ((i + 1) * 2654435761 * (seed + 7)) % 1000003] as const)
    .sort((a, b) => a[1] - b[1]);
  const out: Record<string, unknown> = {};
  for (const [k] of order) out[k] = permuteKeys((v as Record<string, unknown>)[k], seed + 1);
  return out;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

describe('hash properties', () => {
  test.prop([containerArb, releaseArb, fc.nat()])('input key order never matters', (c, v, seed) => {
    expect(hashContainer(permuteKeys(c, seed) as object, { kubeletVersion: v })).toBe(
      hashContainer(c, { kubeletVersion: v }),
    );
  });

  test.prop([containerArb, releaseArb])('"0.5" and "500m" hash the same', (c, v) => {
    const a = { ...c, resources: { limits: { cpu: '0.5' } } };
    const b = { ...c, resources: { limits: { cpu: '500m' } } };
    expect(hashContainer(a, { kubeletVersion: v })).toBe(hashContainer(b, { kubeletVersion: v }));
  });

  test.prop([containerArb, releaseArb])('an absent list or map equals an empty one', (c, v) => {
    const dropped = ['command', 'args', 'ports', 'env', 'volumeMounts'];
    const bare = Object.fromEntries(Object.entries(c).filter(([k]) => !dropped.includes(k)));
    const empty = {
      ...bare,
      command: [],
      args: [],
      ports: [],
      env: [],
      volumeMounts: [],
      resources: { limits: {}, requests: {} },
    };
    expect(hashContainer(empty, { kubeletVersion: v })).toBe(
      hashContainer({ ...bare, resources: {} }, { kubeletVersion: v }),
    );
  });

  test.prop([containerArb, releaseArb, fc.string({ minLength: 1, maxLength: 8 })])(
    'a field unknown to the release does not change its hash',
    (c, v, suffix) => {
      const extra = { ...c, [`zzUnknown${suffix}`]: { nested: [1, 'x'] } };
      expect(hashContainer(extra, { kubeletVersion: v })).toBe(hashContainer(c, { kubeletVersion: v }));
      // fileKeyRef exists only from 1.34: older releases drop it and hash as if the env var had no source.
      const withFileKey = {
        ...c,
        env: [{ name: 'F', valueFrom: { fileKeyRef: { volumeName: 'v', path: 'p', key: 'k' } } }],
      };
      const withoutSource = { ...c, env: [{ name: 'F', valueFrom: {} }] };
      if (Number(v.split('.')[1]) < 34)
        expect(hashContainer(withFileKey, { kubeletVersion: v })).toBe(
          hashContainer(withoutSource, { kubeletVersion: v }),
        );
    },
  );

  test.prop([fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })])('formatHash/parseHash round-trip', (n) => {
    const text = formatHash(n);
    expect(text).toMatch(/^(0|[1-9a-f][0-9a-f]*)$/);
    expect(parseHash(text)).toBe(n);
    expect(parseHash(text.toUpperCase())).toBe(n);
  });

  test.prop([containerArb, releaseArb])('the caller’s object is never mutated', (c, v) => {
    const before = clone(c);
    hashContainer(c, { kubeletVersion: v });
    preimage(c, { kubeletVersion: v });
    expect(c).toEqual(before);
  });

  test.prop([
    containerArb,
    fc.constantFrom(...supportedReleases().filter((r) => releaseInfo(r).algorithm !== 'legacy')),
  ])('JSON-era pre-images re-parse to the normalised container (a fixed point)', (c, v) => {
    const first = preimage(c, { kubeletVersion: v });
    const again = preimage(first.text, { kubeletVersion: v });
    expect(again.text).toBe(first.text);
    expect(again.hash).toBe(first.hash);
  });
});
