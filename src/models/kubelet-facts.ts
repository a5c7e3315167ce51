/**
 * The kubelet facts of every release, resolved from the release files: each delta's `kubelet`
 * section over the facts of the release before it. Cheap (no types are assembled), so the
 * release registry can read it without building any model.
 */
import {
  REMOVED,
  type BaseRelease,
  type GateChanges,
  type GateName,
  type KubeletFacts,
  type PatchToolchain,
  type ReleaseDelta,
} from './dsl.js';

/** One release's complete kubelet facts. */
export interface ResolvedKubeletFacts extends Readonly<KubeletFacts> {
  /** `1.27` */
  readonly version: string;
  /** The newer Go of later patch builds, or null (never inherited). */
  readonly laterPatchToolchain: PatchToolchain | null;
}

/** The facts of `base` and of every delta after it, in release order. */
export function resolveKubeletFacts(base: BaseRelease, deltas: readonly ReleaseDelta[]): ResolvedKubeletFacts[] {
  const { laterPatchToolchain, ...inherited } = base.kubelet;
  let current: KubeletFacts = { ...inherited, featureGates: { ...inherited.featureGates } };
  const out = [resolved(base.version, current, laterPatchToolchain)];
  for (const delta of deltas) {
    const { laterPatchToolchain: patch, featureGates, ...changes } = delta.kubelet ?? {};
    current = { ...current, ...changes, ...applyGateChanges(current, featureGates ?? {}, delta.version) };
    out.push(resolved(delta.version, current, patch));
  }
  return out;
}

function applyGateChanges(
  current: KubeletFacts,
  changes: GateChanges,
  version: string,
): Pick<KubeletFacts, 'featureGates' | 'retiredGates'> {
  const featureGates = { ...current.featureGates };
  const retiredGates = [...current.retiredGates];
  const dropped = new Set<GateName>();
  for (const [name, change] of Object.entries(changes) as [GateName, GateChanges[GateName]][]) {
    if (change !== REMOVED) {
      if (change) featureGates[name] = change;
      continue;
    }
    // A deprecated gate, off by default, goes with the behaviour it kept available.
    const gate = featureGates[name];
    if (gate?.stage === 'deprecated' && !gate.default) {
      dropped.add(name);
      continue;
    }
    // Otherwise only a GA gate locked on can go: its behaviour is then the only one.
    if (featureGates[name]?.locked !== true)
      throw new Error(`release ${version}: ${name} is removed before it was GA and locked`);
    retiredGates.push(name);
  }
  const kept = Object.entries(featureGates).filter(
    ([name]) => !retiredGates.includes(name as GateName) && !dropped.has(name as GateName),
  );
  return { featureGates: Object.fromEntries(kept), retiredGates };
}

function resolved(version: string, facts: KubeletFacts, patch: PatchToolchain | undefined): ResolvedKubeletFacts {
  return Object.freeze({
    version,
    ...facts,
    featureGates: Object.freeze({ ...facts.featureGates }),
    retiredGates: Object.freeze([...facts.retiredGates]),
    laterPatchToolchain: patch ?? null,
  });
}
