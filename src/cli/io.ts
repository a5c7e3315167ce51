/** Input/output plumbing shared by the CLI commands. */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { KubeletHashError, type JsonPathSegment } from '../errors.js';
import { parseJson, type JsonValue } from '../json/parse.js';

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  /** The last input text read, so errors can be shown at their line and column. */
  lastText?: string;
}

/** Reads a file, or standard input for `-`. */
export async function readInput(path: string, io: CliIO): Promise<string> {
  let text: string;
  if (path !== '-') text = readFileSync(path, 'utf8');
  else {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  // Editors on some systems save a byte-order mark; it is not part of the JSON document.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export async function readJsonInput(path: string, io: CliIO): Promise<{ text: string; doc: JsonValue }> {
  const text = await readInput(path, io);
  io.lastText = text;
  return { text, doc: parseJson(text) };
}

/** Runs `fn` for the container found at `prefix` in the input; its errors name paths in the whole document. */
export function atPath<T>(prefix: readonly JsonPathSegment[], fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw e instanceof KubeletHashError && prefix.length > 0 ? e.withPathPrefix(prefix) : e;
  }
}
