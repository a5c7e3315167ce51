/**
 * `npm run build`: the published dist/. tsc writes the declarations (`tsconfig.build.json`,
 * declarations only) and checks the types; esbuild writes the JavaScript, bundled, because the ES
 * module loader pays for every file it resolves, reads and compiles: as 139 modules
 * `import('kubelet-hash')` cost about 160 ms over bare Node, almost all of it in the loader, and
 * bundled it costs a fraction of that (bench/README.md "Start-up", `bench/start-up.ts`).
 *
 * The three entries (`dist/index.js`, `dist/node.js`, the `dist/cli/main.js` bin) are one build
 * with code splitting, so `kubelet-hash` and `kubelet-hash/node` share one copy of every module
 * (one `KubeletHashError`, one cache per release) and each CLI command stays a chunk of its own that
 * loads only when it runs (`import()` in `cli/command-index.ts`). Dependencies stay packages
 * (`packages: 'external'`): zod and yaml are still loaded on first use by `src/on-demand.ts`.
 *
 * Usage: tsx scripts/build.ts   (also run by vitest's globalSetup, test/support/build-cli.ts)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { examplePodPlugin, toolVersionPlugin } from './bundle-plugins.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The published entries, as package.json `exports` and `bin` name them (under dist/). */
export const DIST_ENTRIES = ['src/index.ts', 'src/node.ts', 'src/cli/main.ts'] as const;

/**
 * Writes every module-level `lazySchema(…)` out as pure (`/* @__PURE__ *\/`): in a chunk, modules
 * are merged, so a controller's bundler can drop an unused schema (and zod with it) only by that
 * mark (test/api/controller-bundle.test.ts). esbuild's `pure` option applies to global names only.
 */
function pureSchemasPlugin(): Plugin {
  return {
    // After the version and example plugins (the first onLoad that answers wins).
    name: 'pure-schemas',
    setup(b) {
      b.onLoad({ filter: /src[\\/].*\.ts$/ }, ({ path }) => ({
        contents: readFileSync(path, 'utf8').replace(
          /^((?:export )?const [^\n]*?=\s*)lazySchema\(/gm,
          '$1/* @__PURE__ */ lazySchema(',
        ),
        loader: 'ts',
      }));
    },
  };
}

export async function buildDist(root = ROOT): Promise<void> {
  // A clean directory: a file left from an earlier layout would be packed and published.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  await build({
    absWorkingDir: root,
    entryPoints: [...DIST_ENTRIES],
    outbase: 'src',
    outdir: 'dist',
    // Shared code in chunks beside the CLI's folder: `dist/chunks/…`.
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // tsconfig.json's target: the same class-field and syntax semantics as the type-checked source.
    target: 'es2022',
    packages: 'external',
    // No keepNames: its `__name(f, "f")` after every function is a call a controller's bundler must
    // keep, so nothing in a chunk could be dropped (predictRestarts bundled to 738 KB with zod and
    // yaml). The public classes and functions keep their names anyway (only a clash renames, and
    // test/api/controller-bundle.test.ts holds every export of the entries to its own name).
    logLevel: 'warning',
    plugins: [toolVersionPlugin(root), examplePodPlugin(root), pureSchemasPlugin()],
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await buildDist();
