/** The compiled encoding/json encoder against the plain reference one, on the oracle and on generated containers. */
import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decodeContainer } from '../src/decode/decode.js';
import { compileGoJsonEncoder } from '../src/encode/gojson.js';
import { BufferSink } from '../src/encode/sink.js';
import { releaseModel } from '../src/models/catalog.js';
import { resolveRoot } from '../src/models/gotype.js';
import { releaseInfo, supportedReleases } from '../src/releases/registry.js';
import { containerArb } from './support/arbitraries.js';
import { goJsonReference } from './support/gojson-reference.js';
import { oracleCases } from './support/oracle.js';

const JSON_ERA = supportedReleases().filter((r) => releaseInfo(r).algorithm === 'json');

function both(release: string, container: unknown): [string, string] {
  const root = resolveRoot(releaseModel(release));
  const go122 = releaseInfo(release).jsonEscapes === 'go1.22';
  const value = decodeContainer(container, root);
  const sink = new BufferSink();
  compileGoJsonEncoder(root, go122 ? 'go1.22' : 'pre-go1.22')(value, sink);
  return [new TextDecoder().decode(sink.bytes()), goJsonReference(root, value, go122)];
}

describe('compiled vs reference encoding/json', () => {
  it('agree on every oracle case for every JSON-era release', () => {
    let rows = 0;
    for (const release of JSON_ERA) {
      for (const c of oracleCases()) {
        const [compiled, reference] = both(release, c.container);
        expect(compiled, `${c.id}@${release}`).toBe(reference);
        rows++;
      }
    }
    expect(rows).toBe(JSON_ERA.length * oracleCases().length);
  });

  test.prop([containerArb])('agree on generated containers (1.23 and 1.30)', (c) => {
    for (const release of ['1.23', '1.30']) {
      const [compiled, reference] = both(release, c);
      expect(compiled).toBe(reference);
    }
  });
});
