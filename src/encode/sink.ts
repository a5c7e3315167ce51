/**
 * Byte sinks: encoders write the pre-image into one of these instead of building strings, so the
 * hash is computed as bytes arrive and the same encoder can also record the exact pre-image.
 */

/** Receives the bytes of a pre-image, in order. */
export interface ByteSink {
  writeByte(b: number): void;
  writeBytes(bytes: Uint8Array): void;
}

/** FNV-1a 32 (Go's `hash/fnv.New32a`), fed incrementally. */
export class Fnv32aSink implements ByteSink {
  private h = 0x811c9dc5;

  writeByte(b: number): void {
    this.h = Math.imul(this.h ^ b, 0x01000193);
  }

  writeBytes(bytes: Uint8Array): void {
    let h = this.h;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    this.h = h;
  }

  /** `hash.Sum32()` as an unsigned 32-bit number. */
  sum32(): number {
    return this.h >>> 0;
  }
}

/** Records every byte in one growable buffer (for `preimage()` and debugging). */
export class BufferSink implements ByteSink {
  private buf = new Uint8Array(1024);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  writeByte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  writeBytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** A copy of the bytes written so far. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Sends every byte to several sinks (hash and record the pre-image in one pass). */
export class TeeSink implements ByteSink {
  constructor(private readonly sinks: readonly ByteSink[]) {}
  writeByte(b: number): void {
    for (const s of this.sinks) s.writeByte(b);
  }
  writeBytes(bytes: Uint8Array): void {
    for (const s of this.sinks) s.writeBytes(bytes);
  }
}

// Decimal digits of 0..255, pre-encoded: go-spew prints each element of a []uint8 in base 10.
const DECIMAL_BYTES: readonly Uint8Array[] = Array.from({ length: 256 }, (_, n) => new TextEncoder().encode(String(n)));
const SPEW_BYTES_OPEN = new TextEncoder().encode('([]uint8)[');
const SPACE = 0x20;
const CLOSE_BRACKET = 0x5d;

/**
 * go-spew's `%#v` rendering of a `[]byte`, as an adapter: `([]uint8)[` then each received byte in
 * decimal, one space between, then `]` on {@link SpewBytesSink.close}. The JSON-era kubelets hash
 * exactly this text of `json.Marshal(container)`.
 */
export class SpewBytesSink implements ByteSink {
  private first = true;

  constructor(private readonly inner: ByteSink) {
    inner.writeBytes(SPEW_BYTES_OPEN);
  }

  writeByte(b: number): void {
    if (this.first) this.first = false;
    else this.inner.writeByte(SPACE);
    this.inner.writeBytes(DECIMAL_BYTES[b]!);
  }

  writeBytes(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.writeByte(bytes[i]!);
  }

  close(): void {
    this.inner.writeByte(CLOSE_BRACKET);
  }
}
