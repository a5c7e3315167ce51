/**
 * `google.protobuf.Any` as containerd stores extensions: field 1 `type_url` (string), field 2
 * `value` (bytes). Only the value is replaced; every other byte of the message is kept, and the
 * value's length varint is re-encoded (its size changes only when the value crosses 128^n bytes).
 */
import { StoreError } from '../../errors.js';

function bad(where: string, detail: string): StoreError {
  return new StoreError('STORE_CORRUPT', [], `a protobuf Any at ${where}`, detail, where);
}

function readVarint(buf: Buffer, pos: number, where: string): [value: number, next: number] {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 8; i++) {
    if (pos >= buf.length) throw bad(where, 'truncated varint');
    const b = buf.readUInt8(pos++);
    v += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return [v, pos];
    mul *= 128;
  }
  throw bad(where, 'varint too long');
}

function encodeVarint(v: number): Buffer {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A decoded Any: its type URL and where its value sits in the message. */
export interface AnyMessage {
  typeUrl: string;
  value: Buffer;
  /** Offset of field 2's length varint, and of the first byte after the value. */
  valueField: { lengthAt: number; end: number };
}

/** Decodes an Any, refusing unknown wire types and anything out of bounds. */
export function decodeAny(buf: Buffer, where: string): AnyMessage {
  let pos = 0;
  let typeUrl: string | undefined;
  let value: (AnyMessage['valueField'] & { start: number }) | undefined;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos, where);
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire !== 2) throw bad(where, `field ${field} has wire type ${wire}; an Any has only length-delimited fields`);
    const [len, start] = readVarint(buf, afterTag, where);
    const end = start + len;
    if (end > buf.length) throw bad(where, `field ${field} runs past the end`);
    if (field === 1) typeUrl = buf.toString('utf8', start, end);
    else if (field === 2) value = { lengthAt: afterTag, start, end };
    pos = end;
  }
  if (typeUrl === undefined || value === undefined) throw bad(where, 'type_url or value missing');
  return {
    typeUrl,
    value: buf.subarray(value.start, value.end),
    valueField: { lengthAt: value.lengthAt, end: value.end },
  };
}

/** The message with its value replaced by `value`. */
export function replaceAnyValue(buf: Buffer, msg: AnyMessage, value: Uint8Array): Buffer {
  const head = buf.subarray(0, msg.valueField.lengthAt);
  const len = encodeVarint(value.length);
  const tail = buf.subarray(msg.valueField.end);
  // Its own allocation, not a slice of Node's shared pool: callers keep thousands of these, and a
  // kept slice would pin the whole pool chunk around it.
  const out = Buffer.allocUnsafeSlow(head.length + len.length + value.length + tail.length);
  let o = head.copy(out, 0);
  o += len.copy(out, o);
  o += Buffer.from(value.buffer, value.byteOffset, value.byteLength).copy(out, o);
  tail.copy(out, o);
  return out;
}

/** Encodes an Any as Go's proto.Marshal does (type_url, then value). */
export function encodeAny(typeUrl: string, value: Uint8Array): Buffer {
  const url = Buffer.from(typeUrl);
  return Buffer.concat([
    Buffer.from([0x0a]),
    encodeVarint(url.length),
    url,
    Buffer.from([0x12]),
    encodeVarint(value.length),
    value,
  ]);
}
