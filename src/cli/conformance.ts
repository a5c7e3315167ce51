#!/usr/bin/env node
/**
 * `npm run conformance -- [DIR | CASES.ndjson EXPECTED.ndjson]`: exit 0 only when every row matches,
 * 1 on a mismatch, 2 when the files cannot be read. DIR holds `cases.ndjson` and `expected.ndjson`
 * (an oracle folder such as `../shared/oracle`); without arguments, the project's `fixtures/oracle`.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KubeletHashError } from '../errors.js';
import { FixtureError, formatReport, readCases, readExpected, runConformance } from '../conformance/index.js';

/** Arguments or files this tool cannot read: said in one line, exit 2. */
class ConformanceInputError extends Error {}

function paths(args: string[]): [string, string] {
  const [first = 'fixtures/oracle', second] = args;
  if (second !== undefined) return [first, second];
  // One argument: the folder of a pair (a file alone has no partner to compare with).
  if (!statSync(first, { throwIfNoEntry: false })?.isDirectory())
    throw new ConformanceInputError(`${first}: expected a folder with cases.ndjson and expected.ndjson, or two files`);
  return [join(first, 'cases.ndjson'), join(first, 'expected.ndjson')];
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConformanceInputError(`${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
}

try {
  const [casesPath, expectedPath] = paths(process.argv.slice(2));
  const cases = readCases(read(casesPath), casesPath);
  const expected = readExpected(read(expectedPath), expectedPath);
  const report = runConformance(cases, expected);
  process.stdout.write(formatReport(report) + '\n');
  process.exitCode = report.ok ? 0 : 1;
} catch (e) {
  if (!(e instanceof KubeletHashError || e instanceof FixtureError || e instanceof ConformanceInputError)) throw e;
  process.stderr.write(`conformance: ${e.message}\n`);
  process.exitCode = 2;
}
