/**
 * Input/output plumbing shared by the CLI commands: streams, reading files or stdin once, and
 * the one size limit of every input (`--max-input-size`).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { formatByteSize } from '../byte-size.js';
import { UsageError } from './cli-errors.js';

export interface CliIO {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  /** Environment (NO_COLOR…); defaults to none. */
  env?: Record<string, string | undefined>;
  /** Every input text read in this run, by file name (`-` for stdin), for error excerpts. */
  texts?: Map<string, string>;
  /** The most bytes any one input may have (`--max-input-size`; default {@link DEFAULT_MAX_INPUT}). */
  maxInputBytes?: number;
}

const MiB = 1024 * 1024;
/** The input limit unless `--max-input-size` says otherwise: a PodList of ~100,000 served pods. */
export const DEFAULT_MAX_INPUT = 256 * MiB;
/** The most it can be raised to: JavaScript holds no longer string (V8's limit is 2^29 − 24 characters). */
const MOST_INPUT = 512 * MiB - 64;

const UNITS: Record<string, number> = { '': 1, k: 1024, m: MiB, g: 1024 * MiB };

/** `--max-input-size`: bytes, or with K, M or G (KiB, MiB, GiB); default {@link DEFAULT_MAX_INPUT}. */
export function maxInputBytes(values: Record<string, unknown>): number {
  const given = values['max-input-size'];
  if (typeof given !== 'string') return DEFAULT_MAX_INPUT;
  const m = /^([0-9]+)\s*([kmg]?)(?:i?b)?$/i.exec(given.trim());
  const bytes = m ? Number(m[1]) * (UNITS[(m[2] ?? '').toLowerCase()] ?? 1) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new UsageError(
      `--max-input-size: a size such as 300M or 1048576 (bytes; K, M, G are KiB, MiB, GiB), got ${JSON.stringify(given)}`,
    );
  if (bytes > MOST_INPUT)
    throw new UsageError(`--max-input-size: at most 511M (the longest text JavaScript holds), got ${given}`);
  return bytes;
}

/** The error of an input over the limit: an I/O error (EFBIG) that names the file and the option. */
function tooLarge(path: string, limit: number): Error {
  const name = path === '-' ? 'standard input' : path;
  return Object.assign(
    new Error(
      `EFBIG: ${name} is larger than ${formatByteSize(limit)}, the limit of one input (--max-input-size SIZE raises it)`,
    ),
    { code: 'EFBIG', syscall: 'read', path },
  );
}

/**
 * A file's text, at most `limit` bytes: a bigger regular file is refused by its size before it is
 * read, anything else (a device, a pipe, /dev/zero) after `limit` bytes, so memory stays bounded.
 */
function readFileLimited(path: string, limit: number): string {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > limit) throw tooLarge(path, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(limit + 1 - total, 1 << 20));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw tooLarge(path, limit);
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Standard input, at most `limit` bytes (reading stops there). */
async function readStdinLimited(stdin: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += b.length;
    if (total > limit) throw tooLarge('-', limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Reads a file that is no manifest operand (a plan, a kubelet config) under the same limit: the
 * synchronous form of {@link readInput}, without its once-per-run memory.
 */
export function readInputFile(path: string, io: CliIO): string {
  return withFileName(path, () => readFileLimited(path, io.maxInputBytes ?? DEFAULT_MAX_INPUT));
}

/** Makes `name` read as `text` for the rest of this run: an input that is no file here (the bundled example). */
export function provideInput(io: CliIO, name: string, text: string): void {
  io.texts ??= new Map();
  io.texts.set(name, text);
}

/** Reads a file, or standard input for `-` (which can be read only once per run), at most `--max-input-size` bytes. */
export async function readInput(path: string, io: CliIO): Promise<string> {
  io.texts ??= new Map();
  const seen = io.texts.get(path);
  if (seen !== undefined) {
    if (path === '-') throw new UsageError('standard input (-) can be read only once');
    return seen;
  }
  const limit = io.maxInputBytes ?? DEFAULT_MAX_INPUT;
  let text =
    path !== '-' ? withFileName(path, () => readFileLimited(path, limit)) : await readStdinLimited(io.stdin, limit);
  // Editors on some systems save a byte-order mark; it is not part of the document.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  io.texts.set(path, text);
  return text;
}

/**
 * Runs file I/O on `path`; an error it throws names the file (Node leaves `path` out of some, such
 * as EISDIR from a read), so the CLI can say which file failed.
 */
function withFileName<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Error && 'code' in e && typeof e.code === 'string') {
      const named = e as Error & { path?: unknown; syscall?: unknown };
      if (typeof named.path !== 'string') named.path = path;
      if (typeof named.syscall !== 'string') named.syscall = 'open';
      if (!named.message.includes(path)) named.message = `${named.message} (${path})`;
    }
    throw e;
  }
}
