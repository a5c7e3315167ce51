/** Text rendering of a conformance report, for the CLI and for test failure messages. */
import { diffPreimage, type ConformanceReport, type Tally } from './run.js';

function cell(t: Tally): string {
  return t.total === 0 ? '-' : `${t.matched}/${t.total}`;
}

export function formatReport(report: ConformanceReport, maxMismatches = 10): string {
  const out: string[] = [];
  out.push('release  algorithm  hash       hashWithoutResources  preimage   skipped');
  for (const r of report.releases) {
    out.push(
      `${r.release.padEnd(8)} ${cell(r.algorithm).padEnd(10)} ${cell(r.hash).padEnd(10)} ${cell(r.hashWithoutResources).padEnd(21)} ${cell(r.preimage).padEnd(10)} ${r.skipped}`,
    );
  }
  for (const m of report.mismatches.slice(0, maxMismatches)) {
    out.push('', `MISMATCH ${m.case} @ ${m.release} (${m.what})`);
    if (m.what === 'preimage') out.push(diffPreimage(m.expected, m.actual));
    else out.push(`  expected: ${m.expected}`, `  actual:   ${m.actual}`);
  }
  if (report.mismatches.length > maxMismatches)
    out.push(`… and ${report.mismatches.length - maxMismatches} more mismatches`);
  const checked = report.rows - report.skipped;
  if (checked === 0)
    out.push('', 'conformance: no row was compared (an empty expected file, or every row skipped): not a pass');
  out.push(
    '',
    `conformance: ${checked - new Set(report.mismatches.map((m) => `${m.case}@${m.release}`)).size}/${checked} rows match, ${report.skipped} skipped, ${report.mismatches.length} mismatches`,
  );
  return out.join('\n');
}
