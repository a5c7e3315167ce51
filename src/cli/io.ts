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

/** Reads a file, or standard input for `-` (which can be read only once per run). */
export async function readInput(path: string, io: CliIO): Promise<string> {
  io.texts ??= new Map();
  const seen = io.texts.get(path);
  if (seen !== undefined) {
    if (path === '-') throw new UsageError('standard input (-) can be read only once');
    return seen;
  }
  let text: string;
  if (path !== '-') text = readFileSync(path, 'utf8');
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
