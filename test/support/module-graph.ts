/**
 * The source tree as an import graph, for the tests that read it (test/architecture.test.ts: floors
 * and circles; test/api/start-up.test.ts: what an import evaluates). Each test says which imports
 * are edges; the files, their names and the walk are this module's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's src/. */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Every .ts file under `dir`. */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** A module's name: its path under src/, posix style (`plan/plan-upgrade.ts`). */
export const moduleName = (file: string): string => relative(SRC, file).split('\\').join('/');

/** A module's text without comments, so TSDoc examples (`import … from 'node:fs'`) are not imports. */
export const codeOf = (file: string): string =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

/** Every module of src/ with the edges `importsOf` reads from it. */
export function importGraph(importsOf: (file: string) => string[]): Map<string, string[]> {
  return new Map(sourceFiles().map((f) => [moduleName(f), importsOf(f)]));
}

/** Every node `entry` reaches in `graph`, itself included. */
export function reachable(graph: ReadonlyMap<string, readonly string[]>, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (m: string): void => {
    if (seen.has(m)) return;
    seen.add(m);
    for (const d of graph.get(m) ?? []) visit(d);
  };
  visit(entry);
  return seen;
}
