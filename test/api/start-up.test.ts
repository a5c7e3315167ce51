/**
 * What loads at start-up, counted from the source (deterministic, unlike a timing; bench/start-up.ts
 * times it): the modules an import evaluates before its first line runs are its static value imports,
 * transitively (`import type` is erased; `import()` waits until called). The root entry, the node
 * entry and `kubelet-hash --version`/`--help` must not evaluate zod or yaml, and the
 * dispatcher must not evaluate a command module. The published dist/ is bundled (scripts/build.ts;
 * vitest's globalSetup builds it): the same questions are asked of its files, which are what the ES
 * module loader pays for one by one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_INDEX } from '../../src/cli/command-index.js';
import type * as RootEntry from '../../src/index.js';
import type * as NodeEntry from '../../src/node.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { codeOf, importGraph, moduleName, reachable } from '../support/module-graph.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const DIST = join(ROOT, '..', 'dist');

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

  it("import('kubelet-hash/node') evaluates neither zod nor yaml (plan, trailer and backup schemas are built on first use)", () => {
    expect(packagesOf(evaluated('node.ts')).filter((p) => p === 'zod' || p === 'yaml')).toEqual([]);
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

/** Static imports of a built file (esbuild's output: `import { … } from "…";`, `import "…";`). */
function distImports(file: string): { files: string[]; packages: string[]; dynamic: string[] } {
  const text = readFileSync(file, 'utf8');
  const files: string[] = [];
  const packages: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)";|^import\s*"([^"]+)";/gm)) {
    const spec = m[1] ?? m[2]!;
    if (spec.startsWith('.')) files.push(join(dirname(file), spec));
    else packages.push(spec);
  }
  const dynamic = [...text.matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => join(dirname(file), m[1]!));
  return { files, packages, dynamic };
}

/** The files (relative to dist/) and packages the loader fetches before `entry`'s first line runs. */
function distEvaluated(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const deps = distImports(file);
    deps.packages.forEach((p) => packages.add(p));
    deps.files.forEach(visit);
  };
  visit(join(DIST, entry));
  return { files: [...files].map((f) => relative(DIST, f)), packages: [...packages].sort() };
}

describe('start-up: what the published dist/ loads', () => {
  it('sees the built graph (a check that can fail: the plan command does load zod)', () => {
    const plan = readdirSync(join(DIST, 'chunks')).find((f) => /^commands-plan-[A-Z0-9]+\.js$/.test(f));
    expect(distEvaluated(`chunks/${plan}`).packages).toContain('zod');
    expect(distEvaluated('index.js').files.length).toBeGreaterThan(1);
  });

  it("import('kubelet-hash/node') loads neither zod nor yaml", () => {
    expect(distEvaluated('node.js').packages.filter((p) => p === 'zod' || p === 'yaml')).toEqual([]);
  });

  it("import('kubelet-hash') loads at most 12 files, no package and no Node built-in", () => {
    const { files, packages } = distEvaluated('index.js');
    expect(files.length).toBeLessThanOrEqual(12);
    expect(packages).toEqual([]);
  });

  it('`kubelet-hash --version` loads at most 3 files and no package (the version is written in)', () => {
    const { files, packages } = distEvaluated('cli/main.js');
    expect(files.length).toBeLessThanOrEqual(3);
    expect(packages).toEqual([]);
  });

  it('the dispatcher is loaded on demand and loads neither zod, yaml nor a command', () => {
    const dispatcher = distImports(join(DIST, 'cli', 'main.js')).dynamic;
    expect(dispatcher.map((f) => relative(DIST, f))).toEqual([expect.stringMatching(/^chunks\/run-[A-Z0-9]+\.js$/)]);
    const loaded = distEvaluated(relative(DIST, dispatcher[0]!));
    expect(loaded.files.filter((f) => /\/commands/.test(f))).toEqual([]);
    expect(loaded.packages.filter((p) => !p.startsWith('node:'))).toEqual([]);
  });

  it('the two entries share one copy of every module (an error from kubelet-hash/node is a kubelet-hash class)', async () => {
    const root = (await import(pathToFileURL(join(DIST, 'index.js')).href)) as typeof RootEntry;
    const node = (await import(pathToFileURL(join(DIST, 'node.js')).href)) as typeof NodeEntry;
    const error = ((): unknown => {
      try {
        node.parseNodePlan('{');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(root.KubeletHashError);
    // keepNames: the class keeps its own name in the bundle (not a suffixed `OptionError2`).
    expect((error as Error).name).toMatch(/^[A-Za-z]+Error$/);
    expect((error as Error).name).toBe((error as Error).constructor.name);
  });
});
