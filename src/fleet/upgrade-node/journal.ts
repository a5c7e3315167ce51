/**
 * The upgrade's journal on the node: one JSON line per step begun, done or failed, appended to a
 * file under the host's /var/lib/kubelet-hash. A retried Job reads it to continue or stop, so no
 * step that changes the node (stopping units, apply, swap, rollback) is ever run twice. The file
 * is created exclusively (O_EXCL: never someone else's file), never through a symlink (O_NOFOLLOW),
 * mode 0600, and reopened only when it is still a regular file of this uid with that mode.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { OptionError } from '../../errors.js';

/** One line of the journal. */
export interface JournalEntry {
  step: string;
  event: 'begin' | 'done' | 'failed' | 'outcome';
  /** What happened (a failure's message, an outcome's reason). */
  detail?: string;
  at: string;
}

/** Where the journal is kept, and how it is written (in tests: a temp dir, a fixed clock). */
export interface Journal {
  read(): JournalEntry[];
  append(entry: Omit<JournalEntry, 'at'>): void;
}

function checkOurs(fd: number, path: string): void {
  const st = fstatSync(fd);
  const uid = process.getuid?.() ?? st.uid;
  if (!st.isFile() || st.uid !== uid || (st.mode & 0o777) !== 0o600)
    throw new OptionError(
      'INVALID_OPTION',
      [path],
      'the upgrade journal: a regular file of this user, mode 0600',
      `found ${st.isFile() ? 'a file' : 'no regular file'} of uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)}: refusing to trust it`,
    );
}

/** The journal at `path` (created on first append). */
export function fileJournal(path: string, now: () => Date = () => new Date()): Journal {
  return {
    read(): JournalEntry[] {
      let fd: number;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new OptionError('INVALID_OPTION', [path], 'the upgrade journal, a regular file', (e as Error).message);
      }
      try {
        checkOurs(fd, path);
        const text = readFileSync(fd, 'utf8');
        return text
          .split('\n')
          .filter((l) => l !== '')
          .map((l, i) => {
            try {
              return JSON.parse(l) as JournalEntry;
            } catch {
              throw new OptionError(
                'INVALID_OPTION',
                [path, i + 1],
                'one JSON journal entry per line',
                `line ${i + 1} is not JSON (cut by a crash?)`,
              );
            }
          });
      } finally {
        closeSync(fd);
      }
    },
    append(entry): void {
      const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;
      let fd: number;
      try {
        fd = openSync(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        fd = openSync(path, flags);
        checkOurs(fd, path);
      }
      try {
        writeSync(fd, `${JSON.stringify({ ...entry, at: now().toISOString() })}\n`);
      } finally {
        closeSync(fd);
      }
    },
  };
}
