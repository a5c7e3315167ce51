/**
 * The documented shape of `--json` output: one document per run, the same envelope for every
 * command (`kubeletHash`, `command`, `exitCode`, `warnings`, `rows`, `summary`), rows whose first
 * fields say where the container came from. Errors with `--json` are one document on stderr.
 * docs/cli.md and docs/cli-output.schema.json are generated from these schemas.
 */
import { z } from 'zod';
import { CONTAINER_LISTS } from '../pod/locate.js';

const list = z.enum(CONTAINER_LISTS);

/** The fields every row about an input container starts with. */
const containerRefShape = {
  file: z.string().describe('input file name as given (`-` for standard input)'),
  document: z.number().int().describe('index of the document in the file, from 0 (empty documents not counted)'),
  kind: z
    .string()
    .nullable()
    .describe('`kind` of the object holding the container (Pod, Deployment, …); null for a bare container'),
  namespace: z.string().nullable().describe('metadata.namespace of that object, when set'),
  pod: z.string().nullable().describe('metadata.name of that object (the Pod, or the workload for a template)'),
  container: z.string().describe('the container name'),
  list: list.describe('the pod-spec list holding it'),
  path: z.string().describe('jq path of the container in its document, e.g. `.items[2].spec.containers[0]`'),
  line: z.number().int().nullable().describe('line of the container in the file, from 1'),
  column: z.number().int().nullable().describe('column of the container in the file, from 1'),
};

const hashRow = z.object({
  ...containerRefShape,
  release: z.string().describe('kubelet minor release, e.g. `1.29`'),
  hash: z.string().describe('io.kubernetes.container.hash as that kubelet stores it'),
  hashWithoutResources: z
    .string()
    .nullable()
    .describe('io.kubernetes.container.hashWithoutResources (1.27–1.30); null for releases without it'),
  toolchain: z
    .string()
    .optional()
    .describe(
      'present when -k named a patch built with a newer Go than its .0 release (1.29.7+): that Go and the source of the patch table',
    ),
});

const preimageRow = z.object({
  ...containerRefShape,
  release: z.string(),
  hashed: z.boolean().describe('true with --hashed: `preimage` is the exact text FNV-1a consumes'),
  preimage: z.string().describe('the text the kubelet hashes (go-spew text or JSON)'),
});

const releaseRow = z.looseObject({
  release: z.string(),
  minor: z.number().int(),
  algorithm: z.enum(['legacy', 'json', 'name-image']).describe('what HashContainer hashes in this release'),
  hashWithoutResources: z.boolean(),
  jsonEscapes: z.string().nullable(),
});

const changedRow = z.looseObject({
  ...containerRefShape,
  release: z.string(),
  changed: z.boolean().describe('whether this kubelet would restart the container'),
  expected: z.string().describe('the hash this kubelet computes for the spec'),
  actual: z.string().describe('the stored hash as the kubelet reads it'),
  role: z.string(),
  rule: z.string(),
  reason: z.string(),
  source: z.string().describe('where the stored hash came from: `--hash`, or the status/record file'),
});

const translateRow = z.object({
  ...containerRefShape,
  from: z.string(),
  to: z.string(),
  verified: z.boolean().describe('true when --observed was checked against the --from hash'),
  hash: z.string().describe('the hash the --to kubelet computes'),
});

const identifyRow = z.object({
  ...containerRefShape,
  hash: z.string().describe('the --hash looked for'),
  matches: z
    .array(z.looseObject({ release: z.string(), key: z.enum(['hash', 'hashWithoutResources']) }))
    .describe('releases (and settings) whose kubelet writes that hash, oldest first'),
});

const explainRow = z.looseObject({
  ...containerRefShape,
  changed: z.boolean(),
  summary: z.string(),
  reasons: z.array(z.looseObject({ kind: z.string() })),
});

const envelope = {
  kubeletHash: z.string().describe('version of kubelet-hash that wrote the document'),
  exitCode: z
    .union([z.literal(0), z.literal(1), z.literal(2)])
    .describe('the exit code of the run (2 with rows: `predict` found an edit refused or not predictable)'),
  warnings: z.array(z.string()).describe('the warnings also printed on stderr'),
};

/** The `--json` document of one command: the common envelope with that command's rows and summary. */
export function documentSchema(command: string, output: { row: z.ZodType; summary: z.ZodType }) {
  return z.object({ command: z.literal(command), ...envelope, rows: z.array(output.row), summary: output.summary });
}

const hashSummary = z.object({ releases: z.array(z.string()).describe('the releases hashed') });

/** Row and summary schemas of the built-in commands. */
export const OUTPUTS = {
  hash: { row: hashRow, summary: hashSummary },
  preimage: { row: preimageRow, summary: z.null() },
  releases: { row: releaseRow, summary: z.null() },
  changed: {
    row: changedRow,
    summary: z.object({ release: z.string(), changed: z.number().int().describe('how many containers would restart') }),
  },
  translate: { row: translateRow, summary: z.object({ from: z.string(), to: z.string() }) },
  identify: {
    row: identifyRow,
    summary: z.object({ identified: z.number().int().describe('containers with at least one match') }),
  },
  explain: { row: explainRow, summary: z.object({ from: z.string(), to: z.string() }) },
} as const;

/** The `--json` error document on stderr (exit code 2). */
export const errorSchema = z.object({
  kubeletHash: z.string(),
  command: z.string().nullable().describe('the command, when one was recognised'),
  exitCode: z.literal(2),
  warnings: z.array(z.string()).describe('the warnings of the run before it failed'),
  error: z.object({
    name: z.string().describe('error class: DecodeError, QuantityError, RecordError, UsageError, IOError, …'),
    code: z.string().describe('stable reason: INVALID_YAML, INVALID_QUANTITY, USAGE, RECORD_MISMATCH, …'),
    message: z.string(),
    path: z
      .string()
      .nullable()
      .describe(
        'jq path of the offending value: in its document, or rooted at what it was given as, as the library names it (.status…, .records, ["--feature-gates"]…)',
      ),
    expected: z.string().nullable(),
    detail: z.string().nullable(),
    file: z.string().nullable(),
    line: z.number().int().nullable(),
    column: z.number().int().nullable(),
  }),
});

/** The document on stderr after a `--ndjson` run that had warnings (its rows have no envelope). */
export const warningsSchema = z.object({
  kubeletHash: z.string(),
  command: z.string(),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  warnings: z.array(z.string()),
});
