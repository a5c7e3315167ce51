/**
 * The Go type model and kubelet facts of every supported kubelet release, from the TypeScript
 * release files (base 1.8 plus one delta per release, registered in `releases/index.ts`). Models
 * are assembled the first time any is asked for; facts are resolved without assembling types.
 */
import { resolveKubeletFacts, type ResolvedKubeletFacts } from './kubelet-facts.js';
import type { ReleaseModel } from './model.js';
import { assembleReleases } from './releases/assemble.js';
import { BASE_RELEASE, RELEASE_DELTAS } from './releases/index.js';

/** Every release with a model, ascending (`'1.8'` first). */
export const MODEL_VERSIONS: readonly string[] = Object.freeze([
  BASE_RELEASE.version,
  ...RELEASE_DELTAS.map((delta) => delta.version),
]);

let models: ReadonlyMap<string, ReleaseModel> | undefined;
let facts: readonly ResolvedKubeletFacts[] | undefined;

/**
 * The deep-frozen model of one minor release (`'1.27'`). Throws a plain `Error` for an unknown
 * version; the release registry turns that into its typed error.
 */
export function releaseModel(version: string): ReleaseModel {
  models ??= new Map(assembleReleases(BASE_RELEASE, RELEASE_DELTAS).map((m) => [m.version, m]));
  const model = models.get(version);
  if (!model) {
    throw new Error(`no Go type model for Kubernetes ${version}; models exist for ${MODEL_VERSIONS.join(', ')}`);
  }
  return model;
}

/** The kubelet facts of every release, in {@link MODEL_VERSIONS} order. */
export function releaseFacts(): readonly ResolvedKubeletFacts[] {
  return (facts ??= Object.freeze(resolveKubeletFacts(BASE_RELEASE, RELEASE_DELTAS)));
}
