/**
 * The layers, checked mechanically: the engine never imports a front end, a front end reaches
 * another front end only through its index.ts, and no module imports itself back in a circle.
 */
import { readdirSync, readFileSync } from 'node:fs';
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
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Module path relative to src/, posix style: `kubelet/plan-upgrade.ts`. */
const rel = (file: string): string => relative(ROOT, file).split('\\').join('/');

/** Relative imports of a module (value and type imports, re-exports, dynamic imports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1]!);
  return specs.map((s) => posix.normalize(posix.join(posix.dirname(rel(file)), `${s}.ts`)));
}

const folderOf = (module: string): string => (module.includes('/') ? module.split('/')[0]! : '');

const graph = new Map(sourceFiles(ROOT).map((f) => [rel(f), importsOf(f)]));

describe('architecture', () => {
  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('index.ts')).toContain('hash-api/index.ts');
  });

  it('every import names an existing module', () => {
    const missing = [...graph].flatMap(([m, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${m} → ${d}`));
    expect(missing).toEqual([]);
  });

  it('the engine imports no front end', () => {
    const bad = [...graph]
      .filter(([m]) => !FRONT_ENDS.has(folderOf(m)) && m !== 'index.ts')
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
