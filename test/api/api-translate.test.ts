/** translateHash and identifyReleases against the oracle, plus the translation property (fast-check). */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { identifyReleases, translateHash } from '../../src/kubelet/index.js';
import { hashContainer, hashContainerWithoutResources } from '../../src/hash-api/hash.js';
import { HashMismatchError, KubeletHashError, OptionError } from '../../src/errors.js';
import { supportedReleases } from '../../src/releases/release-info.js';
import { containerArb, releaseArb } from '../support/arbitraries.js';
import { oracleCase, oracleCases, oracleExpected } from '../support/oracle.js';

/** Whether an oracle case's container has a name (the public functions refuse nameless ones). */
const named = (c: unknown): boolean =>
  typeof (c as { name?: unknown }).name === 'string' && (c as { name: string }).name !== '';

const RELEASES = supportedReleases();
const hashes = new Map<string, Map<string, { hash: string; hashWithoutResources?: string }>>();
for (const row of oracleExpected()) {
  let m = hashes.get(row.case);
  if (!m) hashes.set(row.case, (m = new Map<string, { hash: string; hashWithoutResources?: string }>()));
  m.set(row.version, row);
}
const oracle = (id: string, v: string): string => hashes.get(id)!.get(v)!.hash;

describe('translateHash against the oracle', () => {
  it('every case, every consecutive pair in both directions (observed = the oracle hash of the source)', () => {
    let checked = 0;
    for (const c of oracleCases()) {
      if (!named(c.container)) {
        // Nameless oracle rows (HashContainer's arithmetic) are refused: no apiserver serves such a container.
        expect(() =>
          translateHash(c.container as object, { from: '1.8', to: '1.9', observed: oracle(c.id, '1.8') }),
        ).toThrow(/MISSING_NAME/);
        checked += (RELEASES.length - 1) * 2;
        continue;
      }
      for (let i = 0; i + 1 < RELEASES.length; i++) {
        const [a, b] = [RELEASES[i]!, RELEASES[i + 1]!];
        expect(translateHash(c.container as object, { from: a, to: b, observed: oracle(c.id, a) })).toBe(
          oracle(c.id, b),
        );
        expect(translateHash(c.container as object, { from: b, to: a, observed: oracle(c.id, b) })).toBe(
          oracle(c.id, a),
        );
        checked += 2;
      }
    }
    expect(checked).toBe(oracleCases().length * (RELEASES.length - 1) * 2);
  });

  it(`every pair of releases ${RELEASES[0]}–${RELEASES.at(-1)} for a handful of cases`, () => {
    const ids = [
      'k8s-sampleContainer',
      'full-newest',
      'esc-b-f',
      'vm-propagation',
      'qty-1234567890123456789012',
      'probe-grpc',
      'sc-procMount',
    ];
    for (const id of ids) {
      const c = oracleCase(id).container as object;
      for (const a of RELEASES)
        for (const b of RELEASES)
          expect(translateHash(c, { from: a, to: b, observed: oracle(id, a) }), `${id} ${a}→${b}`).toBe(oracle(id, b));
    }
  });

  it('accepts the observed hash as the kubelet reads it: any case, leading zeros, a number or a bigint', () => {
    const c = oracleCase('k8s-sampleContainer').container as object;
    expect(translateHash(c, { from: '1.29', to: '1.31', observed: '0311670A' })).toBe('8e45cbd0');
    expect(translateHash(c, { from: '1.29', to: '1.31', observed: 0x311670a })).toBe('8e45cbd0');
    expect(translateHash(c, { from: 'v1.29.4', to: '1.31.0', observed: 0x311670an })).toBe('8e45cbd0');
    expect(translateHash(c, { from: '1.15', to: '1.16' })).toBe('311670a'); // without observed: no check
  });

  it('refuses an observed hash it cannot reproduce, with a typed HASH_MISMATCH error', () => {
    const c = oracleCase('k8s-sampleContainer').container as object;
    // The json-era hash is not what 1.15 (legacy) wrote: sampleV115HashValue is a misnomer upstream.
    const e = (() => {
      try {
        translateHash(c, { from: '1.15', to: '1.16', observed: '311670a' });
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(HashMismatchError);
    expect((e as HashMismatchError).code).toBe('HASH_MISMATCH');
    expect((e as HashMismatchError).path).toEqual(['options', 'observed']);
    expect((e as HashMismatchError).expected).toContain('f39e1ad');
    // An observed hash is the caller's input: text that is not hex is refused, not read as 0.
    expect(() => translateHash(c, { from: '1.29', to: '1.31', observed: 'zz' })).toThrow(/INVALID_HASH/);
    expect(() => translateHash(c, { from: '1.29', to: '1.31', observed: '' })).toThrow(/INVALID_HASH/);
    expect(() => translateHash(c, { from: '1.29', to: '1.31', observed: -1 })).toThrow(OptionError);
    expect(() => translateHash(c, { from: '1.29', to: '9.1' })).toThrow(KubeletHashError);
    expect(() => translateHash(c, { from: '1.29' } as never)).toThrow(OptionError);
  });
});

describe('translateHash property', () => {
  test.prop([containerArb, releaseArb, releaseArb])('observed = hash_A(c) translates to hash_B(c)', (c, a, b) => {
    expect(translateHash(c, { from: a, to: b, observed: hashContainer(c, { kubeletVersion: a }) })).toBe(
      hashContainer(c, { kubeletVersion: b }),
    );
  });

  test.prop([containerArb, releaseArb, releaseArb, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.boolean()])(
    'any other observed value throws HashMismatchError',
    (c, a, b, other, asText) => {
      const real = BigInt('0x' + hashContainer(c, { kubeletVersion: a }));
      fc.pre(other !== real);
      const observed = asText ? other.toString(16) : other;
      expect(() => translateHash(c, { from: a, to: b, observed })).toThrow(HashMismatchError);
    },
  );
});

describe('identifyReleases', () => {
  it('finds exactly the releases whose oracle hash matches, for every case (one probe per era)', () => {
    for (const c of oracleCases().filter((x) => named(x.container))) {
      for (const probe of ['1.8', '1.14', '1.20', '1.29', '1.33']) {
        const target = oracle(c.id, probe);
        const found = identifyReleases(c.container as object, target);
        const plain = found.filter((m) => m.key === 'hash' && m.jsonEscapes === undefined).map((m) => m.release);
        expect(plain, `${c.id} ${target}`).toEqual(RELEASES.filter((r) => oracle(c.id, r) === target));
        const wr = found.filter((m) => m.key === 'hashWithoutResources').map((m) => m.release);
        expect(wr).toEqual(RELEASES.filter((r) => hashes.get(c.id)!.get(r)!.hashWithoutResources === target));
        // oldest first
        const minors = found.map((m) => Number(m.release.split('.')[1]));
        expect([...minors].sort((x, y) => x - y)).toEqual(minors);
      }
    }
  });

  it('k8s-sampleContainer: the legacy hash f39e1ad is 1.9–1.15, the json one 1.16–1.30, the without-resources one needs the gate', () => {
    const c = oracleCase('k8s-sampleContainer').container as object;
    expect(identifyReleases(c, 'f39e1ad')).toEqual(
      ['1.9', '1.10', '1.11', '1.12', '1.13', '1.14', '1.15'].map((release) => ({ release, key: 'hash' })),
    );
    expect(identifyReleases(c, 0x311670a).map((m) => m.release)).toEqual(RELEASES.slice(8, 23));
    expect(identifyReleases(c, 'e8022015')).toEqual(
      ['1.27', '1.28', '1.29', '1.30'].map((release) => ({
        release,
        key: 'hashWithoutResources',
        featureGates: { InPlacePodVerticalScaling: true },
      })),
    );
    expect(identifyReleases(c, 'deadbeef')).toEqual([]);
  });

  it('a container without resources matches both stored keys at 1.27–1.30 (hash before hashWithoutResources)', () => {
    const c = oracleCase('minimal-name-image').container as object;
    const h = oracle('minimal-name-image', '1.27');
    expect(hashContainerWithoutResources(c, { kubeletVersion: '1.27' })).toBe(h);
    const at27 = identifyReleases(c, h).filter((m) => m.release === '1.27');
    expect(at27.map((m) => m.key)).toEqual(['hash', 'hashWithoutResources']);
  });

  it('BS/FF strings: a 1.30 hash is also what a 1.29.x kubelet rebuilt with Go 1.22 writes', () => {
    const c = oracleCase('esc-b-f').container as object;
    const h30 = oracle('esc-b-f', '1.30');
    expect(oracle('esc-b-f', '1.29')).not.toBe(h30);
    const found = identifyReleases(c, h30);
    expect(found).toContainEqual({ release: '1.29', key: 'hash', jsonEscapes: 'go1.22' });
    expect(found.find((m) => m.release === '1.30')).toEqual({ release: '1.30', key: 'hash' });
  });

  it('refuses malformed query text (it is not a stored label)', () => {
    expect(() => identifyReleases({ name: 'a' }, 'xyz')).toThrow(KubeletHashError);
  });
});
