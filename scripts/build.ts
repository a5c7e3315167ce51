/**
 * `npm run build`: the published dist/. tsc writes the declarations (`tsconfig.build.json`,
 * declarations only) and checks the types; esbuild writes the JavaScript, bundled, because the ES
 * module loader pays for every file it resolves, reads and compiles: as 139 modules
 * `import('kubelet-hash')` cost about 160 ms over bare Node, almost all of it in the loader, and
 * bundled it costs a fraction of that (README "Start-up", `bench/start-up.ts`).
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
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { examplePodPlugin, toolVersionPlugin } from './bundle-plugins.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The published entries, as package.json `exports` and `bin` name them (under dist/). */
export const DIST_ENTRIES = ['src/index.ts', 'src/node.ts', 'src/cli/main.ts'] as const;

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
    // Function and class names as written (stack traces, `new.target.name` of the error classes),
    // not the suffixed names the bundler gives to two top-level functions of the same name.
    keepNames: true,
    logLevel: 'warning',
    plugins: [toolVersionPlugin(root), examplePodPlugin(root)],
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await buildDist();
