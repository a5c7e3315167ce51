/** The byte sinks under every encoder: BufferSink's growth and copies, FNV-1a 32's published vectors. */
import { describe, expect, it } from 'vitest';
import { BufferSink, Fnv32aSink, TeeSink } from '../../src/encode/sink.js';

const pattern = (n: number, seed: number): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 256);

describe('BufferSink', () => {
  it('keeps every byte of one write many times its starting capacity', () => {
    const big = pattern(5000, 7);
    const sink = new BufferSink();
    sink.writeBytes(big);
    expect(sink.bytes()).toEqual(big);
  });

  it('keeps earlier bytes across growth by single bytes and by large writes', () => {
    const sink = new BufferSink();
    const expected: number[] = [];
    for (let i = 0; i < 1500; i++) {
      sink.writeByte(i % 256);
      expected.push(i % 256);
    }
    for (const n of [0, 3000, 1, 9000]) {
      const chunk = pattern(n, n);
      sink.writeBytes(chunk);
      expected.push(...chunk);
    }
    expect(sink.bytes()).toEqual(Uint8Array.from(expected));
  });

  it('hands out copies: changing one changes neither the sink nor later copies', () => {
    const sink = new BufferSink();
    sink.writeBytes(Uint8Array.of(1, 2, 3));
    const first = sink.bytes();
    first[0] = 99;
    sink.writeByte(4);
    expect(sink.bytes()).toEqual(Uint8Array.of(1, 2, 3, 4));
    expect(first).toEqual(Uint8Array.of(99, 2, 3));
  });
});

describe('Fnv32aSink and TeeSink', () => {
  // FNV-1a 32-bit test vectors from the FNV reference (draft-eastlake-fnv): "" → 811c9dc5, "a" → e40c292c,
  // "foobar" → bf9cf968.
  it('gives the published FNV-1a 32 values, byte by byte or in one write, through a tee', () => {
    const bytes = new TextEncoder().encode('foobar');
    const one = new Fnv32aSink();
    const each = new Fnv32aSink();
    const copy = new BufferSink();
    one.writeBytes(bytes);
    const tee = new TeeSink([each, copy]);
    for (const b of bytes) tee.writeByte(b);
    expect(one.sum32().toString(16)).toBe('bf9cf968');
    expect(each.sum32()).toBe(one.sum32());
    expect(copy.bytes()).toEqual(bytes);
    expect(new Fnv32aSink().sum32().toString(16)).toBe('811c9dc5');
    const a = new Fnv32aSink();
    a.writeByte(0x61);
    expect(a.sum32().toString(16)).toBe('e40c292c');
  });
});
