/**
 * The shape of a CLI command. A command declares its options (with the text `--help` and
 * docs/cli.md show), its operands and a `run` that returns rows; the dispatcher (`run.ts`) parses
 * the arguments, renders the rows as a table, `--json` or `--ndjson`, and turns errors into exit
 * codes. To add a command: write a `CommandDef` and list it in `registry.ts`.
 */
import type { z } from 'zod';
import type { CliIO } from './io.js';

export type Values = Record<string, string | boolean | string[] | undefined>;

/** One option: its type for node:util parseArgs, and what `--help` says about it. */
export interface OptionDef {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown without brackets in the usage line (the command checks it). */
  required?: boolean;
  /** May be given several times (values collect into an array); any other option given twice is a usage error. */
  multiple?: boolean;
  /** Options it belongs with: given without any of them, it is a usage error (`--crio-runroot` without `--crio-root`). */
  goesWith?: readonly string[];
  /** The placeholder shown for a string value: `VERSION`, `FILE`, `HEX`. */
  value?: string;
  description: string;
}

/** An operand (positional argument) as documented. */
interface OperandDef {
  name: string;
  description: string;
  /** `one`: exactly one; `many`: one or more; `optional`: zero or one; `any`: zero or more; `none` if omitted from the list. */
  count: 'one' | 'many' | 'optional' | 'any';
}

/** What a command hands back: rows for `--json`/`--ndjson`, text for people, its exit code. */
export interface CommandResult {
  /**
   * 0 success, 1 a finding (would restart, not identified, plan with will-restart/unknown entries),
   * 2 a verdict that is no answer (`predict`: the edit is refused, or its controller is not modelled).
   */
  exitCode: 0 | 1 | 2;
  /** One JSON object per row (the `rows` of the `--json` document, the lines of `--ndjson`), each command's own row type. */
  rows: readonly object[];
  /** Totals or parameters of the whole run, for `--json`; null when the command has none. */
  summary: Record<string, unknown> | null;
  /**
   * The last line of `--ndjson` (plan, verify): what the rows are of and how many there are, so a
   * reader can tell a cut stream from a whole one (`fleet report` requires it).
   */
  trailer?: Record<string, unknown>;
  /** What people read on stdout (a table, a verdict line, preimage bytes). */
  text: string | Uint8Array;
}

/** Everything a command's `run` gets. */
export interface CommandContext {
  /** The command line as given (without the program name): what audit stamps record. */
  argv?: readonly string[];
  values: Values;
  operands: string[];
  io: CliIO;
  /** Print a warning on stderr (and list it in the `--json` document). */
  warn(message: string): void;
  /** Report progress of a long run (drawn on stderr only when it is a terminal). */
  progress(done: number, total: number, what: string): void;
}

/** A CLI command. */
export interface CommandDef {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** A paragraph or two for `--help` and docs/cli.md. */
  description: string;
  options: Record<string, OptionDef>;
  operands: OperandDef[];
  /** Example command lines, each with a comment. */
  examples: { command: string; comment: string }[];
  /** The schemas of its `--json` rows and summary (output-schema.ts has the built-in ones). */
  output: { row: z.ZodType; summary: z.ZodType };
  /** What exit code 1 means for this command, when it can return 1. */
  finding?: string;
  run(ctx: CommandContext): Promise<CommandResult>;
}

export { UsageError } from './cli-errors.js';
import { UsageError } from './cli-errors.js';

export function str(values: Values, name: string, required: true): string;
export function str(values: Values, name: string, required?: false): string | undefined;
export function str(values: Values, name: string, required = false): string | undefined {
  const v = values[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    if (v.length > 1) throw new UsageError(`--${name} is given ${v.length} times; give it once`);
    if (v[0] !== undefined) return v[0];
  }
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
}

/** Every value of a `multiple` option. */
export function list(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function flag(values: Values, name: string): boolean {
  return values[name] === true;
}

/** The usage line of a command: options in brackets (required ones bare), then operands. */
export function usageLine(cmd: CommandDef): string {
  const opts = Object.entries(cmd.options).map(([name, o]) => {
    const spelled = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return `${o.required ? spelled : `[${spelled}]`}${o.multiple ? '...' : ''}`;
  });
  const ops = cmd.operands.map((o) =>
    o.count === 'one'
      ? o.name
      : o.count === 'many'
        ? `${o.name}...`
        : o.count === 'any'
          ? `[${o.name}...]`
          : `[${o.name}]`,
  );
  return ['kubelet-hash', cmd.name, ...opts, '[--json | --ndjson]', ...ops].join(' ');
}
