/**
 * zod and yaml, loaded the first time a call needs them rather than when the package is imported:
 * together they were three quarters of `import('kubelet-hash')`, and hashing a well-formed
 * container needs neither (options of the right shape skip zod; JSON input skips YAML).
 *
 * The calls that need them are synchronous (`hashContainer` with bad options, `readDocuments` of
 * YAML), and an ES module cannot be imported synchronously, so in a runtime with
 * `process.getBuiltinModule` (Node 20.16+, Bun, Deno) the module is `require`d: zod by the path
 * its `import` condition names, which `require(esm)` (Node 20.19+) loads as the same module
 * instance a static `import 'zod'` elsewhere gets; yaml is CommonJS, so its `require` is that
 * instance anyway. Nothing here imports a Node built-in, so the root entry stays runtime-neutral: a
 * runtime without `getBuiltinModule` (a browser) starts both imports when this module loads and
 * uses them once they have arrived. The single executable bundles both (scripts/build-exe.ts
 * replaces this module with static imports).
 */
import type * as Yaml from 'yaml';
import type * as Zod from 'zod';

type ZodModule = typeof Zod;
type YamlModule = typeof Yaml;

interface NodeModuleApi {
  createRequire(from: string): { (id: string): unknown; resolve(id: string): string };
}
interface NodeUrlApi {
  fileURLToPath(url: string): string;
}
interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

const builtin = (globalThis as { process?: ProcessWithBuiltins }).process?.getBuiltinModule;
const nodeRequire = builtin ? (builtin('node:module') as NodeModuleApi).createRequire(import.meta.url) : undefined;

/**
 * A runtime without a synchronous require: both start loading now, in the background. Pure, so
 * a bundle that never reads a schema or YAML drops this and carries neither package.
 */
const early = /* @__PURE__ */ startLoading();
function startLoading(): { zod?: ZodModule; yaml?: YamlModule } {
  const loaded: { zod?: ZodModule; yaml?: YamlModule } = {};
  if (nodeRequire === undefined) {
    void import('zod').then((m) => (loaded.zod = m));
    void import('yaml').then((m) => (loaded.yaml = m));
  }
  return loaded;
}

let zodModule: ZodModule | undefined;
let yamlModule: YamlModule | undefined;

function notLoaded(name: string): Error {
  return new Error(
    `kubelet-hash: ${name} has not finished loading in this runtime (it has no process.getBuiltinModule); ` +
      `await import('${name}') once before the first call`,
  );
}

/** The path `import 'zod'` resolves to from here (its ES module build), for `require(esm)`. */
function esmPath(id: string): string {
  const resolve = (import.meta as { resolve?: (id: string) => string }).resolve;
  const url = resolve?.(id);
  if (url === undefined || !url.startsWith('file:')) return nodeRequire!.resolve(id);
  return (builtin!('node:url') as NodeUrlApi).fileURLToPath(url);
}

/** zod, loaded on first use. */
export function zodNow(): ZodModule {
  if (zodModule !== undefined) return zodModule;
  zodModule = nodeRequire ? (nodeRequire(esmPath('zod')) as ZodModule) : early.zod;
  if (zodModule === undefined) throw notLoaded('zod');
  return zodModule;
}

/** The yaml package, loaded on first use (only YAML input needs it). */
export function yamlNow(): YamlModule {
  if (yamlModule !== undefined) return yamlModule;
  yamlModule = nodeRequire ? (nodeRequire('yaml') as YamlModule) : early.yaml;
  if (yamlModule === undefined) throw notLoaded('yaml');
  return yamlModule;
}

/** The `z` namespace a {@link lazySchema} builder is handed. */
export type ZodApi = ZodModule['z'];

/**
 * A zod schema built on first use and kept: `const schema = lazySchema((z) => z.object({ … }))`,
 * then `schema()` where it is parsed. Building schemas at module level would load zod at import.
 */
export function lazySchema<T>(build: (z: ZodApi) => T): () => T {
  let built: T | undefined;
  return () => (built ??= build(zodNow().z));
}
