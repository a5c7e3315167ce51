/**
 * What the CRI-O and docker stores share: records that are JSON files, re-read and checked against
 * their planned fingerprints, all new texts computed before anything is written, backups, then one
 * atomic replace (temp file, fsync, rename, fsync of the directory) per file.
 */
import { readFileSync } from 'node:fs';
import { errnoCode, KubeletHashError, StoreError } from '../errors.js';
import { checkHashChange } from '../runtime-records/index.js';
import { fingerprinter } from './fingerprint.js';
import { checkRestored, planRestore, type CurrentRecord } from './restore-check.js';
import { afterApply } from './store-state.js';
import { appliedState, reversedChange } from './applied-state.js';
import { writeStopped } from './stopped-write.js';
import type {
  ApplyOptions,
  ApplyReport,
  RecordBackup,
  RestoreOptions,
  RestoreReport,
  StoreRewrite,
  StoredContainer,
} from './types.js';
import { checkWritable } from './writable.js';
import type { HashChange } from '../runtime-records/index.js';

/** One record's files and how to rewrite one file's text. */
export interface FileRecord {
  /** The files of the record, in fingerprint order (CRI-O: graphroot copy, then runroot copy). */
  files: string[];
  /** The text with the hash rewritten (throws a KubeletHashError when the stored hash is not `change.from`). */
  rewrite: (text: string, change: HashChange, file: string) => string;
}

/** xxHash64 of the files' bytes, concatenated in order. */
export async function fingerprintFiles(files: readonly string[]): Promise<{ fingerprint: string; texts: Buffer[] }> {
  const fp = await fingerprinter();
  const texts = files.map((f) => readFileSync(f));
  return { fingerprint: fp(Buffer.concat(texts)), texts };
}

/** Is the record of `r` the planned record with `r` applied? (Undoing the rewrite gives the planned fingerprint.) */
function rewrittenAsPlanned(r: StoreRewrite, rec: FileRecord | undefined, fp: (b: Uint8Array) => string): boolean {
  if (!rec) return false;
  try {
    const back = rec.files.map((file) =>
      Buffer.from(rec.rewrite(readFileSync(file, 'utf8'), reversedChange(r.change), file), 'utf8'),
    );
    return fp(Buffer.concat(back)) === r.fingerprint;
  } catch (e) {
    if (e instanceof KubeletHashError || errnoCode(e) !== undefined) return false;
    throw e;
  }
}

/**
 * Applies rewrites to file records; `find` maps a container id to its record (or undefined), `list`
 * reads every record (compared with `options.planned`), `where` names the store in messages,
 * `checkStopped` refuses while the runtime runs (asked before, during and after the writes).
 */
export async function applyFileRewrites(
  rewrites: readonly StoreRewrite[],
  find: (containerId: string) => FileRecord | undefined,
  options: ApplyOptions,
  list: () => Promise<StoredContainer[]>,
  where: string,
  checkStopped: (when: string) => void,
): Promise<ApplyReport> {
  for (const r of rewrites) checkHashChange(r.change);
  const fp = await fingerprinter();
  if (options.planned) {
    const state = appliedState(
      options.planned,
      await list(),
      rewrites,
      (r) => rewrittenAsPlanned(r, find(r.containerId), fp),
      where,
    );
    if (state === 'applied') return { changed: [], dryRun: options.dryRun === true, alreadyApplied: true };
  }
  options.checkView?.();
  const newPrints = new Map<string, string>();
  const writes: { file: string; data: Buffer }[] = [];
  const changed: ApplyReport['changed'] = [];
  // Each file as read and checked against its planned fingerprint: what an undo puts back.
  const originals = new Map<string, Buffer>();
  const backups: RecordBackup[] = [];
  const names = new Map((options.planned ?? []).map((p) => [p.containerId, p.name]));
  for (const r of rewrites) {
    const rec = find(r.containerId);
    if (!rec)
      throw new StoreError('STORE_CHANGED', [], `the record of container ${r.containerId}`, 'it is gone', where);
    const { fingerprint, texts } = await fingerprintFiles(rec.files);
    if (fingerprint !== r.fingerprint) {
      throw new StoreError(
        'STORE_CHANGED',
        [],
        `record ${r.containerId} with fingerprint ${r.fingerprint}, as planned`,
        `it now has ${fingerprint}`,
        rec.files.join(' + '),
      );
    }
    const outs: Buffer[] = [];
    texts.forEach((bytes, i) => {
      const file = rec.files[i] ?? '';
      const text = bytes.toString('utf8');
      let out: string;
      try {
        out = rec.rewrite(text, r.change, file);
      } catch (e) {
        if (e instanceof KubeletHashError)
          throw new StoreError('STORE_CHANGED', [], `container ${r.containerId} as planned (${file})`, e.message, file);
        throw e;
      }
      const data = Buffer.from(out, 'utf8');
      originals.set(file, bytes);
      outs.push(data);
      writes.push({ file, data });
    });
    newPrints.set(r.containerId, fp(Buffer.concat(outs)));
    const name = names.get(r.containerId);
    backups.push({
      containerId: r.containerId,
      ...(name !== undefined ? { name } : {}),
      location: rec.files.join(' + '),
      fingerprint,
      after: fp(Buffer.concat(outs)),
      values: texts,
      afterParts: outs.map((o) => fp(o)),
    });
    changed.push({
      containerId: r.containerId,
      location: rec.files.join(' + '),
      from: r.change.from.hash,
      to: r.change.to.hash,
    });
  }
  // Every file written and the backup directory must be writable before the first backup is made.
  checkWritable({
    replaced: writes.map((w) => w.file),
    ...(options.backupDir !== undefined ? { backupDir: options.backupDir } : {}),
  });
  const after = options.planned ? afterApply(options.planned, newPrints) : undefined;
  if (options.dryRun) return { changed, dryRun: true, ...(after ? { after } : {}) };
  options.beforeWrite?.(backups, after ?? []);
  // A symlinked record file is written through to its target, never replaced by a regular file;
  // the runtime is checked before, during and after the writes.
  writeStopped(writes, originals, checkStopped, options.hooks?.trace);
  return { changed, dryRun: false, ...(after ? { after } : {}) };
}

/**
 * Puts file records back: each record found by its container id in the store (`find`; never a path
 * from the backup), its files rewritten one by one (atomic replace, written through a symlink,
 * mode without set-id bits and owner as the file has them now) while `checkStopped` finds the
 * runtime stopped (seen running: refused, the files put back as apply left them), then every record read back.
 */
export async function restoreFileRecords(
  records: readonly RecordBackup[],
  find: (containerId: string) => string[] | undefined,
  options: RestoreOptions,
  where: string,
  checkStopped: (when: string) => void,
): Promise<RestoreReport> {
  const fp = await fingerprinter();
  // A record whose files are each as they were or as apply left them (a crash between CRI-O's two
  // copies) counts as apply left it: putting it back loses nothing.
  const current = async (): Promise<Map<string, CurrentRecord>> => {
    const out = new Map<string, CurrentRecord>();
    for (const r of records) {
      const files = find(r.containerId);
      if (!files) continue;
      const { fingerprint, texts } = await fingerprintFiles(files);
      const parts = texts.map((t) => fp(t));
      const between =
        r.afterParts !== undefined &&
        parts.length === r.values.length &&
        parts.every((p, i) => p === r.afterParts?.[i] || p === fp(r.values[i] ?? Buffer.alloc(0))) &&
        fingerprint !== r.fingerprint;
      out.set(r.containerId, { fingerprint: between ? r.after : fingerprint, location: files.join(' + ') });
    }
    return out;
  };
  const todo = planRestore(records, await current(), fp, options.force === true, where);
  const restored: RestoreReport['restored'] = [];
  for (const r of todo.write) {
    const files = find(r.containerId) ?? [];
    if (files.length !== r.values.length)
      throw new StoreError(
        'STORE_CORRUPT',
        [],
        `a backup of record ${r.containerId} with one copy per file of the record (${files.length})`,
        `it has ${r.values.length}`,
        files.join(' + '),
      );
  }
  const writes: { file: string; data: Uint8Array }[] = [];
  const originals = new Map<string, Buffer>();
  for (const r of todo.write) {
    const files = find(r.containerId) ?? [];
    files.forEach((f, i) => {
      writes.push({ file: f, data: r.values[i] ?? Buffer.alloc(0) });
      originals.set(f, readFileSync(f));
    });
    restored.push({ containerId: r.containerId, location: files.join(' + ') });
  }
  writeStopped(writes, originals, checkStopped, options.hooks?.trace, { verb: 'restored', who: 'rollback' });
  checkRestored(records, await current());
  return { restored, unchanged: todo.unchanged, lost: todo.lost };
}
