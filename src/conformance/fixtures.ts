/**
 * Reading oracle-format fixture files (`cases.ndjson`, `expected.ndjson`): one JSON document per
 * line, validated with zod; a bad line is an `INVALID_FIXTURE` error naming file line and field.
 */
import { z } from 'zod';
import { formatJsonPath, parseWith } from '../errors.js';
import { parseJson, type JsonValue } from '../json/parse.js';

export interface FixtureCase {
  id: string;
  description: string;
  /** Parsed with number source text kept (quantities such as `1E3` depend on it). */
  container: JsonValue;
}

export interface ExpectedRow {
  case: string;
  version: string;
  algorithm: 'legacy' | 'json' | 'name-image';
  hash: string;
  hashWithoutResources?: string;
  preimage: string;
}

const caseShape = z.object({ case: z.string().min(1), description: z.string(), container: z.unknown() });
const expectedShape = z.object({
  case: z.string().min(1),
  version: z.string().regex(/^1\.\d+$/),
  algorithm: z.enum(['legacy', 'json', 'name-image']),
  hash: z.string().regex(/^[0-9a-f]+$/),
  hashWithoutResources: z
    .string()
    .regex(/^[0-9a-f]+$/)
    .optional(),
  preimage: z.string(),
});

function* lines(text: string): Generator<[number, string]> {
  const all = text.split('\n');
  for (const [i, raw] of all.entries()) {
    const l = raw.trim();
    if (l !== '') yield [i + 1, l];
  }
}

/** A fixture line that is not in the oracle format (a development tool's error, not part of the library's ErrorCode set). */
export class FixtureError extends Error {
  readonly code = 'INVALID_FIXTURE';
  constructor(
    readonly path: readonly (string | number)[],
    detail: string,
  ) {
    super(
      `INVALID_FIXTURE at ${formatJsonPath(path)}: expected a line in the oracle format (see fixtures/oracle/README.md) (${detail})`,
    );
    this.name = 'FixtureError';
  }
}

/** One line's JSON, or a {@link FixtureError} naming the file and line (not a bare SyntaxError). */
function jsonLine(l: string, file: string, line: number): unknown {
  try {
    return JSON.parse(l) as unknown;
  } catch (e) {
    throw new FixtureError([file, line], (e as Error).message);
  }
}

function validate<T>(schema: z.ZodType<T>, raw: unknown, file: string, line: number): T {
  return parseWith(schema, raw, (issue) => new FixtureError([file, line, ...issue.inside.map(String)], issue.message));
}

export function readCases(text: string, file = 'cases'): FixtureCase[] {
  const out: FixtureCase[] = [];
  for (const [n, l] of lines(text)) {
    // Our own parser keeps numbers as source text; JSON.parse is only used for the plain fields.
    const row = validate(caseShape, jsonLine(l, file, n), file, n);
    const raw = parseJson(l);
    const container = (raw as Record<string, JsonValue>)['container'] ?? null;
    out.push({ id: row.case, description: row.description, container });
  }
  return out;
}

export function readExpected(text: string, file = 'expected'): ExpectedRow[] {
  const out: ExpectedRow[] = [];
  for (const [n, l] of lines(text)) out.push(validate<ExpectedRow>(expectedShape, jsonLine(l, file, n), file, n));
  return out;
}
