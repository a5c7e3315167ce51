/** Input/output plumbing shared by the CLI commands: streams, reading files or stdin once. */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './cli-errors.js';

export interface CliIO {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  /** Environment (NO_COLOR…); defaults to none. */
  env?: Record<string, string | undefined>;
  /** Every input text read in this run, by file name (`-` for stdin), for error excerpts. */
  texts?: Map<string, string>;
}

/** Makes `name` read as `text` for the rest of this run: an input that is no file here (the bundled example). */
export function provideInput(io: CliIO, name: string, text: string): void {
  io.texts ??= new Map();
  io.texts.set(name, text);
}

/** Reads a file, or standard input for `-` (which can be read only once per run). */
export async function readInput(path: string, io: CliIO): Promise<string> {
  io.texts ??= new Map();
  const seen = io.texts.get(path);
  if (seen !== undefined) {
    if (path === '-') throw new UsageError('standard input (-) can be read only once');
    return seen;
  }
  let text: string;
  if (path !== '-') text = withFileName(path, () => readFileSync(path, 'utf8'));
  else {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  // Editors on some systems save a byte-order mark; it is not part of the document.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  io.texts.set(path, text);
  return text;
}

/**
 * Runs file I/O on `path`; an error it throws names the file (Node leaves `path` out of some, such
 * as EISDIR from a read), so the CLI can say which file failed.
 */
export function withFileName<T>(path: string, fn: () => T): T {
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
