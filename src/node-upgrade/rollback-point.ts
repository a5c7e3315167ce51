/**
 * Rollback points: what one apply rewrote, as it was before, kept where only we can read it and
 * bound to the plan, the store and the node. Each apply that writes gets a directory of its own
 * under the backup directory, named by the plan's digest and the time, created new (0700) and
 * never reused; its manifest is created exclusively (0600) and never overwritten. Rollback finds
 * the rollback point of the plan it is given and refuses any other.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { formatByteSize } from '../byte-size.js';
import { errnoCode, ioError, parseWith, StoreError } from '../errors.js';
import { lazySchema } from '../on-demand.js';
import {
  checkOwnDirectory,
  containerdMetaDbPath,
  createFileExclusive,
  createPrivateDirectory,
  ensureOwnDirectory,
  type RecordBackup,
  type RecordPrint,
} from '../stores/index.js';
import { formatNodePlan, storeSpecSchema, type NodeUpgradePlan, type StoreSpec } from './plan-file.js';
import { auditStampSchema, type AuditStamp } from './audit.js';

/** The manifest's name inside a rollback point. */
export const MANIFEST_NAME = 'kubelet-hash-backup.json';
/** The plan applied, kept beside the manifest: rollback with it when the plan file was replaced since. */
export const PLAN_COPY_NAME = 'plan.json';
/** A rollback point's directory name: the plan digest's first 16 hex digits, then the time. */
const POINT_NAME = /^[0-9a-f]{16}-\d{8}T\d{9}Z$/;
const KIND = 'kubelet-hash/rollback-point';

/** SHA-256 (hex) of the plan as plan --out writes it: what names and binds its rollback points. */
export function planDigest(plan: NodeUpgradePlan): string {
  return createHash('sha256').update(formatNodePlan(plan)).digest('hex');
}

/** The store's identity: device and inode of meta.db (containerd) or of the root (CRI-O, docker). */
function storeIdentity(store: StoreSpec): string {
  const path =
    store.runtime === 'containerd'
      ? containerdMetaDbPath(store.root)
      : store.runtime === 'cri-o'
        ? store.graphRoot
        : store.runtime === 'docker'
          ? store.root
          : '';
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch (e) {
    throw ioError(e, `to read the identity of the store at ${path}`, path);
  }
}

const printSchema = lazySchema((z) =>
  z.object({ containerId: z.string(), fingerprint: z.string(), name: z.string().optional() }),
);

const manifestSchema = lazySchema((z) =>
  z.object({
    kind: z.literal(KIND),
    version: z.literal(2),
    plan: z.string().regex(/^[0-9a-f]{64}$/),
    node: z.string(),
    store: storeSpecSchema(),
    storeIdentity: z.string(),
    created: z.string(),
    audit: auditStampSchema().optional(),
    before: z.array(printSchema()),
    after: z.array(printSchema()),
    records: z.array(
      z.object({
        containerId: z.string(),
        name: z.string().optional(),
        location: z.string(),
        fingerprint: z.string(),
        after: z.string(),
        values: z.array(z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/)),
        afterParts: z.array(z.string()).optional(),
      }),
    ),
  }),
);

/** A rollback point as read back. */
interface RollbackPoint {
  /** The manifest's path. */
  manifest: string;
  /** The records apply rewrote, as they were before. */
  records: RecordBackup[];
}

/** `2026-12-04T19:00:00.123Z` as `20261204T190000123Z`: sortable, no characters a path dislikes. */
const stamp = (d: Date): string => d.toISOString().replace(/[-:.]/g, '');

/**
 * Writes the rollback point of one apply: `backupDir` is created 0700 when missing (refused when it
 * is a symlink, not ours, or writable by others), the point's own directory is created new (refused
 * when it exists), and the manifest (with the apply's `audit` stamp, when given) is created
 * exclusively, 0600, and synced. Returns its path.
 */
export function writeRollbackPoint(
  backupDir: string,
  plan: NodeUpgradePlan,
  records: readonly RecordBackup[],
  before: readonly RecordPrint[],
  after: readonly RecordPrint[],
  now = new Date(),
  audit?: AuditStamp,
): string {
  const digest = planDigest(plan);
  ensureOwnDirectory(backupDir, 'the backup directory');
  const dir = join(backupDir, `${digest.slice(0, 16)}-${stamp(now)}`);
  createPrivateDirectory(dir, 'the rollback point');
  const body = {
    kind: KIND,
    version: 2,
    plan: digest,
    node: hostname(),
    store: plan.store,
    storeIdentity: storeIdentity(plan.store),
    created: now.toISOString(),
    // The apply that wrote it: when, where, which kubelet-hash and command line.
    ...(audit ? { audit } : {}),
    before,
    after,
    records: records.map((r) => ({ ...r, values: r.values.map((v) => v.toString('base64')) })),
  };
  createFileExclusive(join(dir, PLAN_COPY_NAME), Buffer.from(formatNodePlan(plan)));
  const manifest = join(dir, MANIFEST_NAME);
  createFileExclusive(manifest, Buffer.from(`${JSON.stringify(body, null, 2)}\n`));
  return manifest;
}

/** Refuses (`STORE_IO`) an existing backup directory that is a symlink, not ours, or writable by others. */
export function checkBackupDirectory(backupDir: string): void {
  try {
    lstatSync(backupDir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw ioError(e, `the backup directory ${backupDir}`, backupDir);
  }
  checkOwnDirectory(backupDir, 'the backup directory');
}

/** Reads a file that must be ours, regular, private and not a symlink, at most `limit` bytes. */
function readPrivateFile(path: string, limit: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const why = errnoCode(e) === 'ELOOP' ? 'it is a symlink' : (errnoCode(e) ?? String(e));
    throw new StoreError('STORE_IO', [], `a rollback manifest (a regular file, readable) at ${path}`, why, path);
  }
  try {
    const st = fstatSync(fd);
    const uid = process.geteuid?.() ?? 0;
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o077) !== 0)
      throw new StoreError(
        'STORE_IO',
        [],
        `a rollback manifest at ${path}: a regular file owned by uid ${uid}, mode 0600`,
        `${st.isFile() ? 'a file' : 'not a regular file'} owned by uid ${st.uid}, mode 0${(st.mode & 0o777).toString(8)}`,
        path,
      );
    if (st.size > limit)
      throw new StoreError(
        'STORE_IO',
        [],
        `a rollback manifest of at most ${formatByteSize(limit)} at ${path}`,
        `EFBIG: ${path} is larger than ${formatByteSize(limit)}, the limit of one input (the CLI's --max-input-size raises it)`,
        path,
      );
    const buf = Buffer.alloc(st.size);
    for (let done = 0; done < st.size;) {
      const n = readSync(fd, buf, done, st.size - done, done);
      if (n === 0) break;
      done += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The manifest at `path`, checked against the plan, its store and this node. */
function readManifest(path: string, plan: NodeUpgradePlan, digest: string, limit: number): RollbackPoint {
  const expected = `a rollback point of plan ${digest.slice(0, 16)} at ${path}`;
  let doc: unknown;
  try {
    doc = JSON.parse(readPrivateFile(path, limit).toString('utf8'));
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError('STORE_CORRUPT', [], expected, String(e), path);
  }
  const m = parseWith(
    manifestSchema(),
    doc,
    ({ path: at, message }) => new StoreError('STORE_CORRUPT', at, expected, message, path),
  );
  const mismatch = (field: string, want: string, found: string): StoreError =>
    new StoreError(
      'STORE_CHANGED',
      [field],
      `${expected}: ${field} ${want}`,
      `it names ${found}: not this plan's rollback point`,
      path,
    );
  if (m.plan !== digest) throw mismatch('plan', digest, m.plan);
  if (JSON.stringify(m.store) !== JSON.stringify(plan.store))
    throw mismatch('store', JSON.stringify(plan.store), JSON.stringify(m.store));
  if (m.node !== hostname()) throw mismatch('node', hostname(), m.node);
  const identity = storeIdentity(plan.store);
  if (m.storeIdentity !== identity) throw mismatch('storeIdentity', identity, m.storeIdentity);
  return {
    manifest: path,
    records: m.records.map((r) => ({ ...r, values: r.values.map((v) => Buffer.from(v, 'base64')) })),
  };
}

/** What a backup directory holds for a plan: its own rollback point, and the names of any other plan's. */
interface RollbackPoints {
  own?: RollbackPoint;
  others: string[];
}

/**
 * The rollback point of `plan` in `backupDir`: the oldest one named by the plan's digest (the store
 * as it was before the first apply of this plan), checked to be ours and private and bound to this
 * plan, store and node; and the directories of other plans' rollback points (for the refusal that
 * names them).
 */
export function findRollbackPoint(
  backupDir: string,
  plan: NodeUpgradePlan,
  limit = Number.MAX_SAFE_INTEGER,
): RollbackPoints {
  const digest = planDigest(plan);
  try {
    lstatSync(backupDir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { others: [] };
    throw ioError(e, `the backup directory ${backupDir}`, backupDir);
  }
  checkOwnDirectory(backupDir, 'the backup directory');
  const prefix = `${digest.slice(0, 16)}-`;
  const points = readdirSync(backupDir)
    .filter((n) => POINT_NAME.test(n))
    .sort();
  const others = points.filter((n) => !n.startsWith(prefix)).map((n) => join(backupDir, n));
  const first = points.find((n) => n.startsWith(prefix));
  if (first === undefined) return { others };
  const dir = join(backupDir, first);
  checkOwnDirectory(dir, 'the rollback point', { private: true });
  return { own: readManifest(join(dir, MANIFEST_NAME), plan, digest, limit), others };
}
