/** Plain-text tables for people: left-aligned columns, two spaces apart, a header row in capitals. */

/** Renders rows as aligned columns; `null`/`undefined` cells print as `-`. */
export function table(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

/**
 * Consecutive rows that differ only in the release column, merged into one row naming the range
 * (`1.16–1.26`): a table of release ranges says in six rows what thirty say one release at a time.
 */
export function mergeReleaseRuns<T>(rows: T[][], releaseColumn: number): (T | string)[][] {
  const out: (T | string)[][] = [];
  let first: T | string | undefined;
  let previous: T[] | undefined;
  const sameBesidesRelease = (a: T[], b: T[]): boolean =>
    a.length === b.length && a.every((c, i) => i === releaseColumn || c === b[i]);
  for (const row of rows) {
    const last = out[out.length - 1];
    if (last !== undefined && previous !== undefined && sameBesidesRelease(previous, row)) {
      last[releaseColumn] = `${String(first)}–${String(row[releaseColumn])}`;
    } else {
      out.push([...row]);
      first = row[releaseColumn];
    }
    previous = row;
  }
  return out;
}

/** `namespace/name` of the object holding a container, or `-` for a bare container. */
export function podLabel(ref: { namespace: string | null; pod: string | null; kind: string | null }): string {
  if (ref.pod === null) return '-';
  const kind = ref.kind && ref.kind !== 'Pod' ? `${ref.kind.toLowerCase()}/` : '';
  return `${ref.namespace ? `${ref.namespace}/` : ''}${kind}${ref.pod}`;
}
