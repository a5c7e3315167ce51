/**
 * The hostile-input property, bounded for `npm test` (`npm run fuzz -- --runs N` runs it longer
 * and counts the outcomes): only a hash or a typed error, never a raw error, never a changed input.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { hostileInputArb, releaseArb, runHostile } from '../support/hostile.js';

describe('hostile input', () => {
  test.prop([hostileInputArb, releaseArb], { numRuns: 300 })(
    'gives a hash or a typed error and leaves the input alone',
    (input, release) => {
      expect(runHostile(input, release)).toMatch(/^(hash|[A-Z_]+)$/);
    },
  );

  test.prop([fc.constantFrom('{"name":"a","name":"b"}', '[]', 'null', '{"name":1}')], { numRuns: 4 })(
    'typed errors are reported as their code',
    (text) => {
      expect(runHostile(text, '1.29')).not.toBe('hash');
    },
  );
});
