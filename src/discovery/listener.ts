/**
 * Which process listens on a unix socket, from /proc alone (no ss/lsof on minimal node images):
 * the socket's inode from /proc/net/unix, then the process whose fd links to `socket:[inode]`,
 * then that process's command line, whose --config/--root flags override any layout's defaults.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface Listener {
  pid: number;
  /** argv of the process (NUL-separated /proc/PID/cmdline). */
  argv: string[];
}

function socketInode(proc: string, socket: string): string | undefined {
  let table: string;
  try {
    table = readFileSync(join(proc, 'net', 'unix'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; St 01 is a listening (unconnected) socket.
    if (f.length >= 8 && f[7] === socket && f[5] === '01') return f[6];
  }
  return undefined;
}

/** The process listening on `socket`, when /proc shows it (root sees every process). */
export function listenerOf(socket: string, proc = '/proc'): Listener | undefined {
  const inode = socketInode(proc, socket);
  if (inode === undefined) return undefined;
  const want = `socket:[${inode}]`;
  for (const pid of readdirSync(proc).filter((p) => /^\d+$/.test(p))) {
    let fds: string[];
    try {
      fds = readdirSync(join(proc, pid, 'fd'));
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(join(proc, pid, 'fd', fd));
      } catch {
        continue;
      }
      if (target === want) {
        const argv = readFileSync(join(proc, pid, 'cmdline'), 'utf8')
          .split('\0')
          .filter((a) => a !== '');
        return { pid: Number(pid), argv };
      }
    }
  }
  return undefined;
}

/** `--name VALUE`, `--name=VALUE` or a short `-c VALUE` in argv. */
export function flagOf(argv: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const n of names) {
      if (a === n && i + 1 < argv.length) return argv[i + 1];
      if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}
