/** The one byte-size formatter the input-limit messages share (the CLI's and the node plan's record files). */
import { describe, expect, it } from 'vitest';
import { formatByteSize } from '../../src/byte-size.js';

describe('formatByteSize', () => {
  it('writes the largest whole unit of 1024', () => {
    expect([256 * 1048576, 1048576, 64 * 1024, 1536 * 1024, 1000, 1025].map(formatByteSize)).toEqual([
      '256 MiB',
      '1 MiB',
      '64 KiB',
      '1536 KiB',
      '1000 bytes',
      '1025 bytes',
    ]);
  });
});
