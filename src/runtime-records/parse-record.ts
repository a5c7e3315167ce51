/** Text → scanned, validated record with its containers located: the shared first step of reading and rewriting. */
import { RecordError } from '../errors.js';
import { locateRecordContainers, locateDockerInspectElement } from './hash-sites.js';
import type { RecordContainer } from './hash-sites.js';
import { checkJson, forEachArrayElement, scanJson, toPlainValue } from '../json/spans.js';
import { detectRecordKind } from './record-kind.js';
import { isKubeletDockerContainer, recordSchemas, validateRecord, validateWith } from './schemas.js';
import type { RecordKind } from './types.js';

export interface ParsedRecord {
  readonly kind: RecordKind;
  readonly containers: readonly RecordContainer[];
}

export function parseRecord(text: string): ParsedRecord {
  // Callers from plain JavaScript can pass anything: refuse it with a typed error, not a TypeError.
  const given: unknown = text;
  if (typeof given !== 'string') {
    throw new RecordError(
      'INVALID_RECORD',
      [],
      'the record as JSON text (a string)',
      `found ${given === null ? 'null' : typeof given}`,
    );
  }
  if (startsWithArray(text)) return parseDockerInspect(text);
  const root = scanJson(text);
  const plain = toPlainValue(root);
  const kind = detectRecordKind(plain);
  validateRecord(kind, plain);
  return { kind, containers: locateRecordContainers(text, root, plain, kind) };
}

function startsWithArray(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === 0x5b;
  }
  return false;
}

/**
 * A `docker inspect` array, one element at a time: a node-wide record is tens of megabytes, and
 * only the element being read has a tree. The same checks in the same order as for a whole
 * document (syntax of all the text first, then each element's schema), so the same error wins.
 */
function parseDockerInspect(text: string): ParsedRecord {
  checkJson(text);
  const containers: RecordContainer[] = [];
  const count = forEachArrayElement(text, (element, i) => {
    const plain = toPlainValue(element);
    const schemas = recordSchemas();
    validateWith(
      isKubeletDockerContainer(plain) ? schemas.dockerInspectContainerSchema : schemas.otherDockerContainerSchema,
      plain,
      [i],
    );
    const located = locateDockerInspectElement(element, plain, i);
    if (located) containers.push(located);
  });
  if (count === 0) detectRecordKind([]); // throws: docker inspect prints at least one container
  return { kind: 'docker-inspect', containers };
}
