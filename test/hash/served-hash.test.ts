/**
 * What a kubelet hashes for a pod it gets from an apiserver: not what the client sent but the JSON
 * the apiserver serves (quantities as `Quantity.String()`, `divisor: "0"`, empty members gone), which
 * the kubelet decodes once with `ParseQuantity` (JSON and protobuf alike). In the go-spew era
 * (1.8–1.15) that matters bit for bit: spew prints a Quantity's cached string `s`, which
 * `ParseQuantity` sets from the served text (`"0"`, and canonical-looking int64 spellings). The
 * oracle's rows are computed for exactly that path (decode, one Marshal→Unmarshal round trip:
 * ../shared/oracle/README.md §2), so `hashContainer` of the served form of every case must give the
 * oracle's hash at every release — the served JSON is itself an input the library decodes, with its
 * own round trip, and must land on the same Go value.
 */
import { describe, expect, it } from 'vitest';
import { hashContainer } from '../../src/index.js';
import { storedForm } from '../../src/defaults/stored-form.js';
import { decodeFor } from '../../src/hash/hashes-for.js';
import { releaseInfo } from '../../src/releases/release-info.js';
import { oracleCases, oracleExpected } from '../support/oracle.js';

const errorCode = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
};

/** The container as that release's apiserver serves it (decoded with its model, json-encoded again). */
const served = (container: unknown, version: string): Record<string, unknown> =>
  storedForm(decodeFor(container, releaseInfo(version), undefined, true));

describe('the hash of the served form is the oracle hash (what the kubelet decodes from the apiserver)', () => {
  const cases = new Map(oracleCases().map((c) => [c.id, c.container]));

  it('every case at every release, the go-spew releases 1.8–1.15 included', () => {
    const misses: { case: string; version: string; want: string; got: string }[] = [];
    let legacy = 0;
    let refused = 0;
    for (const row of oracleExpected()) {
      const container = cases.get(row.case) as object;
      const opts = { kubeletVersion: row.version };
      // Cases the library refuses as sent (an empty name: the apiserver refuses them) are refused served too.
      const asSent = errorCode(() => hashContainer(container, opts));
      if (asSent !== null) {
        expect(errorCode(() => hashContainer(served(container, row.version), opts))).toBe(asSent);
        refused++;
        continue;
      }
      const got = hashContainer(served(container, row.version), opts);
      if (row.algorithm === 'legacy') legacy++;
      if (got !== row.hash) misses.push({ case: row.case, version: row.version, want: row.hash, got });
    }
    expect(misses).toEqual([]);
    expect(legacy).toBeGreaterThanOrEqual(150 * 8);
    expect(refused).toBeLessThan(oracleExpected().length / 20);
  });

  it('served quantities carry the cached string a 1.15 kubelet gets: served spellings are canonical and stable', () => {
    // The cluster suite's spellings (test/support/cluster-pods.ts) and divisors: the served text is
    // String() of the value, and serving it again changes nothing (the apiserver round-trips more than once).
    const container = {
      name: 'q',
      resources: {
        limits: { cpu: '0.001', memory: '0.0078125Gi', 'ephemeral-storage': '1e9' },
        requests: { cpu: '1e-3', memory: '8388608' },
      },
      env: [
        { name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0.001' } } },
        { name: 'B', valueFrom: { resourceFieldRef: { resource: 'requests.memory', divisor: '1k' } } },
        { name: 'C', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage' } } },
      ],
    };
    const once = served(container, '1.15');
    expect(once.resources).toEqual({
      limits: { cpu: '1m', 'ephemeral-storage': '1e9', memory: '8Mi' },
      requests: { cpu: '1e-3', memory: '8388608' },
    });
    const divisors = (once.env as { valueFrom: { resourceFieldRef: { divisor: unknown } } }[]).map(
      (e) => e.valueFrom.resourceFieldRef.divisor,
    );
    expect(divisors).toEqual(['1m', '1k', '0']);
    expect(served(once, '1.15')).toEqual(once);
    for (const version of ['1.15', '1.20'])
      expect(hashContainer(once, { kubeletVersion: version })).toBe(
        hashContainer(container, { kubeletVersion: version }),
      );
  });
});
