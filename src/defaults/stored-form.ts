/**
 * The container as the apiserver writes it back: decoded into the release's `v1.Container` and
 * encoded again (json.Marshal semantics). This is what a round trip through the apiserver does to
 * spelling: quantities come out as `Quantity.String()` (`0.5` → `500m`, a resourceFieldRef's
 * missing divisor → `"0"`), unknown fields and nulls are dropped, empty lists and maps under
 * `omitempty` vanish, and the non-omitempty `resources` struct is always present (`{}`).
 */
import { BufferSink } from '../encode/sink.js';
import { compileGoJsonEncoder, type GoJsonEncoder } from '../encode/gojson.js';
import type { DecodedContainer } from '../hash/hashes-for.js';
import { JsonNumber } from '../json/number.js';
import { parseJson } from '../json/parse.js';

const encoders = new WeakMap<object, GoJsonEncoder>();

/** The stored JSON of a decoded container, numbers as JS numbers (bigints past 2^53). */
export function storedForm(decoded: DecodedContainer): Record<string, unknown> {
  const { root } = decoded.pipeline;
  let encode = encoders.get(root);
  if (!encode) {
    // The apiserver's serializer escapes nothing the judge could see after parsing: the mode only changes escapes.
    encode = compileGoJsonEncoder(root, 'go1.22');
    encoders.set(root, encode);
  }
  const sink = new BufferSink();
  encode(decoded.value, sink);
  return plainNumbers(parseJson(new TextDecoder().decode(sink.bytes()))) as Record<string, unknown>;
}

/** Every container number is a Go integer: a JS number when exact, else a bigint. */
function plainNumbers(v: unknown): unknown {
  if (v instanceof JsonNumber) {
    const n = Number(v.text);
    return Number.isSafeInteger(n) ? n : BigInt(v.text);
  }
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      Object.defineProperty(out, key, {
        value: plainNumbers(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return v;
}
