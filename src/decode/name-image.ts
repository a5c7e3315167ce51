/**
 * For releases that hash only name and image (1.31+), decode just those two fields: the rest of the
 * container cannot change the hash, so it is neither walked nor validated here (validation is its
 * own call).
 */
import { DecodeError } from '../errors.js';
import type { GoStruct } from '../go/value.js';
import { goStringFromJson } from '../go/strings.js';
import { isPlainObject } from './input.js';

export function decodeNameImage(container: unknown): GoStruct {
  if (!isPlainObject(container)) throw new DecodeError('INVALID_TYPE', [], 'a container object');
  return { Name: field(container, 'name'), Image: field(container, 'image') };
}

function field(obj: Record<string, unknown>, key: 'name' | 'image'): string {
  if (!Object.prototype.hasOwnProperty.call(obj, key)) return '';
  const v = obj[key];
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') throw new DecodeError('INVALID_TYPE', [key], 'a string', `found ${Array.isArray(v) ? 'an array' : typeof v}`);
  return goStringFromJson(v);
}
