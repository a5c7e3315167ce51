/** Tells the three record kinds apart by their top-level shape. */
import { RecordError } from '../errors.js';
import type { RecordKind } from './types.js';

const EXPECTED =
  'a docker inspect array, a docker config.v2.json object (with "ID") or a crictl inspect object (with "status")';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Which kind of runtime record `doc` (a parsed JSON value) is. Throws {@link RecordError} with
 * path `[]` when it is none of them. Only looks at top-level keys; {@link readRuntimeRecords}
 * checks the rest.
 *
 * @example
 * ```ts
 * import { detectRecordKind, RecordError } from 'kubelet-hash';
 *
 * detectRecordKind([{ Id: 'c0ffee', Config: { Labels: {} } }]); // → 'docker-inspect'
 * detectRecordKind({ ID: 'c0ffee', Config: { Labels: {} } }); // → 'docker-config-v2'
 * detectRecordKind({ status: { id: 'c0ffee' } }); // → 'crictl-inspect'
 * try {
 *   detectRecordKind({ Id: 'c0ffee' });
 * } catch (e) {
 *   // docker inspect prints an array, even for one container.
 *   e instanceof RecordError && e.code; // → 'INVALID_RECORD'
 * }
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function detectRecordKind(doc: unknown): RecordKind {
  if (Array.isArray(doc)) {
    if (doc.length === 0)
      throw new RecordError('INVALID_RECORD', [], 'at least one container in the docker inspect array', 'found []');
    return 'docker-inspect';
  }
  if (isPlainObject(doc)) {
    if (Object.hasOwn(doc, 'status')) return 'crictl-inspect';
    // The daemon's on-disk record spells the id "ID"; the engine API (inspect) spells it "Id".
    if (Object.hasOwn(doc, 'ID') || Object.hasOwn(doc, 'StreamConfig')) return 'docker-config-v2';
    if (Object.hasOwn(doc, 'Id')) {
      throw new RecordError(
        'INVALID_RECORD',
        [],
        EXPECTED,
        'found a single docker inspect object; docker inspect prints an array of them',
      );
    }
    throw new RecordError('INVALID_RECORD', [], EXPECTED, 'found an object with none of those keys');
  }
  throw new RecordError('INVALID_RECORD', [], EXPECTED, `found ${doc === null ? 'null' : typeof doc}`);
}
