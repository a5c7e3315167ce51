/**
 * The kubelet facts of every release, resolved from the release files: each delta's `kubelet`
 * section over the facts of the release before it. Cheap (no types are assembled), so the
 * release registry can read it without building any model.
 */
import type { JsonEscapeMode } from './json-escapes.js';
import type { BaseRelease, KubeletFacts, ReleaseDelta } from './dsl.js';

/** One release's complete kubelet facts. */
export interface ResolvedKubeletFacts extends Readonly<KubeletFacts> {
  /** `1.27` */
  readonly version: string;
  /** Escaping of later patch builds made with a newer Go, or null (never inherited). */
  readonly laterPatchJsonEscapes: JsonEscapeMode | null;
}

/** The facts of `base` and of every delta after it, in release order. */
export function resolveKubeletFacts(base: BaseRelease, deltas: readonly ReleaseDelta[]): ResolvedKubeletFacts[] {
  const { laterPatchJsonEscapes, ...inherited } = base.kubelet;
  let current: KubeletFacts = { ...inherited, featureGates: { ...inherited.featureGates } };
  const out = [resolved(base.version, current, laterPatchJsonEscapes)];
  for (const delta of deltas) {
    const { laterPatchJsonEscapes: patch, featureGates, ...changes } = delta.kubelet ?? {};
    current = { ...current, ...changes, featureGates: { ...current.featureGates, ...featureGates } };
    out.push(resolved(delta.version, current, patch));
  }
  return out;
}

function resolved(version: string, facts: KubeletFacts, patch: JsonEscapeMode | undefined): ResolvedKubeletFacts {
  return Object.freeze({
    version,
    ...facts,
    featureGates: Object.freeze({ ...facts.featureGates }),
    laterPatchJsonEscapes: patch ?? null,
  });
}
