/**
 * For releases that hash only name and image (1.31+), decode just those two fields: the rest of the
 * container cannot change the hash, so it is neither walked nor validated here (validation is its
 * own call).
 */
import type { GoStruct } from '../go/value.js';
import { decodeString, notAContainer } from './decode.js';
import { isPlainObject } from './input.js';

export function decodeNameImage(container: unknown): GoStruct {
  if (!isPlainObject(container)) throw notAContainer(container);
  return { Name: stringField(container, 'name'), Image: stringField(container, 'image') };
}

function stringField(obj: Record<string, unknown>, key: 'name' | 'image'): string {
  return decodeString(Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined, [key]);
}
