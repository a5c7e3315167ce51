/**
 * What a controller carries when it bundles the calls it makes: esbuild (as a controller's build
 * would run it) over the published dist/ (vitest's globalSetup builds it), minified, for each of
 * the calls a controller uses. None may carry zod or yaml (the options of these calls are read
 * field by field, src/option-fields.ts; the schemas other calls use are pure and dropped), and
 * each stays under 300 KB. On main before this: 685 KB minified for predictRestarts, 461 KB of
 * it zod and 115 KB yaml.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const DIST_INDEX = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'index.js');
const LIMIT_BYTES = 300 * 1024;
const work = mkdtempSync(join(tmpdir(), 'kh-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The minified bundle of a controller that imports `names` and uses them, with its inputs. */
async function bundle(names: readonly string[]): Promise<{ bytes: number; packages: string[]; text: string }> {
  const entry = join(work, `${names.join('-')}.mjs`);
  writeFileSync(
    entry,
    `import { ${names.join(', ')} } from ${JSON.stringify(DIST_INDEX)};\nconsole.log(${names.join(', ')});\n`,
  );
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const meta: Metafile = result.metafile;
  // A package counts when bytes of it are in the output (an import the bundler dropped does not).
  const packages = new Set<string>();
  for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[Object.keys(meta.outputs)[0]!]!.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m && bytesInOutput > 0) packages.add(m[1]!);
  }
  return {
    bytes: result.outputFiles[0]!.contents.length,
    packages: [...packages].sort(),
    text: result.outputFiles[0]!.text,
  };
}

describe('a controller bundle', () => {
  for (const names of [
    ['predictRestarts'],
    ['containerChanged'],
    ['hashContainer'],
    ['predictRestarts', 'containerChanged', 'hashContainer'],
  ]) {
    it(`${names.join(' + ')}: no zod, no yaml, under 300 KB`, async () => {
      const b = await bundle(names);
      expect(b.packages).toEqual([]);
      expect(b.bytes).toBeLessThan(LIMIT_BYTES);
      // A bundle that has not lost the call: the hashers and release models are in there.
      expect(b.bytes).toBeGreaterThan(60 * 1024);
      expect(b.text).toContain('io.kubernetes.container.hash');
    });
  }

  it('every function and class the entries export keeps its own name in dist/ (built without keepNames)', async () => {
    for (const entry of ['index.js', 'node.js']) {
      const mod = (await import(pathToFileURL(join(dirname(DIST_INDEX), entry)).href)) as Record<string, unknown>;
      const renamed = Object.entries(mod)
        .filter(([, v]) => typeof v === 'function')
        .filter(([name, v]) => (v as { name: string }).name !== name)
        .map(([name, v]) => `${name} is named ${(v as { name: string }).name}`);
      expect(renamed).toEqual([]);
    }
  });

  it('a call whose input is checked by a zod schema (planUpgrade: its records) still carries zod: the test can see zod', async () => {
    const b = await bundle(['planUpgrade']);
    expect(b.packages).toContain('zod');
  });
});
