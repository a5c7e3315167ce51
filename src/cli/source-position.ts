/**
 * Turns an error's JSON path into a line, a column and an excerpt of the input text, so a CLI user
 * sees where in their file the problem is (the library errors carry only the path).
 */
import { nodeAt, scanJson } from '../json/spans.js';
import type { JsonPathSegment } from '../errors.js';

/** `line:column` and the source line with a caret, or null when the path is not in the text. */
export function describePosition(text: string, path: readonly JsonPathSegment[]): string | null {
  let offset: number;
  try {
    // The deepest node of the path that exists (an absent field points at its parent object).
    const root = scanJson(text);
    let found = null;
    for (let n = path.length; n >= 0 && !found; n--) found = nodeAt(root, path.slice(0, n)) ?? null;
    if (!found) return null;
    offset = found.start;
  } catch {
    return null;
  }
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(0, offset).split('\n').length;
  const column = offset - lineStart + 1;
  const source = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  const from = Math.max(0, column - 1 - 60);
  const excerpt = source.slice(from, from + 120);
  return `line ${line}, column ${column}\n  ${excerpt}\n  ${' '.repeat(column - 1 - from)}^`;
}
