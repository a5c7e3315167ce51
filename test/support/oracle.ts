/** Loads the oracle fixtures once for the tests that need them. */
import { readFileSync } from 'node:fs';
import { readCases, readExpected, type ExpectedRow, type FixtureCase } from '../../src/conformance/fixtures.js';

const ROOT = new URL('../../fixtures/oracle/', import.meta.url);

let cases: FixtureCase[] | undefined;
let expected: ExpectedRow[] | undefined;

export function oracleCases(): FixtureCase[] {
  return (cases ??= readCases(readFileSync(new URL('cases.ndjson', ROOT), 'utf8')));
}

export function oracleExpected(): ExpectedRow[] {
  return (expected ??= readExpected(readFileSync(new URL('expected.ndjson', ROOT), 'utf8')));
}

export function oracleCase(id: string): FixtureCase {
  const c = oracleCases().find((x) => x.id === id);
  if (!c) throw new Error(`no oracle case ${id}`);
  return c;
}

export function oracleRow(id: string, version: string): ExpectedRow {
  const r = oracleExpected().find((x) => x.case === id && x.version === version);
  if (!r) throw new Error(`no oracle row ${id}@${version}`);
  return r;
}
