/**
 * Hot-path benchmarks: decode + encode + FNV per era, on small and large oracle containers.
 * Run with `npm run bench`. Speed is measured here, never in unit tests.
 */
import { readFileSync } from 'node:fs';
import { bench, describe } from 'vitest';
import { hashContainer, preimage } from '../src/index.js';
import { readCases } from '../src/conformance/fixtures.js';

const cases = readCases(readFileSync(new URL('../fixtures/oracle/cases.ndjson', import.meta.url), 'utf8'));
const pick = (id: string): object => cases.find((c) => c.id === id)!.container as object;
const sample = pick('k8s-sampleContainer');
const full = pick('full-newest');
const manyEnv = pick('many-env');
const sampleText = JSON.stringify(sample);

for (const [label, version] of [
  ['legacy (1.15)', '1.15'],
  ['json (1.29)', '1.29'],
  ['name-image (1.36)', '1.36'],
] as const) {
  describe(`hashContainer ${label}`, () => {
    bench('sampleContainer', () => {
      hashContainer(sample, { kubeletVersion: version });
    });
    bench('full-newest', () => {
      hashContainer(full, { kubeletVersion: version });
    });
    bench('many-env (200 env vars)', () => {
      hashContainer(manyEnv, { kubeletVersion: version });
    });
  });
}

describe('input forms (1.29)', () => {
  bench('object', () => {
    hashContainer(sample, { kubeletVersion: '1.29' });
  });
  bench('JSON text (own parser)', () => {
    hashContainer(sampleText, { kubeletVersion: '1.29' });
  });
  bench('preimage (records the bytes too)', () => {
    preimage(sample, { kubeletVersion: '1.29' });
  });
});
