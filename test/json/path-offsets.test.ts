/**
 * The text skipper behind JSON positions agrees with the span scanner on every path of arbitrary
 * JSON (any spacing, escapes in keys and strings), and line/column comes from one line index.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { JsonPathSegment } from '../../src/errors.js';
import { LineIndex, lineColumnOf } from '../../src/json/line-index.js';
import { PathOffsets } from '../../src/json/path-offsets.js';
import { nodeAt, scanJson, type JsonNode } from '../../src/json/spans.js';

function paths(node: JsonNode, prefix: JsonPathSegment[] = []): JsonPathSegment[][] {
  const out: JsonPathSegment[][] = [prefix];
  if (node.type === 'object') for (const m of node.members) out.push(...paths(m.value, [...prefix, m.key]));
  if (node.type === 'array') node.items.forEach((item, i) => out.push(...paths(item, [...prefix, i])));
  return out;
}

describe('PathOffsets', () => {
  test.prop([fc.json({ maxDepth: 4 }), fc.constantFrom(0, 2, '\t')])(
    'finds every value where scanJson does',
    (json, indent) => {
      const text = `  ${JSON.stringify(JSON.parse(json), null, indent)}\n`;
      const root = scanJson(text);
      const offsets = new PathOffsets(text, 0);
      for (const path of paths(root)) expect(offsets.offsetOf(path)).toBe(nodeAt(root, path)!.start);
    },
  );

  it('stops at the longest prefix that exists, and reuses array offsets', () => {
    const text = '{"items": [{"a": 1}, {"a\\"b": [true, "x,]}"]}]}';
    const o = new PathOffsets(text, 0);
    expect(text.slice(o.offsetOf(['items', 1, 'a"b', 1]))).toMatch(/^"x,\]\}"/);
    expect(o.offsetOf(['items', 5, 'a'])).toBe(text.indexOf('['));
    expect(o.offsetOf(['items', 0, 'missing'])).toBe(text.indexOf('{"a"'));
  });
});

describe('LineIndex', () => {
  test.prop([fc.array(fc.constantFrom('a', '\n', 'é', '\r\n'), { maxLength: 60 })])(
    'gives the line and column a rescan from the start gives',
    (parts) => {
      const text = parts.join('');
      const index = new LineIndex(text);
      for (let offset = 0; offset <= text.length; offset++) {
        const before = text.slice(0, offset);
        const line = before.split('\n').length;
        const column = offset - (before.lastIndexOf('\n') + 1) + 1;
        expect(index.at(offset)).toEqual({ line, column });
        expect(lineColumnOf(text, offset)).toEqual({ line, column });
      }
    },
  );
});
