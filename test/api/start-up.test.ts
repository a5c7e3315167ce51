/**
 * What loads at start-up, counted from the source (deterministic, unlike a timing; bench/start-up.ts
 * times it): the modules an import evaluates before its first line runs are its static value imports,
 * transitively (`import type` is erased; `import()` waits until called). The root entry, the node
 * entry's hashing path and `kubelet-hash --version`/`--help` must not evaluate zod or yaml, and the
 * dispatcher must not evaluate a command module.
 */
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_INDEX } from '../../src/cli/command-index.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { codeOf, importGraph, moduleName, reachable } from '../support/module-graph.js';

/** Static value imports and re-exports of a module: relative ones as paths, packages by name. */
function staticImports(file: string): string[] {
  const text = codeOf(file);
  const specs: string[] = [];
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
    const spec = m[4] ?? m[5]!;
    if (m[2] !== undefined) continue; // import type / export type
    // `import { type A, type B } from` keeps a side-effect import under verbatimModuleSyntax: counted.
    specs.push(spec);
  }
  return specs.map((s) =>
    s.startsWith('.') ? posix.normalize(posix.join(posix.dirname(moduleName(file)), s.replace(/\.js$/, '.ts'))) : s,
  );
}

const graph = importGraph(staticImports);

/** Every module (and package) evaluated when `entry` is imported. */
const evaluated = (entry: string): Set<string> => reachable(graph, entry);

const packagesOf = (modules: Set<string>): string[] =>
  [...modules].filter((m) => !m.endsWith('.ts') && !m.startsWith('node:')).sort();

describe('start-up: what an import evaluates', () => {
  it('sees the static graph (a check that can fail: the CLI commands do load zod)', () => {
    expect(evaluated('index.ts').has('hash-api/index.ts')).toBe(true);
    expect(packagesOf(evaluated('cli/commands.ts'))).toContain('zod');
    expect(packagesOf(evaluated('cli/commands-fleet.ts'))).toContain('yaml');
  });

  it("import('kubelet-hash') evaluates neither zod nor yaml", () => {
    expect(packagesOf(evaluated('index.ts'))).toEqual([]);
  });

  it('the hashing API (hashContainer …) evaluates no package', () => {
    expect(packagesOf(evaluated('hash-api/index.ts'))).toEqual([]);
  });

  it('`kubelet-hash --version` evaluates only main.ts and version.ts', () => {
    expect([...evaluated('cli/main.ts')].sort()).toEqual(['cli/main.ts', 'cli/version.ts', 'node:fs'].sort());
  });

  it('the dispatcher (`--help`, an unknown command) evaluates no command module, zod or yaml', () => {
    const loaded = evaluated('cli/run.ts');
    expect([...loaded].filter((m) => /^cli\/commands/.test(m))).toEqual([]);
    expect(packagesOf(loaded)).toEqual([]);
  });

  it('the command index lists every command, in order, with its definition’s summary', async () => {
    expect(COMMAND_INDEX.map((c) => [c.name, c.summary])).toEqual(COMMANDS.map((c) => [c.name, c.summary]));
    for (const entry of COMMAND_INDEX) expect(await entry.load()).toBe(COMMANDS.find((c) => c.name === entry.name));
  });
});
