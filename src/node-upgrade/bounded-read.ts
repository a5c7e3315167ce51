/** Reading an input file whole, but never more than the one input size limit. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { formatByteSize } from '../byte-size.js';
import { StoreError } from '../errors.js';

/**
 * A file's bytes, at most `limit` (the CLI's --max-input-size): a bigger regular file is refused by its size, anything
 * else (a pipe from `<(crictl inspect …)`, a device) once `limit` bytes are read.
 */
export function readBounded(file: string, limit: number, what: string): Buffer {
  const size = formatByteSize(limit);
  const tooLarge = (): StoreError =>
    new StoreError(
      'STORE_IO',
      [],
      `${what} of at most ${size} at ${file}`,
      `EFBIG: ${file} is larger than ${size}, the limit of one input (the CLI's --max-input-size raises it)`,
      file,
    );
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new StoreError(
      'STORE_IO',
      [],
      `${what} (readable) at ${file}`,
      e instanceof Error ? e.message : String(e),
      file,
    );
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > limit) throw tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(limit + 1 - total, 1 << 20));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        throw new StoreError(
          'STORE_IO',
          [],
          `${what} (readable) at ${file}`,
          e instanceof Error ? e.message : String(e),
          file,
        );
      }
      if (n === 0) break;
      total += n;
      if (total > limit) throw tooLarge();
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
