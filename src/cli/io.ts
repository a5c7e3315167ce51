/** Input/output plumbing shared by the CLI commands. */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseJson, type JsonValue } from '../json/parse.js';

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
}

/** Reads a file, or standard input for `-`. */
export async function readInput(path: string, io: CliIO): Promise<string> {
  if (path !== '-') return readFileSync(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJsonInput(path: string, io: CliIO): Promise<{ text: string; doc: JsonValue }> {
  const text = await readInput(path, io);
  return { text, doc: parseJson(text) };
}
