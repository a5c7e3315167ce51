/**
 * Options objects read field by field, without a schema library: `hashContainer`,
 * `containerChanged` and `predictRestarts` run for every container a controller looks at, and a
 * controller that bundles them should carry neither zod nor its cost. An unknown name is refused
 * with the closest known one (a misspelt `kubeletVerison` is not "kubeletVersion: expected a
 * string"), and a refused value is shown, shortened.
 */
import { OptionError, type JsonPathSegment } from './errors.js';
import { didYouMean } from './suggest.js';

/** What a field holds: a type, one of some strings, or a test with its expectation in words. */
type FieldRule =
  | 'string'
  | 'boolean'
  | 'object'
  | 'unknown'
  | readonly string[]
  | { readonly test: (value: unknown) => boolean; readonly expected: string };

export type OptionFields = Readonly<Record<string, FieldRule>>;

/** Longest text of a refused string shown in a message. */
const SHOWN_CHARS = 40;

/** Not null, not a list: class instances (client-node's models) count, as JSON.stringify sends them. */
export function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A refused value in a few words: `"1.5.x"`, `number 1.5`, `a Date (2024-05-01T10:00:00.000Z)`, `a list of 2 values`. */
export function describeOptionValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value;
    return `${JSON.stringify(shown)}${value.length > SHOWN_CHARS ? ` (${value.length} characters)` : ''}`;
  }
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return `${typeof value} ${String(value)}`;
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (Array.isArray(value)) return `a list of ${value.length} value${value.length === 1 ? '' : 's'}`;
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'an invalid Date' : `a Date (${value.toISOString()})`;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  const name = proto?.constructor?.name;
  if (proto !== null && proto !== Object.prototype && typeof name === 'string' && name !== '')
    return `a ${name} object`;
  const keys = Object.keys(value);
  return keys.length === 0
    ? 'an empty object'
    : `an object with keys ${JSON.stringify(keys.slice(0, 5))}${keys.length > 5 ? '…' : ''}`;
}

function expectedOf(rule: FieldRule): string {
  if (rule === 'string') return 'a string';
  if (rule === 'boolean') return 'true or false';
  if (rule === 'object') return 'an object';
  if (rule === 'unknown') return 'any value';
  if (Array.isArray(rule)) return `one of ${rule.map((v) => JSON.stringify(v)).join(', ')}`;
  return (rule as { expected: string }).expected;
}

function accepts(rule: FieldRule, value: unknown): boolean {
  if (rule === 'string') return typeof value === 'string';
  if (rule === 'boolean') return typeof value === 'boolean';
  if (rule === 'object') return isObjectLike(value);
  if (rule === 'unknown') return true;
  if (Array.isArray(rule)) return typeof value === 'string' && rule.includes(value);
  return (rule as { test: (value: unknown) => boolean }).test(value);
}

export interface ReadFieldsSpec {
  /** Every field the object may hold, in the order they are checked. */
  fields: OptionFields;
  /** Fields that must be present (not undefined). */
  required?: readonly string[];
  /** What the whole object is, for a value that is no object: `an options object such as { kubeletVersion: "1.31" }`. */
  expected: string;
  /** Other names are passed over, not refused (a Kubernetes `ContainerStatus` read as a state). */
  allowOthers?: boolean;
}

/**
 * The object's fields after checking them, or an {@link OptionError} `INVALID_OPTION` at the first
 * unknown name (with a "did you mean"), missing required field or value of the wrong kind. The
 * result is a fresh object of the known fields: the caller's object is not kept or changed. `T` is
 * the options type `spec` describes (its rules are the check; the type follows them).
 */
// The caller names the options type its `spec` describes; the fields' rules are the check.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function readOptionFields<T extends object = Record<string, unknown>>(
  value: unknown,
  path: readonly JsonPathSegment[],
  spec: ReadFieldsSpec,
): T {
  if (!isObjectLike(value))
    throw new OptionError('INVALID_OPTION', path, spec.expected, `found ${describeOptionValue(value)}`);
  const names = Object.keys(spec.fields);
  if (spec.allowOthers !== true) {
    for (const key of Object.keys(value)) {
      // A field set to undefined is absent, as JSON.stringify leaves it out.
      if (Object.prototype.hasOwnProperty.call(spec.fields, key) || value[key] === undefined) continue;
      throw new OptionError(
        'INVALID_OPTION',
        [...path, key],
        `one of the options ${names.join(', ')}`,
        `"${key}" is none of them${didYouMean(key, names)}`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const v = value[name];
    if (v === undefined) {
      if (spec.required?.includes(name) === true)
        throw new OptionError('INVALID_OPTION', [...path, name], expectedOf(spec.fields[name]!), 'found nothing');
      continue;
    }
    if (!accepts(spec.fields[name]!, v))
      throw new OptionError(
        'INVALID_OPTION',
        [...path, name],
        expectedOf(spec.fields[name]!),
        `found ${describeOptionValue(v)}`,
      );
    out[name] = v;
  }
  // Every field of `out` passed its rule in `spec`, which the caller writes for `T`.
  return out as T;
}
