/** Text → scanned, validated record with its containers located: the shared first step of reading and rewriting. */
import { RecordError } from '../errors.js';
import { locateContainers } from './hash-sites.js';
import type { LocatedContainer } from './hash-sites.js';
import { scanJson, toPlainValue } from '../json/spans.js';
import { detectRecordKind } from './record-kind.js';
import { validateRecord } from './schemas.js';
import type { RecordKind } from './types.js';

export interface ParsedRecord {
  readonly kind: RecordKind;
  readonly containers: readonly LocatedContainer[];
}

export function parseRecord(text: string): ParsedRecord {
  if (typeof text !== 'string') {
    throw new RecordError('INVALID_RECORD', [], 'the record as JSON text (a string)', `found ${text === null ? 'null' : typeof text}`);
  }
  const root = scanJson(text);
  const plain = toPlainValue(root);
  const kind = detectRecordKind(plain);
  validateRecord(kind, plain);
  return { kind, containers: locateContainers(text, root, plain, kind) };
}
