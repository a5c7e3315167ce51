/** The position-tracking JSON scanner behind the byte-exact record rewrite, checked against JSON.parse. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../src/errors.js';
import { decodeJsonString, findMember, nodeAt, scanJson, toPlainValue } from '../../src/json/spans.js';
import type { JsonNode } from '../../src/json/spans.js';

function* walk(node: JsonNode): Generator<JsonNode> {
  yield node;
  if (node.type === 'object') for (const m of node.members) yield* walk(m.value);
  if (node.type === 'array') for (const item of node.items) yield* walk(item);
}

function accepts(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function scans(text: string): boolean {
  try {
    scanJson(text);
    return true;
  } catch (e) {
    expect(e).toBeInstanceOf(RecordError);
    return false;
  }
}

/** Re-indents JSON text with arbitrary (legal) whitespace between tokens. */
function respace(text: string, ws: readonly string[]): string {
  let out = '';
  let k = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') out += text.charAt(++i);
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    out += c;
    if ('{}[],:'.includes(c)) out += ws[k++ % ws.length] ?? '';
  }
  return out;
}

const whitespace = fc.array(fc.stringMatching(/^[ \t\n\r]{0,4}$/), { minLength: 1, maxLength: 8 });

describe('scanJson agrees with JSON.parse', () => {
  test.prop([fc.jsonValue(), whitespace])('on any JSON value with any whitespace', (value, ws) => {
    const text = respace(JSON.stringify(value, null, ws.length % 3 === 0 ? undefined : '\t'), ws);
    const node = scanJson(text);
    expect(toPlainValue(node)).toEqual(JSON.parse(text));
    // Every string's span is exactly its literal: quotes included, escapes as written.
    for (const n of walk(node)) {
      if (n.type === 'string') expect(JSON.parse(text.slice(n.start, n.end))).toBe(n.value);
      expect(JSON.parse(text.slice(n.start, n.end))).toEqual(toPlainValue(n));
    }
  });

  test.prop([
    fc.string({
      unit: fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        '"',
        ':',
        ',',
        ' ',
        '\\',
        'u',
        '0',
        '1',
        '-',
        '.',
        'e',
        'n',
        't',
        'a',
        '\n',
        '\u0001',
      ),
      maxLength: 14,
    }),
  ])('accepts exactly what JSON.parse accepts on token soup', (text) => {
    expect(scans(text)).toBe(accepts(text));
  });

  it.each([
    ['01', false],
    ['-', false],
    ['1.', false],
    ['.5', false],
    ['1e', false],
    ['-0.5e+7', true],
    ['"\\u00e9\\ud83d\\ude00"', true],
    ['"\\x"', false],
    ['"a\tb"', false],
    ['[1,]', false],
    ['{"a":1,}', false],
    ['\ufeff{}', false],
    [' \r\n\t{} ', true],
    ['tru', false],
    ['nulls', false],
  ])('%j → accepted %s (as JSON.parse)', (text, ok) => {
    expect(accepts(text)).toBe(ok);
    expect(scans(text)).toBe(ok);
  });
});

describe('scanJson details', () => {
  it('keeps "__proto__" as an ordinary own member', () => {
    const plain = toPlainValue(scanJson('{"__proto__": {"polluted": true}, "a": 1}')) as Record<string, unknown>;
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect((plain as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('lets the last duplicate member win, like JSON.parse and Go', () => {
    const node = scanJson('{"k": "first", "k": "second"}');
    expect(findMember(node, 'k')?.value).toMatchObject({ type: 'string', value: 'second' });
    expect(toPlainValue(node)).toEqual(JSON.parse('{"k": "first", "k": "second"}'));
  });

  it('stops hostile nesting with a RecordError before the stack overflows', () => {
    expect(() => scanJson('['.repeat(100_000))).toThrow(RecordError);
    expect(() => scanJson(`${'['.repeat(400)}${']'.repeat(400)}`)).not.toThrow();
  });

  it('names the path and position of a syntax error', () => {
    try {
      scanJson('{\n  "a": [1, {"b": tru}]\n}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RecordError);
      const err = e as RecordError;
      expect(err.path).toEqual(['a', 1, 'b']);
      expect(err.message).toContain('line 2, column 18');
    }
  });

  it('nodeAt follows keys and indices', () => {
    const node = scanJson('[{"x": {"y": ["p", "q"]}}]');
    expect(nodeAt(node, [0, 'x', 'y', 1])).toMatchObject({ type: 'string', value: 'q' });
    expect(nodeAt(node, [0, 'x', 'z'])).toBeUndefined();
    expect(nodeAt(node, ['0'])).toBeUndefined();
  });

  it('maps every decoded code unit back to where it was written', () => {
    const text = '"a\\u0062\\n\\ud83d\\ude00é😀\\""';
    const fail = (): never => {
      throw new Error('unexpected');
    };
    const d = decodeJsonString(text, 0, fail);
    expect(d.value).toBe(JSON.parse(text));
    expect(d.end).toBe(text.length);
    expect(d.sourceOffsets).toEqual([1, 2, 8, 10, 16, 22, 23, 24, 25, 27]);
    expect(d.sourceOffsets).toHaveLength(d.value.length + 1);
  });
});
