/**
 * The tape: what the text scanner records of container JSON text so the fused text hashers can
 * hash it without a value tree. One node per JSON value, in document order, each with its kind,
 * its span in the text, its number value, its first child and next sibling, and (as an object
 * member) its key's span and hash. Arrays are module scratch, grown on demand and overwritten by the
 * next scan: a hasher reads them right after the scan that filled them (hashing is synchronous).
 */

/** Node kinds. A string with a backslash is told apart: only its decoded value may be hashed. */
export const T_NULL = 0;
export const T_FALSE = 1;
export const T_TRUE = 2;
export const T_NUMBER = 3;
export const T_STRING = 4;
export const T_ESCAPED_STRING = 5;
export const T_ARRAY = 6;
export const T_OBJECT = 7;

const INT64_MAX_DIGITS = [57, 50, 50, 51, 51, 55, 50, 48, 51, 54, 56, 53, 52, 55, 55, 53, 56, 48, 55]; // 9223372036854775807

/**
 * Whether the number node's text (in `b`, the scanned bytes) is an integer beyond a double's exact
 * range that an int64 holds: `-?[1-9][0-9]{15,18}` within ±(2^63 − 1) (and −2^63). Its text is then
 * exactly what go-spew and encoding/json write for the decoded int64 (JSON has no leading zeros, and
 * `-0` is refused here), so a hasher may feed the text itself. The scanner records such numbers as
 * NaN: this runs only for them.
 */
export function isLongInt64(b: Uint8Array, n: number): boolean {
  let i = tape.start[n]!;
  const end = tape.end[n]!;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  const digits = end - i;
  if (digits < 16 || digits > 19 || b[i] === 0x30) return false;
  for (let j = i; j < end; j++) if (b[j]! < 0x30 || b[j]! > 0x39) return false;
  if (digits < 19) return true;
  for (let j = 0; j < 19; j++) {
    const d = b[i + j]! - INT64_MAX_DIGITS[j]!;
    if (d !== 0) return d < 0;
  }
  return true; // ±(2^63 − 1); −2^63 (last digit 8) is left to the tree path
}

/** The arrays the scanner fills; read through this object, since growing replaces them. */
export const tape = {
  count: 0,
  kind: new Uint8Array(256),
  /** The value's text, as byte offsets in the scanned UTF-8: `start` at its first byte, `end` after its last (strings with quotes). */
  start: new Int32Array(256),
  end: new Int32Array(256),
  /** The value of a number node (the scanner records only integers exact as doubles). */
  num: new Float64Array(256),
  /** First child of an array or object, next sibling of any node: -1 for none. */
  first: new Int32Array(256),
  next: new Int32Array(256),
  /** For object members: where the key's bytes start, how many, and their hash (see {@link keyHash}). */
  keyStart: new Int32Array(256),
  keyLen: new Int32Array(256),
  keyHash: new Int32Array(256),
};

// Per open container (by depth): its node and its last child so far.
let openNode = new Int32Array(64);
let lastChild = new Int32Array(64);

/** The hash the scanner computes of a key's bytes; the hashers compare it with their (ASCII) field names'. */
export function keyHash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return h;
}

export function resetTape(): void {
  tape.count = 0;
}

/** Nodes kept between scans: a container has a few hundred; a huge text's tape is not held on to. */
const KEEP_NODES = 1 << 16;

/** Drops the arrays a very large text grew (about 41 bytes a node), so they do not stay allocated. */
export function shrinkTape(): void {
  if (tape.kind.length <= KEEP_NODES) return;
  tape.kind = new Uint8Array(256);
  for (const k of ['start', 'end', 'first', 'next', 'keyStart', 'keyLen', 'keyHash'] as const)
    tape[k] = new Int32Array(256);
  tape.num = new Float64Array(256);
}

/**
 * A new node for the value starting at `start`, the child of the container open at `depth` (none
 * for the root, depth 0); `key` is the member's key when that container is an object.
 */
export function addNode(start: number, depth: number, keyAt: number, keyLength: number, hash: number): number {
  const n = tape.count++;
  if (n >= tape.kind.length) growTape();
  tape.start[n] = start;
  tape.first[n] = -1;
  tape.next[n] = -1;
  tape.keyStart[n] = keyAt;
  tape.keyLen[n] = keyLength;
  tape.keyHash[n] = hash;
  if (depth > 0) {
    const prev = lastChild[depth]!;
    if (prev < 0) tape.first[openNode[depth]!] = n;
    else tape.next[prev] = n;
    lastChild[depth] = n;
  }
  return n;
}

/** Marks `node` as the container now open at `depth`. */
export function openContainer(node: number, depth: number): void {
  if (depth >= openNode.length) {
    openNode = grown(openNode);
    lastChild = grown(lastChild);
  }
  openNode[depth] = node;
  lastChild[depth] = -1;
}

/** The node of the container open at `depth`. */
export function openContainerNode(depth: number): number {
  return openNode[depth]!;
}

/** A copy of `a` twice as long (the scratch arrays grow by doubling). */
export function grown<T extends Int32Array | Uint8Array | Float64Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

function growTape(): void {
  tape.kind = grown(tape.kind);
  tape.start = grown(tape.start);
  tape.end = grown(tape.end);
  tape.num = grown(tape.num);
  tape.first = grown(tape.first);
  tape.next = grown(tape.next);
  tape.keyStart = grown(tape.keyStart);
  tape.keyLen = grown(tape.keyLen);
  tape.keyHash = grown(tape.keyHash);
}

/**
 * The members of object node `o` in Go's map order: by the UTF-8 bytes of their keys (`b`, the
 * scanned text). Insertion sort: these maps are small.
 */
export function sortedMembers(b: Uint8Array, o: number): number[] {
  const out: number[] = [];
  for (let c = tape.first[o]!; c >= 0; c = tape.next[c]!) {
    let i = out.length;
    out.push(c);
    while (i > 0 && compareKeys(b, out[i - 1]!, c) > 0) {
      out[i] = out[i - 1]!;
      i--;
    }
    out[i] = c;
  }
  return out;
}

function compareKeys(bytes: Uint8Array, a: number, b: number): number {
  const la = tape.keyLen[a]!;
  const lb = tape.keyLen[b]!;
  const sa = tape.keyStart[a]!;
  const sb = tape.keyStart[b]!;
  for (let i = 0; i < la && i < lb; i++) {
    const d = bytes[sa + i]! - bytes[sb + i]!;
    if (d !== 0) return d;
  }
  return la - lb;
}
