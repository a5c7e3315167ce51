/**
 * The bbolt file lock. bbolt (and so containerd) holds `flock(LOCK_EX)` on its file while it has
 * it open, and a second opener blocks. Node (24 included) has no flock(2), and the npm packages that
 * bind it (fs-ext) need a native build; so a child process takes the lock for us: the node helper
 * (node-helper.ts: our static Go binary, embedded in the single executable, run by absolute path,
 * so an empty PATH works) as `node-helper flock FILE`, or where there is none util-linux's
 * `flock -n -x -E 75 FILE sh -c 'echo locked; exec cat'`. Either exits 75 at once when someone
 * else holds the lock; otherwise it prints `locked` and holds the lock until we close its stdin (or
 * we die, which closes the pipe too), so a runtime started during our write waits for us.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { StoreError } from '../errors.js';
import { nodeHelper } from './node-helper.js';

/** flock(1)'s exit code when the lock is held elsewhere (chosen with -E). */
const CONFLICT_EXIT = 75;

/** A held lock; {@link FileLock.release} lets it go. */
export interface FileLock {
  /** Releases the lock and waits for the holder process to exit. */
  release(): Promise<void>;
  /**
   * Whether our holder still holds the lock, as the kernel says now (`/proc/locks`): false once the
   * holder was killed, even before Node has seen it exit. Synchronous, so a commit can ask it last.
   */
  held(): boolean;
}

/**
 * Is there an exclusive flock on the file of inode `ino` taken by `pid` in `/proc/locks`? (Lines
 * read `N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF`; a waiting request has `->` before FLOCK.)
 */
function holdsFlock(pid: number, ino: number, locks = readFileSync('/proc/locks', 'utf8')): boolean {
  return locks.split('\n').some((line) => {
    const f = line.trim().split(/\s+/);
    return f[1] === 'FLOCK' && f[3] === 'WRITE' && f[4] === String(pid) && f[5]?.split(':')[2] === String(ino);
  });
}

/**
 * Takes the exclusive flock on `path` without waiting. Refuses with `STORE_LOCKED` when another
 * process (a running containerd) holds it, and with `STORE_IO` when flock(1) cannot run.
 */
export function lockFile(path: string): Promise<FileLock> {
  return new Promise((resolve, reject) => {
    const helper = nodeHelper();
    const [command, ...args] = helper
      ? [helper, 'flock', path]
      : ['flock', '-n', '-x', '-E', String(CONFLICT_EXIT), path, 'sh', '-c', 'echo locked; exec cat'];
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let settled = false;
    const exited = new Promise<void>((done) =>
      child.once('close', () => {
        done();
      }),
    );
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!settled && out.includes('locked')) {
        settled = true;
        const ino = statSync(path).ino;
        resolve({
          release: async () => {
            child.stdin.end();
            await exited;
          },
          held: () => child.pid !== undefined && holdsFlock(child.pid, ino),
        });
      }
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(
        new StoreError(
          'STORE_IO',
          [],
          helper
            ? `the node helper ${helper}, to take the file lock`
            : 'util-linux flock(1) on the PATH (or the node helper), to take the file lock',
          e.code ?? String(e),
          path,
        ),
      );
    });
    child.once('close', (code) => {
      if (settled) return;
      settled = true;
      if (code === CONFLICT_EXIT) {
        reject(
          new StoreError(
            'STORE_LOCKED',
            [],
            `no process holding the lock on ${path}`,
            'another process holds it: stop the runtime first',
            path,
          ),
        );
      } else
        reject(
          new StoreError(
            'STORE_IO',
            [],
            `to lock ${path}`,
            `${helper ? 'the node helper' : 'flock'} exited ${code}: ${err.trim()}`,
            path,
          ),
        );
    });
  });
}
