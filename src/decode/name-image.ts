/**
 * For releases that hash only name and image (1.31+), decode just those two fields: the rest of the
 * container cannot change the hash, so it is neither walked nor validated here (validation is its
 * own call).
 */
import type { GoStruct } from '../go/value.js';
import { DecodeError } from '../errors.js';
import { decodeString, notAContainer } from './decode.js';
import { hasToJson, isPlainObject, memberOf } from './input.js';

export function decodeNameImage(container: unknown): GoStruct {
  if (!isPlainObject(container)) throw notAContainer(container);
  if (hasToJson(container)) {
    throw new DecodeError(
      'INVALID_TYPE',
      [],
      'a container object as plain data',
      'found a toJSON method: JSON.stringify would send what it returns',
    );
  }
  return { Name: stringField(container, 'name'), Image: stringField(container, 'image') };
}

function stringField(obj: Record<string, unknown>, key: 'name' | 'image'): string {
  return decodeString(memberOf(obj, key), [key]);
}
