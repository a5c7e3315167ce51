/**
 * Line and column of an offset in a text: the line starts are found once (one pass), then each
 * position is a binary search, so positions for every value of a 50 MB document cost O(n + k log n)
 * instead of a rescan from the start per value. Every place that reports a line and column uses it.
 */

/** A line and column, both counted from 1 (columns in UTF-16 code units). */
export interface LineColumn {
  line: number;
  column: number;
}

/** The line starts of `text`, computed on the first call and reused. */
export class LineIndex {
  private starts: Uint32Array | undefined;

  constructor(private readonly text: string) {}

  private lineStarts(): Uint32Array {
    if (this.starts) return this.starts;
    const text = this.text;
    let count = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
    const starts = new Uint32Array(count);
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[n++] = i + 1;
    this.starts = starts;
    return starts;
  }

  /** The line and column of UTF-16 `offset` (clamped to the text). */
  at(offset: number): LineColumn {
    const starts = this.lineStarts();
    const target = Math.max(0, Math.min(offset, this.text.length));
    // The last line start <= target.
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] ?? 0) <= target) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: target - (starts[lo] ?? 0) + 1 };
  }
}

/** Line and column of one offset (an error message's position: computed once, no index kept). */
export function lineColumnOf(text: string, offset: number): LineColumn {
  return new LineIndex(text).at(offset);
}
