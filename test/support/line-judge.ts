/**
 * A long-lived judge process that answers one JSON line per input line (the hash judges of
 * test/support/go): batches are written to its stdin and as many answers read back, so 100,000
 * containers cost one process start. Stopped by its own PID.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { terminateChild } from './child-process.js';

/** One answer: the hash Go computed, or why Go refused the container. */
export interface JudgeAnswer {
  hash?: string;
  error?: string;
}

export class LineJudge {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  private waiting:
    { count: number; lines: string[]; resolve: (a: string[]) => void; reject: (e: Error) => void } | undefined;
  private stderr = '';
  private exited: string | undefined;

  /** `args`: the api-judges take their algorithm as one (test/support/go/api-judge). */
  constructor(
    readonly path: string,
    args: readonly string[] = [],
  ) {
    this.child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      this.drain();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.child.once('exit', (code, signal) => {
      this.exited = `${path} exited with ${code ?? signal}: ${this.stderr}`;
      this.waiting?.reject(new Error(this.exited));
      this.waiting = undefined;
    });
  }

  private drain(): void {
    const w = this.waiting;
    if (!w) return;
    let nl = this.buffered.indexOf('\n');
    let start = 0;
    while (nl >= 0 && w.lines.length < w.count) {
      w.lines.push(this.buffered.slice(start, nl));
      start = nl + 1;
      nl = this.buffered.indexOf('\n', start);
    }
    this.buffered = this.buffered.slice(start);
    if (w.lines.length === w.count) {
      this.waiting = undefined;
      w.resolve(w.lines);
    }
  }

  /** Go's answers for `lines` (JSON texts without newlines), in order (`T`: a judge's own answer shape). */
  async judge<T = JudgeAnswer>(lines: readonly string[]): Promise<T[]> {
    if (this.exited) throw new Error(this.exited);
    const answers = new Promise<string[]>((resolve, reject) => {
      this.waiting = { count: lines.length, lines: [], resolve, reject };
    });
    this.child.stdin.write(`${lines.join('\n')}\n`);
    this.drain();
    return (await answers).map((l) => JSON.parse(l) as T);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await terminateChild(this.child, 5000);
  }
}
