/** Folding constant bytes into one FNV step (src/hash/fused/fnv.ts) gives the state byte-by-byte FNV gives. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { feed, feedFolded, fold, FNV_OFFSET } from '../../src/hash/fused/fnv.js';

describe('folded constant fragments', () => {
  test.prop([fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })])(
    'h·P^n + T[h & 255] equals n FNV-1a steps, from any state',
    (bytes, h) => {
      expect(feedFolded(h, fold(bytes)) | 0).toBe(feed(h, bytes) | 0);
    },
  );

  test.prop([fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 10 })])(
    'a chain of folded fragments equals hashing their concatenation',
    (parts) => {
      let folded = FNV_OFFSET;
      for (const p of parts) folded = feedFolded(folded, fold(p));
      const all = Uint8Array.from(parts.flatMap((p) => [...p]));
      expect(folded >>> 0).toBe(feed(FNV_OFFSET, all) >>> 0);
    },
  );
});
