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

/** `namespace/name` of the object holding a container, or `-` for a bare container. */
export function podLabel(ref: { namespace: string | null; pod: string | null; kind: string | null }): string {
  if (ref.pod === null) return '-';
  const kind = ref.kind && ref.kind !== 'Pod' ? `${ref.kind.toLowerCase()}/` : '';
  return `${ref.namespace ? `${ref.namespace}/` : ''}${kind}${ref.pod}`;
}
