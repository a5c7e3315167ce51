/**
 * Command dispatch: parses arguments against a command's definition, runs it, renders its rows
 * (table, `--json`, `--ndjson`) and maps every failure to exit code 2. Output is written only
 * once the command has finished, so an error never leaves a partial result on stdout.
 */
import { parseArgs } from 'node:util';
import { KubeletHashError, formatJsonPath } from '../errors.js';
import {
  UsageError,
  usageLine,
  type CommandContext,
  type CommandDef,
  type CommandResult,
  type OptionDef,
  type Values,
} from './command.js';
import { GLOBAL_OPTIONS, commandHelp, programHelp } from './help.js';
import { LocatedError } from './located-error.js';
import { maxInputBytes, type CliIO } from './io.js';
import { COMMAND_INDEX } from './command-index.js';
import { didYouMean } from '../suggest.js';
import { toolVersion } from './version.js';

const bigintSafe = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

/** Runs one command line; resolves to the exit code (0, 1 or 2). */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(programHelp(COMMAND_INDEX));
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const entry = topic === undefined ? undefined : COMMAND_INDEX.find((c) => c.name === topic);
    if (topic !== undefined && !entry) return fail(io, null, false, unknownCommand(topic), []);
    io.stdout.write(entry ? commandHelp(await entry.load()) : programHelp(COMMAND_INDEX));
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`kubelet-hash ${toolVersion()}\n`);
    return 0;
  }
  const entry = COMMAND_INDEX.find((c) => c.name === name);
  const wantsJson = rest.includes('--json') || rest.includes('--ndjson');
  if (!entry) return fail(io, null, wantsJson, unknownCommand(name), []);
  // Only the module of the command that runs is loaded.
  const cmd = await entry.load();
  const end = rest.indexOf('--');
  const flags = end === -1 ? rest : rest.slice(0, end);
  if (flags.includes('--help') || flags.includes('-h')) {
    io.stdout.write(commandHelp(cmd));
    return 0;
  }
  const warnings: string[] = [];
  const progress = progressReporter(io);
  try {
    const options = { ...cmd.options, ...GLOBAL_OPTIONS };
    checkFlags(cmd, flags, options);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    } catch (e) {
      throw argsError(e, options);
    }
    const values = parsed.values as Values;
    if (values['json'] && values['ndjson']) throw new UsageError('give --json or --ndjson, not both');
    checkCompanions(options, values);
    io.maxInputBytes = maxInputBytes(values);
    checkOperands(cmd, parsed.positionals);
    const ctx: CommandContext = {
      argv,
      values,
      operands: parsed.positionals,
      io,
      warn: (message) => {
        warnings.push(message);
        // With --json/--ndjson stderr holds one JSON document: the warnings go into it.
        if (wantsJson) return;
        progress.clear();
        io.stderr.write(`kubelet-hash: warning: ${message}\n`);
      },
      progress: progress.report,
    };
    const result = await cmd.run(ctx);
    progress.clear();
    io.stdout.write(render(cmd, values, result, warnings));
    // --ndjson rows have no envelope: its warnings go to stderr as the one JSON document there.
    if (values['ndjson'] && warnings.length > 0) {
      const doc = { kubeletHash: toolVersion(), command: cmd.name, exitCode: result.exitCode, warnings };
      io.stderr.write(JSON.stringify(doc, null, 2) + '\n');
    }
    return result.exitCode;
  } catch (e) {
    progress.clear();
    return fail(io, cmd, wantsJson, e, warnings);
  }
}

function unknownCommand(name: string): UsageError {
  const names = COMMAND_INDEX.map((c) => c.name);
  return new UsageError(
    `unknown command ${JSON.stringify(name)}${didYouMean(name, names)} (commands: ${names.join(', ')}; see kubelet-hash --help)`,
  );
}

/**
 * Refuses an option the command does not have, naming the closest one, and a single-value option
 * given twice (parseArgs would keep the last one silently).
 */
function checkFlags(cmd: CommandDef, flags: string[], options: Record<string, OptionDef>): void {
  const longs = Object.keys(options);
  const byShort = new Map(
    Object.entries(options).flatMap(([name, o]) => (o.short !== undefined ? [[o.short, name] as const] : [])),
  );
  const seen = new Set<string>();
  const once = (name: string, spelled: string): void => {
    const o = options[name];
    if (o === undefined || o.multiple === true || o.type !== 'string') return;
    if (seen.has(name))
      throw new UsageError(`${spelled} is given more than once; give it once (it takes one ${o.value ?? 'VALUE'})`);
    seen.add(name);
  };
  for (let i = 0; i < flags.length; i++) {
    const token = flags[i] ?? '';
    if (token === '-' || !token.startsWith('-')) continue;
    if (token.startsWith('--')) {
      const name = token.slice(2).split('=')[0] ?? '';
      // The next token is this option's value.
      if (options[name]?.type === 'string' && !token.includes('=')) i++;
      if (!longs.includes(name))
        throw new UsageError(`kubelet-hash ${cmd.name} has no option --${name}${didYouMean(name, longs, '--')}`);
      once(name, `--${name}`);
    } else if (/^-[A-Za-z]/.test(token)) {
      const name = byShort.get(token[1] ?? '');
      if (name === undefined) throw new UsageError(`kubelet-hash ${cmd.name} has no option ${token.slice(0, 2)}`);
      if (options[name]?.type === 'string' && token.length === 2) i++;
      once(name, `-${token[1] ?? ''}/--${name}`);
    }
  }
}

/**
 * Refuses an empty option value (`--node ''`: no name, file or version is empty, and an empty
 * selector or command would mean something else than the user wrote), and an option given without
 * any of the options it belongs with (`goesWith`).
 */
function checkCompanions(options: Record<string, OptionDef>, values: Values): void {
  for (const [name, o] of Object.entries(options)) {
    const given = values[name];
    if (given === '' || (Array.isArray(given) && given.includes('')))
      throw new UsageError(`--${name} expects ${o.value ?? 'a value'}, got an empty one`);
    if (o.goesWith === undefined || values[name] === undefined) continue;
    if (o.goesWith.some((other) => values[other] !== undefined)) continue;
    throw new UsageError(`--${name} goes with ${o.goesWith.map((other) => `--${other}`).join(' or ')}`);
  }
}

/** node:util's parseArgs errors, said in our words. */
function argsError(e: unknown, options: Record<string, { type: string; value?: string }>): unknown {
  if (!(e instanceof TypeError) || !('code' in e) || !String(e.code).startsWith('ERR_PARSE_ARGS')) return e;
  const m = /'(-[^' ]+)/.exec(e.message);
  const given = m?.[1]?.replace(/^-+/, '').split('=')[0] ?? '';
  const entry =
    given in options
      ? ([given, options[given]] as const)
      : Object.entries(options).find(([, o]) => 'short' in o && o.short === given);
  const flagName = entry?.[0] ?? given;
  const opt = entry?.[1];
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && opt) {
    return new UsageError(
      opt.type === 'string'
        ? `--${flagName} expects a value (${opt.value ?? 'VALUE'}), got none`
        : `--${flagName} is a switch and takes no value`,
    );
  }
  return new UsageError(`cannot read the command line: ${e.message.replace(/\. To specify.*$/s, '')}`);
}

function checkOperands(cmd: CommandDef, operands: string[]): void {
  const min = cmd.operands.filter((o) => o.count === 'one' || o.count === 'many').length;
  const max = cmd.operands.some((o) => o.count === 'many' || o.count === 'any') ? Infinity : cmd.operands.length;
  if (operands.length < min || operands.length > max) {
    const want = cmd.operands.length === 0 ? 'no operands' : cmd.operands.map((o) => o.name).join(' ');
    throw new UsageError(
      `expected ${want}, got ${operands.length === 0 ? 'none' : operands.map((o) => JSON.stringify(o)).join(' ')}`,
    );
  }
}

function render(cmd: CommandDef, values: Values, result: CommandResult, warnings: string[]): string | Uint8Array {
  if (values['ndjson'])
    return [...result.rows, ...(result.trailer ? [result.trailer] : [])]
      .map((r) => JSON.stringify(r, bigintSafe) + '\n')
      .join('');
  if (values['json']) {
    const doc = {
      kubeletHash: toolVersion(),
      command: cmd.name,
      exitCode: result.exitCode,
      warnings,
      rows: result.rows,
      summary: result.summary,
    };
    return JSON.stringify(doc, bigintSafe, 2) + '\n';
  }
  return result.text;
}

interface ErrorFields {
  name: string;
  code: string;
  message: string;
  path: string | null;
  expected: string | null;
  detail: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
}

function describe(e: unknown): ErrorFields {
  const base = { path: null, expected: null, detail: null, file: null, line: null, column: null };
  const inner = e instanceof LocatedError ? e.error : e;
  const where =
    e instanceof LocatedError
      ? { file: e.file, line: e.position?.line ?? null, column: e.position?.column ?? null }
      : {};
  if (inner instanceof KubeletHashError) {
    return {
      name: inner.name,
      code: inner.code,
      message: inner.message,
      ...base,
      ...where,
      path: formatJsonPath(inner.path),
      expected: inner.expected,
      detail: inner.detail ?? null,
    };
  }
  if (inner instanceof UsageError) return { name: inner.name, code: inner.code, message: inner.message, ...base };
  if (inner instanceof TypeError && 'code' in inner && String(inner.code).startsWith('ERR_PARSE_ARGS')) {
    return { name: 'UsageError', code: 'USAGE', message: inner.message, ...base };
  }
  if (inner instanceof Error && 'code' in inner && typeof inner.code === 'string' && 'syscall' in inner) {
    const path = 'path' in inner && typeof inner.path === 'string' ? inner.path : null;
    return { name: 'IOError', code: inner.code, message: inner.message, ...base, file: path };
  }
  // A bug, not the user's input; still exit 2 so that it is never read as a finding (exit 1).
  return {
    name: 'InternalError',
    code: 'INTERNAL',
    message: inner instanceof Error ? (inner.stack ?? inner.message) : String(inner),
    ...base,
  };
}

function fail(io: CliIO, cmd: CommandDef | null, json: boolean, e: unknown, warnings: string[]): 2 {
  const f = describe(e);
  if (json) {
    const doc = { kubeletHash: toolVersion(), command: cmd?.name ?? null, exitCode: 2, warnings, error: f };
    io.stderr.write(JSON.stringify(doc, null, 2) + '\n');
    return 2;
  }
  const prefix = `kubelet-hash${cmd ? ` ${cmd.name}` : ''}: `;
  const at =
    f.file !== null && f.line !== null ? `${f.file}:${f.line}:${f.column}: ` : f.file !== null ? `${f.file}: ` : '';
  let out = `${prefix}error: ${at}${f.message}\n`;
  const text = f.file !== null && f.line !== null ? io.texts?.get(f.file) : undefined;
  if (text !== undefined && f.line !== null && f.column !== null) out += excerpt(text, f.line, f.column);
  if (f.code === 'USAGE')
    out += cmd ? `usage: ${usageLine(cmd)}\n  (kubelet-hash ${cmd.name} --help for details)\n` : '';
  io.stderr.write(out);
  return 2;
}

/** The source line with a caret under the column. */
function excerpt(text: string, line: number, column: number): string {
  const source = text.split('\n')[line - 1];
  if (source === undefined) return '';
  const from = Math.max(0, column - 1 - 60);
  const shown = source.slice(from, from + 120).replace(/\r$/, '');
  const gutter = String(line).length;
  return `  ${line} | ${shown}\n  ${' '.repeat(gutter)} | ${' '.repeat(column - 1 - from)}^\n`;
}

/** Progress on stderr, only when it is a terminal and the run takes more than half a second. */
function progressReporter(io: CliIO): {
  report: (done: number, total: number, what: string) => void;
  clear: () => void;
} {
  const tty = io.stderr.isTTY === true;
  const started = Date.now();
  let last = 0;
  let drawn = false;
  return {
    report(done, total, what) {
      if (!tty) return;
      const now = Date.now();
      if (now - started < 500 || (now - last < 100 && done < total)) return;
      last = now;
      drawn = true;
      io.stderr.write(`\r\x1b[Kkubelet-hash: ${what} ${done}/${total}`);
    },
    clear() {
      if (drawn) io.stderr.write('\r\x1b[K');
      drawn = false;
    },
  };
}
