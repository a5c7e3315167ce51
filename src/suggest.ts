/** "Did you mean …?" for a misspelled command, flag or gate name: the closest known name, if close. */

/** Levenshtein distance, case-insensitive (names differ in case more often than in letters). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[y.length] ?? 0;
}

/** The known name closest to `given` within a third of its length (at least 2 edits), or undefined. */
function closest(given: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(given.length / 3)) + 1;
  for (const k of known) {
    const d = distance(given, k);
    if (d < bestDistance || (k.toLowerCase().startsWith(given.toLowerCase()) && best === undefined)) {
      best = k;
      bestDistance = Math.min(d, bestDistance);
    }
  }
  return best;
}

/** `; did you mean "x"?` or the empty string. */
export function didYouMean(given: string, known: readonly string[], prefix = ''): string {
  const hit = closest(given, known);
  return hit === undefined ? '' : `; did you mean ${prefix}${hit}?`;
}
