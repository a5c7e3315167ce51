/**
 * The layers, checked mechanically: every folder sits on a floor and imports only from its own floor
 * or below; the engine never imports a front end; a front end reaches another front end only through
 * its index.ts; only src/hash/ knows the fused hashers; the root entry's module graph imports no
 * Node built-in; and no module imports itself back in a circle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Front ends: built on the engine, never imported by it. */
const FRONT_ENDS = new Set([
  'hash-api',
  'kubelet',
  'explain',
  'runtime-records',
  'stores',
  'defaults',
  'upgrade',
  'cli',
  'conformance',
  'fleet',
  'discovery',
  'workloads',
]);

/**
 * The floors, bottom up (ARCHITECTURE.md draws them). A module imports only from its own floor or a
 * lower one. `bbolt` is a ground-floor room: a file format that knows nothing of kubelets.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['', 'models', 'bbolt'], // '' is src/errors.ts (the entries src/index.ts, src/node.ts are checked apart)
  ['go', 'json'],
  ['quantity'],
  ['decode', 'encode'],
  ['registry', 'pod'],
  ['hash'],
  ['hash-api', 'explain', 'defaults', 'runtime-records', 'discovery'],
  ['kubelet', 'stores'],
  ['upgrade', 'workloads'],
  ['fleet'],
  ['cli', 'conformance'],
];
const ENTRIES = new Set(['index.ts', 'node.ts']);
const floorOf = (module: string): number => FLOORS.findIndex((f) => f.includes(folderOf(module)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Module path relative to src/, posix style: `kubelet/plan-upgrade.ts`. */
const rel = (file: string): string => relative(ROOT, file).split('\\').join('/');

/** Source text without comments, so TSDoc examples (`import … from 'node:fs'`) do not count as imports. */
const code = (file: string): string =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

/** Node built-ins a module imports (`node:fs`, also the bare `fs` spelling). */
function builtinsOf(file: string): string[] {
  const specs = [...code(file).matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^'.][^']*)'/g)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('node:') || builtinModules.includes(s));
}

/** Relative imports of a module (value and type imports, re-exports, dynamic imports). */
function importsOf(file: string): string[] {
  const text = code(file);
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1]!);
  return specs.map((s) => posix.normalize(posix.join(posix.dirname(rel(file)), `${s}.ts`)));
}

const folderOf = (module: string): string => (module.includes('/') ? module.split('/')[0]! : '');

const files = sourceFiles(ROOT);
const graph = new Map(files.map((f) => [rel(f), importsOf(f)]));
const builtins = new Map(files.map((f) => [rel(f), builtinsOf(f)]));

/** Every module `entry` loads, itself included. */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (m: string): void => {
    if (seen.has(m)) return;
    seen.add(m);
    for (const d of graph.get(m) ?? []) visit(d);
  };
  visit(entry);
  return seen;
}

describe('architecture', () => {
  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('index.ts')).toContain('hash-api/index.ts');
  });

  it('every import names an existing module', () => {
    const missing = [...graph].flatMap(([m, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${m} → ${d}`));
    expect(missing).toEqual([]);
  });

  it('every folder has a floor', () => {
    const homeless = [...new Set([...graph.keys()].filter((m) => !ENTRIES.has(m)).map(folderOf))].filter(
      (f) => !FLOORS.some((floor) => floor.includes(f)),
    );
    expect(homeless).toEqual([]);
  });

  it('no import runs back up a floor', () => {
    const bad = [...graph]
      .filter(([m]) => !ENTRIES.has(m))
      .flatMap(([m, deps]) =>
        deps
          .filter((d) => floorOf(d) > floorOf(m))
          .map((d) => `${m} (floor ${floorOf(m)}) → ${d} (floor ${floorOf(d)})`),
      );
    expect(bad).toEqual([]);
  });

  it('only src/hash/ imports the fused hashers', () => {
    const bad = [...graph]
      .filter(([m]) => folderOf(m) !== 'hash')
      .flatMap(([m, deps]) => deps.filter((d) => d.startsWith('hash/fused/')).map((d) => `${m} → ${d}`));
    expect(bad).toEqual([]);
  });

  it("the root entry's module graph imports no Node built-in (kubelet-hash/node holds those parts)", () => {
    const reached = moduleGraph('index.ts');
    expect(reached.size).toBeGreaterThan(50);
    const bad = [...reached].flatMap((m) => (builtins.get(m) ?? []).map((b) => `${m} → ${b}`));
    expect(bad).toEqual([]);
    // The check can see a built-in: the node entry's graph has them.
    expect([...moduleGraph('node.ts')].some((m) => (builtins.get(m) ?? []).length > 0)).toBe(true);
  });

  it('the engine imports no front end', () => {
    const bad = [...graph]
      .filter(([m]) => !FRONT_ENDS.has(folderOf(m)) && !ENTRIES.has(m))
      .flatMap(([m, deps]) => deps.filter((d) => FRONT_ENDS.has(folderOf(d))).map((d) => `${m} → ${d}`));
    expect(bad).toEqual([]);
  });

  it('a front end reaches another front end only through its index.ts', () => {
    const bad = [...graph]
      .filter(([m]) => FRONT_ENDS.has(folderOf(m)))
      .flatMap(([m, deps]) =>
        deps
          .filter((d) => FRONT_ENDS.has(folderOf(d)) && folderOf(d) !== folderOf(m) && !d.endsWith('/index.ts'))
          .map((d) => `${m} → ${d}`),
      );
    expect(bad).toEqual([]);
  });

  it('has no import circles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (m: string): void => {
      state.set(m, 'visiting');
      stack.push(m);
      for (const d of graph.get(m) ?? []) {
        if (state.get(d) === 'visiting') cycles.push([...stack.slice(stack.indexOf(d)), d].join(' → '));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(m, 'done');
    };
    for (const m of graph.keys()) if (!state.has(m)) visit(m);
    expect(cycles).toEqual([]);
  });
});
