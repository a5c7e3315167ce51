/**
 * Whether OpenKruise will see an in-place update as done. kruise-manager's
 * defaultCheckContainersInPlaceUpdateCompleted compares, per container, the hash kruise-daemon
 * read from the runtime (the one the node's kubelet stored) with the hash Kruise computes itself
 * from the new spec: with the HashContainer of the Kubernetes release it vendors, and from v1.9
 * also the JSON form of 1.16–1.30 kubelets. When no form matches it falls back to image IDs: a
 * tag moved to the same digest then never reads as updated (openkruise/kruise#2297).
 *
 * Read at OpenKruise v1.8.2 (go.mod: k8s.io/kubernetes v1.30.10; HashContainer only) and v1.9.0
 * (k8s.io/kubernetes v1.32.10; HashContainer, or its own JSON hashContainer); other releases
 * are not modelled, so no answer is given for them.
 */
import { hashContainer } from '../hash-api/index.js';
import type { RestartPrediction } from '../kubelet/index.js';

/**
 * What OpenKruise makes of one container restarted by an in-place update: whether its readiness
 * check finds the hash the node's kubelet stored among the hashes it computes.
 *
 * @example
 * ```ts
 * import { predictRollout, type KruiseReadiness } from 'kubelet-hash';
 * const cs = (image: string) => ({
 *   apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' },
 *   spec: { updateStrategy: { type: 'InPlaceIfPossible' }, template: { spec: { containers: [{ name: 'web', image }] } } },
 * });
 * const on = (kubeletVersion: string): KruiseReadiness[] =>
 *   predictRollout(cs('nginx:1'), cs('nginx:2'), { kubeletVersion, openKruise: { version: 'v1.8' } }).kruiseReadiness ?? [];
 * on('1.30').map((r) => r.hashMatches); // → [true]
 * on('1.31').map((r) => r.hashMatches); // → [false]
 * ```
 *
 * @group Kubelet decisions
 */
export interface KruiseReadiness {
  /** The container's name. */
  name: string;
  /** The hash the node's kubelet stores on the new container (what kruise-daemon reports). */
  kubeletHash: string;
  /** The hashes OpenKruise computes from the spec, by form (`HashContainer of Kubernetes 1.30`, …). */
  kruiseHashes: {
    /** How OpenKruise computes it (`HashContainer of the vendored Kubernetes 1.30`, the JSON form). */
    form: string;
    /** The hash, as the kubelet prints stored hashes. */
    hash: string;
  }[];
  /** true: a form matches, the update reads as done; false: Kruise falls back to image IDs. */
  hashMatches: boolean;
  /**
   * Whether this update changed the container's image. The image-ID fallback waits only for such
   * containers (LastContainerStatuses, pkg/util/inplaceupdate/inplace_update_defaults.go:144 (v1.8.2),
   * :146 (v1.9.0)): one restarted for another reason (a resize) reads as done without a hash match.
   */
  imageChanged: boolean;
  /** The answer for people. */
  reason: string;
}

/** The hash forms of a Kruise minor release: the Kubernetes release whose hash each form computes. */
const FORMS: Readonly<Record<number, readonly { form: string; release: string }[]>> = {
  8: [{ form: 'HashContainer of the vendored Kubernetes 1.30', release: '1.30' }],
  9: [
    { form: 'HashContainer of the vendored Kubernetes 1.32', release: '1.32' },
    // The container's JSON, FNV-32a: the 1.16–1.30 kubelets' form (1.30's model stands for v0.32's API types).
    { form: 'JSON hash (hashContainer, as 1.16–1.30 kubelets)', release: '1.30' },
  ],
};

/**
 * Per container the kubelet restarts (`k`), whether Kruise `kruiseMinor` sees it as updated;
 * null for a Kruise release not modelled. `containers` are the new spec's containers by name.
 */
export function kruiseReadiness(
  kruiseMinor: number,
  k: RestartPrediction,
  containers: ReadonlyMap<string, unknown>,
): KruiseReadiness[] | null {
  const forms = FORMS[kruiseMinor];
  if (!forms) return null;
  const out: KruiseReadiness[] = [];
  for (const c of k.containers) {
    if (c.action !== 'restart' || c.list !== 'containers' || c.expectedHash === undefined) continue;
    const spec = containers.get(c.name);
    // The kubelet's prediction has decoded this container already; anything else is not one.
    if (spec === undefined || spec === null || typeof spec !== 'object') continue;
    const kruiseHashes = forms.map((f) => ({ form: f.form, hash: hashContainer(spec, { kubeletVersion: f.release }) }));
    const matched = kruiseHashes.find((h) => h.hash === c.expectedHash);
    const imageChanged = c.changes.includes('.image');
    const computed = `the kubelet ${k.release} stores ${c.expectedHash}; OpenKruise v1.${kruiseMinor} computes ${kruiseHashes.map((h) => `${h.hash} (${h.form})`).join(', ')}: no match, so it compares image IDs`;
    out.push({
      name: c.name,
      kubeletHash: c.expectedHash,
      kruiseHashes,
      hashMatches: matched !== undefined,
      imageChanged,
      reason: matched
        ? `the kubelet ${k.release} stores ${c.expectedHash}, which OpenKruise v1.${kruiseMinor} computes too (${matched.form}): InPlaceUpdateReady once the container runs`
        : imageChanged
          ? `${computed} — an image whose digest did not change (a tag moved to the same image) leaves InPlaceUpdateReady false for good (openkruise/kruise#2297)`
          : `${computed}, only of containers whose image this update changed: not this one (restarted for another reason), so it reads as done once it runs`,
    });
  }
  return out;
}
