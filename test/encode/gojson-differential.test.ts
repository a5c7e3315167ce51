/** The compiled encoding/json encoder against the plain reference one, on the oracle and on generated containers. */
import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decodeContainerTree } from '../../src/decode/decode.js';
import { compileGoJsonEncoder, type GoJsonEncoder } from '../../src/encode/gojson.js';
import { BufferSink } from '../../src/encode/sink.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot, type StructType } from '../../src/models/gotype.js';
import { releaseInfo, supportedReleases } from '../../src/releases/release-info.js';
import { containerArb } from '../support/arbitraries.js';
import { goJsonReference } from '../support/gojson-reference.js';
import { oracleCases } from '../support/oracle.js';

const JSON_ERA = supportedReleases().filter((r) => releaseInfo(r).algorithm === 'json');

const compiled = new Map<string, { root: StructType; encode: GoJsonEncoder; go122: boolean }>();

/** The compiled and the reference encoding of one container (encoders compiled once per release). */
function both(release: string, container: unknown): [string, string] {
  let c = compiled.get(release);
  if (!c) {
    const root = resolveRoot(releaseModel(release));
    const go122 = releaseInfo(release).jsonEscapes === 'go1.22';
    c = { root, encode: compileGoJsonEncoder(root, go122 ? 'go1.22' : 'pre-go1.22'), go122 };
    compiled.set(release, c);
  }
  const value = decodeContainerTree(container, c.root);
  const sink = new BufferSink();
  c.encode(value, sink);
  return [new TextDecoder().decode(sink.bytes()), goJsonReference(c.root, value, c.go122)];
}

describe('compiled vs reference encoding/json', () => {
  it('agree on every oracle case for every JSON-era release', () => {
    // An empty oracle or era would make the loop below pass having compared nothing.
    expect(oracleCases().length).toBeGreaterThanOrEqual(163);
    expect(JSON_ERA).toEqual(expect.arrayContaining(['1.16', '1.30']));
    expect(JSON_ERA.length).toBeGreaterThanOrEqual(15);
    let rows = 0;
    for (const release of JSON_ERA) {
      for (const c of oracleCases()) {
        const [compiled, reference] = both(release, c.container);
        expect(compiled, `${c.id}@${release}`).toBe(reference);
        rows++;
      }
    }
    expect(rows).toBe(JSON_ERA.length * oracleCases().length);
    expect(rows).toBeGreaterThan(1000);
  });

  test.prop([containerArb])('agree on generated containers (1.23 and 1.30)', (c) => {
    for (const release of ['1.23', '1.30']) {
      const [compiled, reference] = both(release, c);
      expect(compiled).toBe(reference);
    }
  });
});
