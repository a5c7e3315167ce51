/**
 * The built CLI (dist/, which vitest's globalSetup builds) run inside a network namespace, as on a
 * node beside its kubelet: the commands that talk to a test cluster's apiserver (`hold-audit`), which
 * listens only inside the cluster's namespace. It runs from a private copy of dist/ made at
 * collection, under node_modules so the bundle still resolves its dependencies, so that another run's
 * globalSetup rebuilding dist/ cannot remove it while the cluster runs.
 */
import { spawn } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inNetns } from './child-process.js';

const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

export interface NetnsCliResult {
  code: number | null;
  out: string;
  err: string;
}

export class NetnsCli {
  private readonly copy: string;

  /** Copies dist/ now (call at collection, right after globalSetup built it); `name` keeps copies apart. */
  constructor(name: string) {
    this.copy = fileURLToPath(new URL(`../../node_modules/.cache/kh-${name}-${String(process.pid)}`, import.meta.url));
    cpSync(DIST, this.copy, { recursive: true });
  }

  /** `kubelet-hash ARGS` in the namespace `netns` (its path). */
  run(netns: string, args: readonly string[]): Promise<NetnsCliResult> {
    const [cmd, full] = inNetns(netns, process.execPath, [join(this.copy, 'cli', 'main.js'), ...args]);
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, full, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, err }));
    });
  }

  remove(): void {
    rmSync(this.copy, { recursive: true, force: true });
  }
}
