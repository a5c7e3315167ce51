/**
 * Properties over containers generated from the release models (every field of the newest model,
 * Go integer extremes, generated quantity spellings, Unicode), judged by independent references:
 * the plain go-spew and encoding/json interpreters in test/support, never the compiled encoders.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decodeContainerTree } from '../../src/decode/decode.js';
import { KubeletHashError, hashContainer, preimage, releaseInfo, supportedReleases } from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot, type StructType } from '../../src/models/gotype.js';
import { deepContainerArb, memberPaths, pathsIn } from '../support/deep-arbitraries.js';
import { goJsonReference } from '../support/gojson-reference.js';
import { spewReference } from '../support/spew-reference.js';

const RELEASES = supportedReleases();
const NEWEST = RELEASES.at(-1)!;
const roots = new Map<string, StructType>();
const rootOf = (release: string): StructType => {
  let root = roots.get(release);
  if (!root) roots.set(release, (root = resolveRoot(releaseModel(release))));
  return root;
};
const newestContainer = (): fc.Arbitrary<Record<string, unknown>> => deepContainerArb(rootOf(NEWEST));

/** JSON text of a generated container: bigints as bare integers, exactly as a client would write them. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000big:${v}` : v)).replace(
    /"\\u0000big:(-?\d+)"/g,
    '$1',
  );
}

describe('generators reach the whole newest model', () => {
  it('every member of every struct of the newest model appears in 400 generated containers', () => {
    const root = rootOf(NEWEST);
    const seen = new Set<string>();
    for (const c of fc.sample(newestContainer(), { numRuns: 400, seed: 7 })) pathsIn(root, c, seen);
    const missing = [...memberPaths(root)].filter((p) => !seen.has(p));
    expect(missing).toEqual([]);
    // The ones the issue names, spelled out.
    for (const p of [
      'v1.Container.lifecycle',
      'v1.Container.envFrom',
      'v1.ResourceFieldSelector.divisor',
      'v1.ProbeHandler.grpc',
    ]) {
      expect(seen).toContain(p);
    }
  });
});

describe('deep containers, every release', () => {
  test.prop([newestContainer(), fc.constantFrom(...RELEASES)], { numRuns: 150 })(
    'hash or a typed error; the pre-image equals the reference encoder over the decoded value; input untouched',
    (c, release) => {
      const before = structuredClone(c);
      const options = { kubeletVersion: release };
      let pre: ReturnType<typeof preimage>;
      try {
        pre = preimage(c, options);
      } catch (e) {
        expect(e).toBeInstanceOf(KubeletHashError);
        expect(() => hashContainer(c, options)).toThrow(KubeletHashError);
        expect(c).toEqual(before);
        return;
      }
      expect(hashContainer(c, options)).toBe(pre.hash);
      const info = releaseInfo(release);
      if (info.algorithm !== 'name-image') {
        const root = rootOf(release);
        const value = decodeContainerTree(c, root);
        const reference =
          info.algorithm === 'legacy'
            ? spewReference(root, value)
            : goJsonReference(root, value, info.jsonEscapes === 'go1.22');
        expect(pre.text).toBe(reference);
      }
      expect(c).toEqual(before);
    },
  );

  test.prop([newestContainer(), fc.constantFrom(...RELEASES)], { numRuns: 100 })(
    'a container and its JSON text hash the same (bigints written as exact integers)',
    (c, release) => {
      const options = { kubeletVersion: release };
      const fromText = (): string => hashContainer(jsonText(c), options);
      let fromObject: string;
      try {
        fromObject = hashContainer(c, options);
      } catch (e) {
        expect(e).toBeInstanceOf(KubeletHashError);
        expect(fromText).toThrow(KubeletHashError);
        return;
      }
      expect(fromText()).toBe(fromObject);
    },
  );
});
