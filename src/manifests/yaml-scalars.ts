/**
 * What a YAML scalar becomes in the JSON kubectl sends. kubectl converts YAML with sigs.k8s.io/yaml:
 * goyaml.v2 resolves each plain scalar by YAML 1.1 rules (`yes` is true, `0o17` and `017` are
 * octal, `1e3` is the float 1000, timestamps stay text), Go's encoding/json writes the value, and
 * kubectl's unstructured decoding reads numbers back as int64 when they fit, else as float64. The
 * rules here follow goyaml.v2's `resolve` and Go's strconv, not the YAML specification.
 */
import { MAX_INT64, MAX_UINT64, MIN_INT64 } from '../go/ints.js';

/** A resolved scalar; numbers carry the exact JSON text kubectl sends for them. */
export type YamlScalar =
  | { kind: 'string'; value: string }
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  /** `tag` is what goyaml resolved (`1e3` is a `!!float` whose JSON text is `1000`). */
  | { kind: 'number'; text: string; tag: '!!int' | '!!float' }
  /** A value kubectl cannot send (`.nan`, `.inf`, an integer beyond float64): refused by the caller. */
  | { kind: 'unsendable'; reason: string };

const TAG_PREFIX = 'tag:yaml.org,2002:';

const WORDS = new Map<string, YamlScalar>();
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'])
  WORDS.set(w, { kind: 'bool', value: true });
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'])
  WORDS.set(w, { kind: 'bool', value: false });
for (const w of ['', '~', 'null', 'Null', 'NULL']) WORDS.set(w, { kind: 'null' });
for (const w of [
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]) {
  WORDS.set(w, { kind: 'unsendable', reason: `${w} is not a number JSON can carry (json: unsupported value)` });
}

/** goyaml.v2's `yamlStyleFloat`: note that it needs no dot, so `1e3` is a float. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** What strconv.ParseFloat accepts for a text starting with `.` (no underscores without a base prefix). */
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;

/** goyaml.v2's first-character hint: only these can resolve to anything but a string. */
function hint(c: string): 'sign' | 'digit' | 'word' | 'dot' | null {
  if (c === '+' || c === '-') return 'sign';
  if (c >= '0' && c <= '9') return 'digit';
  if ('yYnNtTfFoO~'.includes(c)) return 'word';
  if (c === '.') return 'dot';
  return null;
}

/** strconv.ParseInt(s, 0, 64)'s syntax (sign, then 0x/0o/0b or a leading 0 for octal); null when it is no integer. */
function parseGoInteger(s: string): { value: bigint; signed: boolean } | null {
  const signed = s[0] === '+' || s[0] === '-';
  let body = signed ? s.slice(1) : s;
  let prefix = '';
  let digits = /^[0-9]+$/;
  if (/^0[xX]/.test(body)) [prefix, digits, body] = ['0x', /^[0-9a-fA-F]+$/, body.slice(2)];
  else if (/^0[oO]/.test(body)) [prefix, digits, body] = ['0o', /^[0-7]+$/, body.slice(2)];
  else if (/^0[bB]/.test(body)) [prefix, digits, body] = ['0b', /^[01]+$/, body.slice(2)];
  else if (body.length > 1 && body[0] === '0') [prefix, digits, body] = ['0o', /^[0-7]+$/, body.slice(1)];
  if (!digits.test(body)) return null;
  const v = BigInt(prefix + body);
  return { value: s[0] === '-' ? -v : v, signed };
}

/** The JSON text of a float64 after kubectl's round trip (Go's encoding/json and JS agree on shortest digits and exponent form). */
function floatNumber(f: number, tag: '!!int' | '!!float' = '!!float'): YamlScalar {
  if (!Number.isFinite(f)) return { kind: 'unsendable', reason: 'the number is beyond float64 range' };
  // -0 is written "-0", which the unstructured decoding reads back as the int64 0.
  return { kind: 'number', text: Object.is(f, -0) ? '0' : String(f), tag };
}

function integerNumber(v: bigint): YamlScalar {
  // Beyond int64, kubectl's unstructured decoding turns the number into a float64.
  if (v < MIN_INT64 || v > MAX_INT64) return floatNumber(Number(v), '!!int');
  return { kind: 'number', text: v.toString(), tag: '!!int' };
}

/** goyaml.v2's resolution of an untagged plain scalar. */
export function resolvePlain(text: string): YamlScalar {
  const word = WORDS.get(text);
  if (word) return word;
  switch (hint(text[0] ?? '')) {
    case 'dot': {
      const f = DOT_FLOAT.test(text) ? Number(text) : NaN;
      return Number.isFinite(f) ? floatNumber(f) : { kind: 'string', value: text };
    }
    case 'sign':
    case 'digit': {
      const plain = text.replaceAll('_', '');
      const int = parseGoInteger(plain);
      if (int && int.value >= MIN_INT64 && int.value <= MAX_INT64) return integerNumber(int.value);
      if (int && !int.signed && int.value <= MAX_UINT64) return integerNumber(int.value);
      if (YAML_STYLE_FLOAT.test(plain)) {
        const f = Number(plain);
        if (Number.isFinite(f)) return floatNumber(f);
      }
      // ParseUint failed on range only: goyaml keeps the value as a big.Int.
      if (int && !int.signed) return integerNumber(int.value);
      return { kind: 'string', value: text };
    }
    default:
      return { kind: 'string', value: text };
  }
}

/**
 * A scalar with an explicit tag (`!!str 5`, `!!int "5"`), as goyaml.v2 resolves it, or an error
 * text when the value does not fit the tag. Tags goyaml does not resolve (`!local`) leave the text.
 */
export function resolveTagged(tag: string, text: string): YamlScalar | string {
  const short = tag.startsWith(TAG_PREFIX) ? `!!${tag.slice(TAG_PREFIX.length)}` : tag;
  switch (short) {
    case '!!str':
    case '!!timestamp':
      return { kind: 'string', value: text };
    case '!!binary':
      return '!!binary is not supported (kubectl sends the decoded bytes; write the value as text)';
    case '!!int':
    case '!!float':
    case '!!bool':
    case '!!null': {
      const r = resolvePlain(text);
      const got =
        r.kind === 'number' ? r.tag : r.kind === 'unsendable' ? '!!float' : `!!${r.kind === 'string' ? 'str' : r.kind}`;
      if (got === short || (short === '!!float' && got === '!!int')) return r;
      return `cannot decode ${got} \`${text}\` as a ${short}`;
    }
    default:
      return { kind: 'string', value: text };
  }
}
