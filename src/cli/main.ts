#!/usr/bin/env node
/** The `kubelet-hash` command line. Each command is a small module; this file only dispatches. */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
