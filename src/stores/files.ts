/** What the stores share about runtime processes: which daemons run, and on which root. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { errnoCode } from '../errors.js';

/** PF_EXITING (linux/sched.h): set on a task as it starts to exit, before it drops its memory and files. */
const PF_EXITING = 0x4;

/**
 * Has every thread of `pid` exited or started to (a zombie left for its parent to reap, or one
 * dying)? Such a process never writes again, yet keeps its comm, and its empty cmdline would read
 * as a daemon whose root cannot be told: a crio killed anywhere on the node, not yet reaped, would
 * refuse every apply. One live thread (a leader that exited before the others) keeps it running.
 */
function exited(pid: number): boolean {
  const gone = (e: unknown): boolean => errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ESRCH';
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch (e) {
    return gone(e);
  }
  return tids.every((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // After the comm (which may hold spaces and parentheses): state, ppid, pgrp, session, tty, tpgid, flags.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = fields[0];
      return state === 'Z' || state === 'X' || (Number(fields[6]) & PF_EXITING) !== 0;
    } catch (e) {
      return gone(e);
    }
  });
}

/** Pids of running processes (not exited: see {@link exited}) whose command name (`/proc/PID/comm`) is one of `names`. */
function runningProcesses(names: readonly string[]): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const pid of pids) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (names.includes(comm) && !exited(Number(pid))) out.push(Number(pid));
    } catch {
      // The process exited while we looked.
    }
  }
  return out;
}

/** A process's arguments (`/proc/PID/cmdline`), or `undefined` when it cannot be read. */
function argsOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '')
      .slice(1);
  } catch {
    return undefined;
  }
}

/** The value of `--flag VALUE` or `--flag=VALUE` among `args`. */
export function flagValue(args: readonly string[], flags: readonly string[]): string | undefined {
  for (const [i, a] of args.entries()) {
    for (const f of flags) {
      if (a === f) return args[i + 1];
      if (a.startsWith(`${f}=`)) return a.slice(f.length + 1);
    }
  }
  return undefined;
}

/** A directory's identity: device and inode (a symlink, bind mount or `--fs-root` prefix names the same one). */
function identityOf(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * `path` as process `pid` names it, seen from here: through `/proc/PID/root` (its root directory,
 * whatever its mount namespace or chroot), relative paths from its working directory.
 */
export function theirPath(pid: number, path: string): string {
  return path.startsWith('/') ? `/proc/${pid}/root${path}` : `/proc/${pid}/cwd/${path}`;
}

/**
 * Is the directory process `pid` names `theirs` the directory `root`? Decided by device and inode:
 * as the process sees it (`/proc/PID/root`), else as this process sees that path; when neither can
 * be read, a `root` that ends with `theirs` (a node mounted at `--fs-root`) counts as the same.
 */
function sameDirectory(pid: number, theirs: string, root: string, rootId: string | undefined): boolean {
  if (rootId !== undefined) {
    const seen = identityOf(theirPath(pid, theirs)) ?? identityOf(resolve(theirs));
    if (seen !== undefined) return seen === rootId;
  }
  const want = resolve(root);
  const their = resolve(theirs);
  return want === their || want.endsWith(their);
}

/**
 * Pids of running `comm` daemons that may be using the store at `root`: those whose root (from
 * their arguments via `rootOf`) is the same directory as `root` (device and inode, so a symlink or
 * a pod's `/host` prefix does not hide it), and those whose root cannot be told (counted in, to be safe).
 */
export function daemonsUsing(
  comm: string,
  root: string,
  rootOf: (args: string[], pid: number) => string | undefined,
): number[] {
  const rootId = identityOf(root);
  return runningProcesses([comm]).filter((pid) => {
    const args = argsOf(pid);
    // Read after the exit check: a process that exits in between leaves no (or an empty) cmdline.
    if ((args === undefined || args.length === 0) && exited(pid)) return false;
    const theirs = args ? rootOf(args, pid) : undefined;
    return theirs === undefined || sameDirectory(pid, theirs, root, rootId);
  });
}
