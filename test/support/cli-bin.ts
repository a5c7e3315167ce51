/** Runs the built `kubelet-hash` binary (dist/cli/main.js) as a child process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BinResult {
  code: number | null;
  out: string;
  err: string;
}

export function runBin(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...options.env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, out, err });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
