/** Runs a release pipeline into the FNV sink (hash) or a buffer (pre-image). */
import { BufferSink, Fnv32aSink, SpewBytesSink, TeeSink, type ByteSink } from '../encode/sink.js';
import type { GoStruct } from '../go/value.js';
import type { ReleasePipeline } from './pipeline.js';

/** FNV-1a 32 of what the kubelet feeds its hasher for this value. */
export function hashValue(p: ReleasePipeline, value: GoStruct): number {
  const fnv = new Fnv32aSink();
  feed(p, value, fnv);
  return fnv.sum32();
}

/** The pre-image (spew text or JSON bytes) and, in one pass, the hash of what FNV is fed. */
export function preimageAndHash(p: ReleasePipeline, value: GoStruct): { preimage: Uint8Array; hash: number } {
  const fnv = new Fnv32aSink();
  const buf = new BufferSink();
  if (p.hashesSpewOfBytes) {
    const spew = new SpewBytesSink(fnv);
    p.writePreimage(value, new TeeSink([buf, spew]));
    spew.close();
  } else {
    p.writePreimage(value, new TeeSink([buf, fnv]));
  }
  return { preimage: buf.bytes(), hash: fnv.sum32() };
}

/** Exactly the bytes FNV consumes (for JSON eras, go-spew's `([]uint8)[…]` text). */
export function hashedBytes(p: ReleasePipeline, value: GoStruct): Uint8Array {
  const buf = new BufferSink();
  feed(p, value, buf);
  return buf.bytes();
}

function feed(p: ReleasePipeline, value: GoStruct, sink: ByteSink): void {
  if (p.hashesSpewOfBytes) {
    const spew = new SpewBytesSink(sink);
    p.writePreimage(value, spew);
    spew.close();
  } else {
    p.writePreimage(value, sink);
  }
}
