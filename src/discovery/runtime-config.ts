/** The root a runtime's config file names: containerd's `root`, CRI-O's storage `graphroot`, docker's `data-root`. */
import { parse } from 'smol-toml';
import { OptionError } from '../errors.js';

function configError(file: string, expected: string, detail: string): OptionError {
  return new OptionError('INVALID_OPTION', ['runtimeConfig', file], expected, detail);
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (e) {
    throw configError(file, 'a TOML file', (e as Error).message.split('\n')[0] ?? '');
  }
}

function stringAt(table: Record<string, unknown>, key: string, file: string): string | undefined {
  const v = table[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '')
    throw configError(file, `${key}: a non-empty string`, `got ${JSON.stringify(v)}`);
  return v;
}

/** containerd's `config.toml`: the top-level `root` (every config version keeps it there). */
export function containerdRootOf(text: string, file: string): string | undefined {
  return stringAt(parseToml(text, file), 'root', file);
}

/** containers/storage's `storage.conf`: `[storage] graphroot`. */
export function crioGraphRootOf(text: string, file: string): string | undefined {
  const storage = parseToml(text, file)['storage'];
  return storage && typeof storage === 'object'
    ? stringAt(storage as Record<string, unknown>, 'graphroot', file)
    : undefined;
}

/** containers/storage's `storage.conf`: `[storage] runroot` (where CRI-O keeps the second copy of each config.json). */
export function crioRunRootOf(text: string, file: string): string | undefined {
  const storage = parseToml(text, file)['storage'];
  return storage && typeof storage === 'object'
    ? stringAt(storage as Record<string, unknown>, 'runroot', file)
    : undefined;
}

/** dockerd's `daemon.json`: `data-root` (or the old `graph`). */
export function dockerRootOf(text: string, file: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw configError(file, 'a JSON object', (e as Error).message);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw configError(file, 'a JSON object', 'got another value');
  const d = doc as Record<string, unknown>;
  return stringAt(d, 'data-root', file) ?? stringAt(d, 'graph', file);
}
