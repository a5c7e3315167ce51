#!/usr/bin/env node
/** `npm run conformance -- CASES.ndjson EXPECTED.ndjson`: exit 0 only when every row matches. */
import { readFileSync } from 'node:fs';
import { readCases, readExpected } from '../conformance/index.js';
import { formatReport } from '../conformance/index.js';
import { runConformance } from '../conformance/index.js';

const [casesPath = 'fixtures/oracle/cases.ndjson', expectedPath = 'fixtures/oracle/expected.ndjson'] =
  process.argv.slice(2);
const cases = readCases(readFileSync(casesPath, 'utf8'), casesPath);
const expected = readExpected(readFileSync(expectedPath, 'utf8'), expectedPath);
const report = runConformance(cases, expected);
process.stdout.write(formatReport(report) + '\n');
process.exitCode = report.ok ? 0 : 1;
