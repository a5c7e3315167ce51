/**
 * What each kubelet era does with a container, one data row per era (never a switch spread
 * through the encoders). Sources: fixtures/oracle/README.md §1 and the kubelet code it cites.
 */
import type { HashAlgorithmName } from '../models/model.js';

export interface Era {
  readonly firstMinor: number;
  readonly lastMinor: number;
  readonly algorithm: HashAlgorithmName;
  /** `HashContainerWithoutResources` exists (in-place pod vertical scaling, 1.27–1.30). */
  readonly hashWithoutResources: boolean;
  readonly note: string;
}

export const ERAS: readonly Era[] = [
  { firstMinor: 8, lastMinor: 15, algorithm: 'legacy', hashWithoutResources: false, note: 'go-spew %#v of the v1.Container struct value' },
  { firstMinor: 16, lastMinor: 26, algorithm: 'json', hashWithoutResources: false, note: 'go-spew %#v of json.Marshal(container) bytes (kubernetes#57741)' },
  { firstMinor: 27, lastMinor: 30, algorithm: 'json', hashWithoutResources: true, note: 'adds HashContainerWithoutResources (kubernetes#102884)' },
  { firstMinor: 31, lastMinor: 36, algorithm: 'name-image', hashWithoutResources: false, note: 'hashes only name and image (kubernetes#124220)' },
];

/** Kubernetes 1.30 was the first release built with Go 1.22, whose encoding/json writes `\b` and `\f`. */
export const FIRST_MINOR_BUILT_WITH_GO_1_22 = 30;

/** Sidecars (restartable init containers) are restarted on a spec hash change from this minor on. */
export const FIRST_MINOR_RESTARTING_SIDECARS_ON_HASH_CHANGE = 32;

/**
 * Minors whose later patch releases were rebuilt with Go 1.22 in 2024 (the last 1.27.x, late
 * 1.28.x and 1.29.x: kubernetes#125898, #125897, #127604), so their kubelets may write `\b`/`\f`.
 * Which patch switched is not modelled; `identifyReleases` reports such matches with their toolchain.
 */
export const MINORS_WITH_GO_1_22_PATCH_BUILDS: ReadonlySet<number> = new Set([27, 28, 29]);
