/** Runs the CLI in-process with captured output. */
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli/run.js';

export async function cli(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const code = await runCli(args, { stdout, stderr, stdin: Readable.from([Buffer.from(stdin)]) });
  return { code, out, err };
}
