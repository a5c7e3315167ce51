#!/usr/bin/env node
/** The `kubelet-hash` command line. Each command is a small module; this file only wires the process. */
import { runCli } from './run.js';

// A closed pipe (`kubelet-hash hash … | head`) is a normal end, not a crash.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
