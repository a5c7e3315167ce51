/**
 * esbuild plugins shared by the two bundles of the CLI (`npm run build` into dist/,
 * `npm run build:exe` into one executable): modules that read a file beside the package at run time
 * get the file's content written in at build time instead. A bundled module no longer sits where its
 * source did (it may land in a shared chunk), so a path relative to `import.meta.url` would miss, and
 * the executable has no package beside it at all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

/** version.ts reads package.json at run time; the bundle carries the version instead. */
export function toolVersionPlugin(root: string): Plugin {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return {
    name: 'tool-version',
    setup(b) {
      b.onLoad({ filter: /src[\\/]cli[\\/]version\.ts$/ }, () => ({
        contents: `export function toolVersion(): string { return ${JSON.stringify(version)}; }`,
        loader: 'ts',
      }));
    },
  };
}

/** The `example` command's pod (examples/pod.json), written into the bundle. */
export function examplePodPlugin(root: string): Plugin {
  const examplePod = readFileSync(join(root, 'examples', 'pod.json'), 'utf8');
  return {
    name: 'example-pod',
    setup(b) {
      b.onLoad({ filter: /src[\\/]cli[\\/]example-pod\.ts$/ }, () => ({
        contents: `export function examplePodText(): string { return ${JSON.stringify(examplePod)}; }`,
        loader: 'ts',
      }));
    },
  };
}
