/**
 * The error vocabulary is one table (ERROR_CODES in src/errors.ts): the documentation table of
 * ErrorCode must be that table row for row, every class named there exists and carries its codes,
 * and every code is thrown somewhere in the source.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import * as api from '../../src/index.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const errorsText = readFileSync(join(SRC, 'errors.ts'), 'utf8');

/** The library's sources (the CLI's refusals are its own vocabulary, checked by the CLI tests). */
function sourceTexts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() && e.name === 'cli'
      ? []
      : e.isDirectory()
        ? sourceTexts(join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [readFileSync(join(dir, e.name), 'utf8')]
          : [],
  );
}

describe('error codes', () => {
  it("ErrorCode's documentation table is ERROR_CODES, row for row", () => {
    const doc = errorsText.slice(errorsText.indexOf('| code | class | thrown when |'));
    const rows = [...doc.matchAll(/^ \* \| `([A-Z_]+)` \| \{@link (\w+)\} \| (.*) \|$/gm)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, row]) => [code, row.class, row.when]));
  });

  it('every class a code names is an exported KubeletHashError subclass', () => {
    for (const row of Object.values(ERROR_CODES)) {
      const Class = (api as Record<string, unknown>)[row.class];
      expect(typeof Class, row.class).toBe('function');
      expect((Class as { prototype: unknown }).prototype).toBeInstanceOf(api.KubeletHashError);
    }
  });

  it('every code is thrown by the class the table binds it to, and only by it', () => {
    const text = sourceTexts(SRC).join('\n');
    const thrown = [...text.matchAll(/new (\w+Error)\(\s*'([A-Z_]+)'/g)].map((m) => [m[2]!, m[1]!] as const);
    const bad = thrown.filter(([code, cls]) => (ERROR_CODES as Record<string, { class: string }>)[code]?.class !== cls);
    expect(bad).toEqual([]);
    const unused = Object.keys(ERROR_CODES).filter((code) => !text.replace(errorsText, '').includes(`'${code}'`));
    expect(unused).toEqual([]);
  });
});

describe('the error classes and ERROR_CODES', () => {
  const source = readFileSync(new URL('../../src/errors.ts', import.meta.url), 'utf8');
  /** Each error class's doc comment, by class name. */
  const docs = new Map(
    [
      ...source.matchAll(
        /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export class (\w+) extends KubeletHashError<CodesOf<'(\w+)'>>/g,
      ),
    ].map((m) => [m[2]!, { doc: m[1]!, bound: m[3]! }]),
  );
  const classes = [...new Set(Object.values(ERROR_CODES).map((c) => c.class))];

  it('every class of the table is declared, bound to its own codes, with one constructor', () => {
    expect([...docs.keys()].sort()).toEqual([...classes].sort());
    for (const [name, { bound }] of docs) expect(bound).toBe(name);
    // KubeletHashError's, and StoreError's, which only adds the store's location to it.
    expect(source.match(/constructor\(/g)).toHaveLength(2);
    const store = source.slice(source.indexOf('export class StoreError'));
    expect(store.slice(0, store.indexOf('\n}\n'))).toMatch(
      /super\(code, path, expected, detail\);\s*this\.location = location;\s*\}/,
    );
  });

  it("each class's documentation names exactly the codes the table binds to it", () => {
    const codes = new Set(Object.keys(ERROR_CODES));
    for (const [name, { doc }] of docs) {
      // The prose before the example: the codes it names in backticks.
      const prose = doc.split('@example')[0]!;
      const named = [...new Set([...prose.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!))].filter((c) =>
        codes.has(c),
      );
      const bound = Object.entries(ERROR_CODES)
        .filter(([, v]) => v.class === name)
        .map(([k]) => k);
      expect(`${name}: ${named.sort().join(' ')}`).toBe(`${name}: ${bound.sort().join(' ')}`);
    }
  });
});

describe('StoreError.location', () => {
  it('names the store file apart from the JSON path, and keeps it through withPathPrefix and toJSON', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { ContainerdStore } = await import('../../src/node.js');
    const store = new ContainerdStore({ root: mkdtempSync(join(tmpdir(), 'containerd-')) });
    const error = (await store.list().catch((e: unknown) => e)) as InstanceType<typeof api.StoreError>;
    expect(error).toBeInstanceOf(api.StoreError);
    expect(error.code).toBe('STORE_IO');
    expect(error.path).toEqual([]);
    expect(error.location).toBe(store.dbPath);
    const moved = error.withPathPrefix(['store']);
    expect(moved).toBeInstanceOf(api.StoreError);
    expect([moved.path, moved.location]).toEqual([['store'], store.dbPath]);
    expect(error.toJSON()).toMatchObject({ code: 'STORE_IO', path: [], location: store.dbPath });
    expect(JSON.parse(JSON.stringify(error))).toHaveProperty('location', store.dbPath);
  });

  it('is left out of toJSON when there is none', () => {
    const e = new api.StoreError('STORE_CORRUPT', [], 'a well-formed bbolt file', 'x');
    expect(e.location).toBeUndefined();
    expect(e.toJSON()).not.toHaveProperty('location');
  });
});
