/**
 * The layers, checked mechanically: every folder sits on a floor and imports only from its own floor
 * or below; the engine never imports a front end; a room with an index.ts (every front end but cli/,
 * and releases/, manifests/, bbolt/) is reached from elsewhere only through it; only src/hash/ knows
 * the fused hashers; the root entry's module graph and the plan room's import no Node built-in; and
 * no module imports itself back in a circle. ARCHITECTURE.md's diagram of the floors is the FLOORS
 * below, its naming rule holds for the public functions, and test/ mirrors src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeOf, importGraph, moduleName, reachable, sourceFiles } from './support/module-graph.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(REPO, 'src');

/** Front ends: built on the engine, never imported by it. */
const FRONT_ENDS = new Set([
  'hash-api',
  'kubelet',
  'explain',
  'runtime-records',
  'stores',
  'defaults',
  'plan',
  'node-upgrade',
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
  ['decode', 'encode', 'manifests'],
  ['releases', 'pod'],
  ['hash'],
  ['hash-api', 'explain', 'defaults', 'runtime-records', 'discovery'],
  ['kubelet', 'stores'],
  ['plan', 'workloads'],
  ['node-upgrade'],
  ['fleet'],
  ['cli', 'conformance'],
];
const ENTRIES = new Set(['index.ts', 'node.ts']);
/** Engine rooms whose public surface is an index.ts too (the rest are reached module by module). */
const INDEXED_ENGINE_ROOMS = ['releases', 'manifests', 'bbolt'];
const floorOf = (module: string): number => FLOORS.findIndex((f) => f.includes(folderOf(module)));

/** Node built-ins a module imports (`node:fs`, also the bare `fs` spelling). */
function builtinsOf(file: string): string[] {
  const specs = [...codeOf(file).matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^'.][^']*)'/g)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('node:') || builtinModules.includes(s));
}

/** Relative imports of a module (value and type imports, re-exports, dynamic imports). */
function importsOf(file: string): string[] {
  const text = codeOf(file);
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1]!);
  return specs.map((s) => posix.normalize(posix.join(posix.dirname(moduleName(file)), `${s}.ts`)));
}

const folderOf = (module: string): string => (module.includes('/') ? module.split('/')[0]! : '');

const graph = importGraph(importsOf);
const builtins = importGraph(builtinsOf);

/** Every module `entry` loads, itself included. */
const moduleGraph = (entry: string): Set<string> => reachable(graph, entry);

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

  it('every front end but cli/, and the engine rooms named above, has an index.ts: its whole public surface', () => {
    // cli/ is a program, not a library room: nothing imports it, its door is main.ts.
    const rooms = [...FRONT_ENDS].filter((r) => r !== 'cli');
    const missing = [...rooms, ...INDEXED_ENGINE_ROOMS].filter((r) => !graph.has(`${r}/index.ts`));
    expect(missing).toEqual([]);
  });

  it('a room with an index.ts is reached from another room, or an entry, only through it', () => {
    const doors = new Set([...graph.keys()].filter((m) => /^[\w-]+\/index\.ts$/.test(m)).map(folderOf));
    expect([...doors]).toEqual(expect.arrayContaining(['plan', 'node-upgrade', 'manifests', 'releases', 'bbolt']));
    const bad = [...graph].flatMap(([m, deps]) =>
      deps
        .filter((d) => doors.has(folderOf(d)) && folderOf(d) !== folderOf(m) && d !== `${folderOf(d)}/index.ts`)
        .map((d) => `${m} → ${d}`),
    );
    expect(bad).toEqual([]);
  });

  it('the plan room imports no Node built-in, and the root entry takes it (the node entry the node room)', () => {
    const reached = moduleGraph('plan/index.ts');
    expect(reached.size).toBeGreaterThan(20);
    expect([...reached].flatMap((m) => (builtins.get(m) ?? []).map((b) => `${m} → ${b}`))).toEqual([]);
    // The node room is where the files, locks and runtimes are: the check above could fail.
    expect(
      [...moduleGraph('node-upgrade/index.ts')].some(
        (m) => folderOf(m) === 'node-upgrade' && (builtins.get(m) ?? []).length > 0,
      ),
    ).toBe(true);
    expect(graph.get('index.ts')).toContain('plan/index.ts');
    expect(graph.get('node.ts')).toContain('node-upgrade/index.ts');
    expect([...moduleGraph('index.ts')].filter((m) => folderOf(m) === 'node-upgrade')).toEqual([]);
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

/** The rows of ARCHITECTURE.md's floor diagram, bottom up: the rooms each numbered row names. */
function diagramFloors(): { numbers: number[]; floors: string[][]; frontEndsFrom: number } {
  const doc = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The rooms'));
  const open = section.indexOf('```') + 3;
  const lines = section.slice(open, section.indexOf('```', open)).split('\n');
  const rows = lines
    .flatMap((line, at) => {
      const row = /^ (\d+) +(.*)$/.exec(line);
      // The rooms come before the row's parenthesised note: `hash/  (… fused/ …)`; errors.ts is room ''.
      const rooms = row?.[2]!.replace(/\(.*$/, '');
      return row
        ? [
            {
              at,
              n: Number(row[1]),
              rooms: [...rooms!.matchAll(/([a-z][a-z-]*)(\/|\.ts)/g)].map((m) => (m[2] === '.ts' ? '' : m[1]!)),
            },
          ]
        : [];
    })
    .reverse();
  const divider = lines.findIndex((l) => l.includes('front ends above, engine below'));
  return {
    numbers: rows.map((r) => r.n),
    floors: rows.map((r) => r.rooms),
    frontEndsFrom: rows.findIndex((r) => r.at < divider),
  };
}

describe('ARCHITECTURE.md draws the floors the test enforces', () => {
  const { numbers, floors, frontEndsFrom } = diagramFloors();

  it('one diagram row per floor, the same rooms, bottom up', () => {
    expect(floors.length).toBeGreaterThan(5);
    expect(numbers).toEqual(floors.map((_, i) => i));
    expect(floors.map((f) => [...f].sort())).toEqual(FLOORS.map((f) => [...f].sort()));
  });

  it('the front ends are the rooms above the divider', () => {
    expect([...new Set(floors.slice(frontEndsFrom).flat())].sort()).toEqual([...FRONT_ENDS].sort());
  });

  it('names every folder of src/', () => {
    const folders = readdirSync(ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !floors.flat().includes(f))).toEqual([]);
  });
});

/**
 * Where a test lives (CONTRIBUTING.md): test/<room>/ for a room of src/, test/api/ for the public
 * entries (src/index.ts, src/node.ts, src/errors.ts and their documentation), test/real/ for the
 * `*.integration.test.ts` suites against real systems; this file checks the layout itself.
 */
const TEST = join(REPO, 'test');
const CROSS_CUTTING = ['api', 'real'];
const SUPPORT = ['support', 'fixtures'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? SUPPORT.includes(e.name) && dir === TEST
        ? []
        : testFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [relative(TEST, join(dir, e.name)).split('\\').join('/')]
        : [],
  );
}

describe('test/ mirrors src/', () => {
  const rooms = readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const files = testFiles(TEST);

  it('every test file lives in test/<room>/ of a src/ room, test/api/ or test/real/', () => {
    expect(files.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(80);
    const misplaced = files.filter((f) => {
      if (f === 'architecture.test.ts') return false;
      const [room, ...rest] = f.split('/');
      return rest.length !== 1 || !(rooms.includes(room!) || CROSS_CUTTING.includes(room!));
    });
    expect(misplaced, 'place these by CONTRIBUTING.md "Where a test lives"').toEqual([]);
  });

  /**
   * Suites named before the rule below, each across several modules or named for what it checks:
   * the list only shrinks (rename one to its module's name with `git mv` and drop it here).
   */
  const NAMED_BEFORE_THE_RULE = new Set([
    'decode/go-semantics.test.ts',
    'discovery/cri-sandboxes.test.ts',
    'encode/deep-properties.test.ts',
    'fleet/least-privilege.test.ts',
    'fleet/openapi-validator.test.ts',
    'hash/go-differential.test.ts',
    'hash/properties.test.ts',
    'hash/served-hash.test.ts',
    'hash/vectors.test.ts',
    'kubelet/pod-decision-inputs.test.ts',
    'models/legacy-properties.test.ts',
    'models/release-1-37.test.ts',
    'runtime-records/runtime-properties.test.ts',
    'stores/crash-points.test.ts',
    'stores/runtime-during-write.test.ts',
    'stores/store-attempts.test.ts',
    'stores/store-safety.test.ts',
    'workloads/workload-scenarios.test.ts',
  ]);

  /** A room's modules and folders by the names a test takes: `fused/text.ts` is `fused-text` (and `fused`). */
  function moduleNames(room: string): Set<string> {
    const names = new Set<string>();
    const walk = (dir: string, prefix: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) {
          names.add(prefix + e.name);
          walk(join(dir, e.name), `${prefix}${e.name}-`);
        } else if (e.name.endsWith('.ts')) names.add(prefix + e.name.slice(0, -3));
      }
    };
    walk(join(ROOT, room), '');
    return names;
  }

  it("a room's test file is named after one of its modules (`<module>.test.ts`, `<module>-<aspect>.test.ts`) or the room", () => {
    const unnamed = files.filter((f) => {
      const [room, name] = f.split('/');
      if (name === undefined || !name.endsWith('.test.ts') || CROSS_CUTTING.includes(room!)) return false;
      const base = name.slice(0, -'.test.ts'.length);
      const names = [...moduleNames(room!), room!];
      return !names.some((m) => base === m || base.startsWith(`${m}-`)) && !NAMED_BEFORE_THE_RULE.has(f);
    });
    expect(unnamed, 'name a new test file after the module it tests').toEqual([]);
    // The exceptions exist (a renamed file is dropped from the list, not left behind).
    expect([...NAMED_BEFORE_THE_RULE].filter((f) => !files.includes(f))).toEqual([]);
  });

  it('the real-system suites, and only they, live in test/real/', () => {
    const integration = files.filter((f) => f.endsWith('.integration.test.ts'));
    expect(integration.length).toBeGreaterThan(5);
    expect(integration.filter((f) => !f.startsWith('real/'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('real/') && !f.endsWith('.integration.test.ts'))).toEqual([]);
  });
});

/**
 * ARCHITECTURE.md's naming rule, over every public function of both entries: a result is named
 * `…Result`/`…Report`/`…Plan`/`…Prediction`/`…Explanation` (the pure lookups the rule names return
 * the noun they are named by), and a single release is passed as `{ kubeletVersion }`.
 */
describe('the naming rule', () => {
  const doc = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');
  const rule = doc.slice(doc.indexOf('**Naming rule.**'), doc.indexOf('## Adding a kubelet release'));
  const suffixes = [
    ...rule.slice(rule.indexOf("a result's"), rule.indexOf('an input shape')).matchAll(/`…([A-Z]\w+)`/g),
  ].map((m) => m[1]!);
  const lookups = [...rule.slice(rule.indexOf('pure lookups'), rule.indexOf('renaming them')).matchAll(/`(\w+)`/g)].map(
    (m) => m[1]!,
  );
  /**
   * Lookups keyed by the release itself (`releaseInfo('1.31')`): the release is what is looked up,
   * not an option of a computation, so it comes first.
   */
  const KEYED_BY_RELEASE = new Set(['releaseInfo', 'kubeletToolchain', 'kubelet']);
  /** The kubelet handle: its own `version` and `release` are what it resolved, not a release passed in. */
  const HANDLES = new Set(['Kubelet', 'KubeletRelease']);

  const program = ts.createProgram([join(ROOT, 'index.ts'), join(ROOT, 'node.ts')], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const functions = ['index.ts', 'node.ts'].flatMap((entry) => {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, entry))!)!;
    return checker.getExportsOfModule(module).flatMap((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & ts.SymbolFlags.Function)) return [];
      const at = symbol.declarations![0]!;
      const signatures = checker.getTypeOfSymbolAtLocation(symbol, at).getCallSignatures();
      return [{ name: exported.name, at, signatures }];
    });
  });

  it('reads the rule and the public functions', () => {
    expect(suffixes).toEqual(expect.arrayContaining(['Result', 'Report', 'Plan']));
    expect(lookups).toContain('releaseInfo');
    expect(functions.length).toBeGreaterThan(30);
    expect(functions.map((f) => f.name)).toEqual(expect.arrayContaining(['hashContainer', 'verifyNode']));
  });

  it('an object a function returns is named with a result suffix', () => {
    const bad = functions.flatMap(({ name, signatures }) =>
      signatures.flatMap((sig) => {
        const returned = sig.getReturnType();
        // An async function's result is what its Promise holds.
        const type =
          returned.getSymbol()?.getName() === 'Promise'
            ? checker.getTypeArguments(returned as ts.TypeReference)[0]!
            : returned;
        // Arrays are lists of things (`ReleaseMatch[]`), unions and primitives are values; a
        // `Record<string, unknown>` is a Kubernetes object handed back (the defaulted container).
        if (!(type.flags & ts.TypeFlags.Object) || checker.isArrayType(type) || lookups.includes(name)) return [];
        const text = checker.typeToString(type);
        if (text === 'Record<string, unknown>' || KEYED_BY_RELEASE.has(name)) return [];
        return suffixes.some((s) => text.endsWith(s)) ? [] : [`${name} returns ${text}`];
      }),
    );
    expect(bad).toEqual([]);
  });

  it('a single release is passed as { kubeletVersion }', () => {
    const bad = functions.flatMap(({ name, at, signatures }) => {
      // A function may keep an older positional spelling beside the `{ kubeletVersion }` one.
      const takesOptions = signatures.some((sig) =>
        sig.parameters.some((p) =>
          checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, at)).getProperty('kubeletVersion'),
        ),
      );
      return signatures.flatMap((sig) =>
        sig.parameters.flatMap((p) => {
          const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, at));
          const shapes = type.isUnion() ? type.types : [type];
          const positional =
            /version|release/i.test(p.name) && !KEYED_BY_RELEASE.has(name) && !takesOptions
              ? [`${name}(${p.name})`]
              : [];
          // Properties that name one release: `kubelet`, `version`, `release`… of string type. `from`/`to` are two.
          const fields = shapes
            .filter((shape) => !HANDLES.has(checker.typeToString(shape)))
            .flatMap((shape) => checker.getPropertiesOfType(shape))
            .filter((prop) =>
              /^(kubelet|version|release|kubeletRelease|k8sVersion|kubernetesVersion)$/i.test(prop.name),
            )
            .filter((prop) => checker.getTypeOfSymbolAtLocation(prop, at).flags & ts.TypeFlags.String)
            .filter(
              (prop) =>
                !prop.declarations?.some((d) => ts.getJSDocTags(d).some((t) => t.tagName.text === 'deprecated')),
            )
            .map((prop) => `${name}(${p.name}.${prop.name})`);
          return [...positional, ...new Set(fields)];
        }),
      );
    });
    expect(bad).toEqual([]);
  });
});

/**
 * The edges between modules, kept clean (issue 26): no unchecked double cast, no value handed on
 * through another room's module, one declaration per exported name, command modules independent.
 */
describe('the edges', () => {
  const files = sourceFiles();
  const texts = new Map(files.map((f) => [moduleName(f), codeOf(f)]));

  it('src/ has no `as unknown as` (an unchecked cast: type the value instead)', () => {
    // Searched in the text with comments: a cast hidden behind one is still a cast.
    const bad = files.filter((f) => readFileSync(f, 'utf8').includes(' as unknown as ')).map(moduleName);
    expect(bad).toEqual([]);
  });

  it("a value is re-exported only from its own room's modules (the entries excepted): no chain of doors", () => {
    const bad = [...texts]
      .filter(([m]) => !ENTRIES.has(m))
      .flatMap(([m, text]) =>
        [...text.matchAll(/export\s+(\*|\{[^}]*\})\s+from\s+'(\.{1,2}\/[^']+)\.js'/g)].flatMap((e) => {
          const target = posix.normalize(posix.join(posix.dirname(m), `${e[2]!}.ts`));
          if (folderOf(target) === folderOf(m)) return [];
          // Types may pass through a front end's door (`HashOptions` from hash-api/); values are imported where they live.
          const names =
            e[1] === '*'
              ? ['*']
              : e[1]!
                  .slice(1, -1)
                  .split(',')
                  .map((n) => n.trim())
                  .filter(Boolean);
          const values = names.filter((n) => !n.startsWith('type '));
          return values.length > 0 ? [`${m} re-exports ${values.join(', ')} from ${target}`] : [];
        }),
      );
    expect(bad).toEqual([]);
  });

  it('no two modules declare an exported function, class, interface, type or constant of one name', () => {
    const where = new Map<string, string[]>();
    for (const [m, text] of texts) {
      if (ENTRIES.has(m)) continue;
      const names = new Set(
        [
          ...text.matchAll(
            /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|interface|type|const|enum)\s+([A-Za-z_$][\w$]*)/gm,
          ),
        ].map((d) => d[1]!),
      );
      for (const n of names) where.set(n, [...(where.get(n) ?? []), m]);
    }
    expect(where.get('hashContainer')).toEqual(['hash-api/hash.ts']);
    const bad = [...where].filter(([, ms]) => ms.length > 1).map(([n, ms]) => `${n}: ${ms.join(', ')}`);
    expect(bad).toEqual([]);
  });

  it('a CLI command module imports no other command module (shared options live in modules of their own)', () => {
    const isCommands = (m: string): boolean => /^cli\/commands(-[a-z]+)?\.ts$/.test(m);
    const commandModules = [...graph.keys()].filter(isCommands);
    expect(commandModules.length).toBeGreaterThan(5);
    const bad = commandModules.flatMap((m) =>
      graph
        .get(m)!
        .filter(isCommands)
        .map((d) => `${m} → ${d}`),
    );
    expect(bad).toEqual([]);
  });
});

describe('the root documents a newcomer reads', () => {
  const bytes = (file: string): number => Buffer.byteLength(readFileSync(join(REPO, file), 'utf8'));

  it('README.md is at most 12 KB and opens with the two setup commands', () => {
    expect(bytes('README.md')).toBeLessThanOrEqual(12 * 1024);
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock.split('\n').map((l) => l.split('#')[0]!.trim())).toEqual(['npm ci && npm start', 'npm test', '']);
    // What left the README lives on where it links to.
    for (const target of ['bench/README.md', 'docs/development.md', 'docs/controllers.md', 'docs/node-agents.md'])
      expect(readme, target).toContain(`](${target}`);
  });

  it('ARCHITECTURE.md is a map of at most 15 KB: one line per room, whose README.md is beside its code', () => {
    expect(bytes('ARCHITECTURE.md')).toBeLessThanOrEqual(15 * 1024);
    const map = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');
    const lines = [...map.matchAll(/^\| `src\/([\w-]+)\/` \|.*\[README\]\(src\/\1\/README\.md\) \|$/gm)].map(
      (m) => m[1]!,
    );
    const rooms = readdirSync(join(REPO, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    // One line for every room, each with its README.
    expect([...lines].sort()).toEqual([...rooms].sort());
    for (const r of rooms) expect(bytes(`src/${r}/README.md`), r).toBeGreaterThan(100);
  });

  it('CHANGELOG.md starts at the first release: one entry', () => {
    const changelog = readFileSync(join(REPO, 'CHANGELOG.md'), 'utf8');
    expect([...changelog.matchAll(/^## \[/gm)]).toHaveLength(1);
  });
});
