import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { formatReport } from '../../src/conformance/report.js';
import { supportedReleases } from '../../src/releases/release-info.js';
import { oracleCases, oracleExpected } from '../support/oracle.js';

describe('conformance over fixtures/oracle', () => {
  it('has one row per case and supported release', () => {
    const rows = oracleExpected();
    expect(rows).toHaveLength(oracleCases().length * supportedReleases().length);
    expect([...new Set(rows.map((r) => r.version))]).toEqual(supportedReleases());
  });

  // One test per release (not one for all), so a failure names its release and stops early.
  it.each(supportedReleases())(
    'matches every row of %s: algorithm, hash, hashWithoutResources and pre-image',
    (release) => {
      const report = runConformance(
        oracleCases(),
        oracleExpected().filter((row) => row.version === release),
      );
      if (!report.ok) expect.fail(formatReport(report, 5));
      expect(report.skipped).toBe(0);
      expect(report.releases.map((r) => r.release)).toEqual([release]);
      const all = oracleCases().length;
      const [r] = report.releases;
      expect(r?.algorithm).toEqual({ matched: all, total: all });
      expect(r?.hash).toEqual({ matched: all, total: all });
      expect(r?.preimage).toEqual({ matched: all, total: all });
      const minor = Number(release.split('.')[1]);
      const withoutResources = minor >= 27 && minor <= 30 ? all : 0;
      expect(r?.hashWithoutResources).toEqual({ matched: withoutResources, total: withoutResources });
    },
  );

  it('fails when a single expected value is changed', () => {
    const rows = oracleExpected().map((r) => ({ ...r }));
    const victim = rows.findIndex((r) => r.case === 'k8s-sampleContainer' && r.version === '1.20');
    rows[victim] = { ...rows[victim]!, hash: 'deadbeef' };
    const hashOnly = runConformance(
      oracleCases(),
      rows.filter((r) => r.case === 'k8s-sampleContainer'),
    );
    expect(hashOnly.ok).toBe(false);
    expect(hashOnly.mismatches).toEqual([
      { case: 'k8s-sampleContainer', release: '1.20', what: 'hash', expected: 'deadbeef', actual: '311670a' },
    ]);

    const pre = rows
      .filter((r) => r.case === 'minimal-name')
      .map((r) => (r.version === '1.12' ? { ...r, preimage: r.preimage + ' ' } : r));
    const preReport = runConformance(oracleCases(), pre);
    expect(preReport.mismatches.map((m) => [m.release, m.what])).toEqual([['1.12', 'preimage']]);
    expect(formatReport(preReport)).toContain('MISMATCH minimal-name @ 1.12 (preimage)');

    const algo = rows
      .filter((r) => r.case === 'minimal-name')
      .map((r) => (r.version === '1.16' ? { ...r, algorithm: 'legacy' as const } : r));
    expect(runConformance(oracleCases(), algo).mismatches).toEqual([
      { case: 'minimal-name', release: '1.16', what: 'algorithm', expected: 'legacy', actual: 'json' },
    ]);
  });

  it('reports rows of unknown releases as skipped, not passed', () => {
    const row = { ...oracleExpected()[0]!, version: '1.99' };
    const report = runConformance(oracleCases(), [row]);
    expect(report.skipped).toBe(1);
    expect(report.releases[0]).toMatchObject({ release: '1.99', skipped: 1, hash: { matched: 0, total: 0 } });
  });
});

describe('npm run conformance (src/cli/conformance.ts)', () => {
  const tsx = join(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [tsx, 'src/cli/conformance.ts', ...args], {
      cwd: join(import.meta.dirname, '..', '..'),
      encoding: 'utf8',
    });

  it('takes an oracle folder as well as its two files', () => {
    const r = run('fixtures/oracle');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const n = oracleExpected().length;
    expect(r.stdout).toContain(`conformance: ${n}/${n} rows match, 0 skipped, 0 mismatches`);
  });

  it('fails (exit 1) when no row was compared: an empty expected file is no all-clear', () => {
    const empty = join(mkdtempSync(join(tmpdir(), 'kh-conformance-')), 'expected.ndjson');
    writeFileSync(empty, '');
    const none = run('fixtures/oracle/cases.ndjson', empty);
    expect(none.status).toBe(1);
    expect(none.stdout).toContain('no row was compared');
  });

  it('refuses what it cannot read in one line, exit 2, naming the file and the line', () => {
    const notJson = run('fixtures/oracle/cases.ndjson', 'fixtures/oracle/README.md');
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(
      /^conformance: INVALID_FIXTURE at \["fixtures\/oracle\/README\.md"\]\[1\]: .*not valid JSON/,
    );
    expect(notJson.stderr.trim().split('\n')).toHaveLength(1);
    const missing = run('no-such-cases.ndjson', 'no-such-expected.ndjson');
    expect([missing.status, missing.stderr]).toEqual([2, 'conformance: no-such-cases.ndjson: ENOENT\n']);
    const lone = run('fixtures/oracle/cases.ndjson');
    expect(lone.status).toBe(2);
    expect(lone.stderr).toContain('expected a folder with cases.ndjson and expected.ndjson, or two files');
  });
});
