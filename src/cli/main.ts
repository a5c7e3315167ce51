#!/usr/bin/env node
/**
 * The `kubelet-hash` command line. Each command is a small module; this file only wires the process.
 * `--version` is answered before the dispatcher loads (nothing else is needed for it); the
 * dispatcher loads the module of the one command that runs.
 */
import { toolVersion } from './version.js';

// A closed pipe (`kubelet-hash hash … | head`) is a normal end, not a crash.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`kubelet-hash ${toolVersion()}\n`);
} else {
  const { runCli } = await import('./run.js');
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
}
