/**
 * Fingerprints of records as read: xxHash64 (xxhash-wasm) as 16 lowercase hex digits. A plan
 * stores them; apply re-reads each record and refuses when its fingerprint changed.
 */
import xxhash from 'xxhash-wasm';
import { openSync, readSync, closeSync } from 'node:fs';

type Api = Awaited<ReturnType<typeof xxhash>>;
let api: Promise<Api> | undefined;

/** The xxhash-wasm instance, compiled on first use (never at import). */
function xxhashApi(): Promise<Api> {
  api ??= xxhash();
  return api;
}

/** Hex text of a 64-bit digest. */
function hex64(v: bigint): string {
  return v.toString(16).padStart(16, '0');
}

/** A fingerprint function, once the WebAssembly module is ready. */
export async function fingerprinter(): Promise<(bytes: Uint8Array) => string> {
  const api = await xxhashApi();
  return (bytes) => hex64(api.h64Raw(bytes));
}

/** xxHash64 of a whole file, streamed in 1 MiB chunks (meta.db can be large). */
export async function fingerprintFile(path: string): Promise<string> {
  const api = await xxhashApi();
  const h = api.create64();
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; ;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      h.update(n === buf.length ? buf : buf.subarray(0, n));
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  return hex64(h.digest());
}
