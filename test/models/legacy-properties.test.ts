/**
 * Legacy-era properties derived from the models (never from a hard-coded list of fields):
 * go-spew prints every field of every struct a container reaches, so two releases hash a container
 * alike exactly when the struct types it reaches are declared alike.
 */
import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { reachedStructs } from '../../src/explain/reached-types.js';
import { decodeContainerTree } from '../../src/decode/decode.js';
import { hashContainer, releaseInfo, supportedReleases } from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot } from '../../src/models/gotype.js';
import type { TypeDecl } from '../../src/models/model.js';
import { containerArb } from '../support/arbitraries.js';

const LEGACY = supportedReleases().filter((r) => releaseInfo(r).algorithm === 'legacy');
const PAIRS = LEGACY.slice(1).map((b, i) => [LEGACY[i]!, b] as const);

function decl(release: string, name: string): TypeDecl | undefined {
  return releaseModel(release).types.find((t) => t.name === name);
}

/** Do releases a and b declare every struct type this container reaches identically? */
function modelsAgreeOn(container: object, a: string, b: string): boolean {
  const reached = new Set<string>();
  for (const r of [a, b]) {
    const root = resolveRoot(releaseModel(r));
    for (const name of reachedStructs(decodeContainerTree(container, root), root).keys()) reached.add(name);
  }
  return [...reached].every((name) => JSON.stringify(decl(a, name)?.fields) === JSON.stringify(decl(b, name)?.fields));
}

describe('legacy hashes follow the models', () => {
  let agreeingPairsSeen = 0;

  test.prop([containerArb], { numRuns: 60 })(
    'consecutive releases that declare the reached types alike hash alike',
    (c) => {
      for (const [a, b] of PAIRS) {
        if (!modelsAgreeOn(c, a, b)) continue;
        agreeingPairsSeen++;
        expect(hashContainer(c, { kubeletVersion: b }), `${a} → ${b}`).toBe(hashContainer(c, { kubeletVersion: a }));
      }
    },
  );

  it('the property above was not vacuous', () => {
    expect(agreeingPairsSeen).toBeGreaterThan(60); // 1.10→1.11 and 1.12→1.13 agree on everything
  });

  const containerChangedPairs = PAIRS.filter(
    ([a, b]) => JSON.stringify(decl(a, 'v1.Container')) !== JSON.stringify(decl(b, 'v1.Container')),
  );

  it('the models say v1.Container itself changed between 1.8 and 1.9', () => {
    expect(containerChangedPairs.map(([a, b]) => `${a}→${b}`)).toContain('1.8→1.9');
    const added = decl('1.9', 'v1.Container')!.fields!.filter(
      (f) => !decl('1.8', 'v1.Container')!.fields!.some((g) => g.goName === f.goName),
    );
    expect(added.length).toBeGreaterThan(0);
  });

  test.prop([containerArb], { numRuns: 60 })(
    'when v1.Container changed, every container hashes differently, even one using only 1.8 fields',
    (c) => {
      for (const [a, b] of containerChangedPairs) {
        expect(hashContainer(c, { kubeletVersion: b }), `${a} → ${b}`).not.toBe(
          hashContainer(c, { kubeletVersion: a }),
        );
      }
    },
  );
});
