/**
 * A kubelet release resolved once: its registry facts, the encoding/json escaping of the Go that
 * built it, its feature gates and its compiled hashers. The `Kubelet` handle (kubelet/kubelet.ts)
 * is this plus the calls; every function that takes a release reads this instead of resolving the
 * version string again, so a controller pays the resolution once, not per container.
 */
import { OptionError, type JsonPathSegment } from '../errors.js';
import type { GateName } from '../models/dsl.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import { releaseInfo, type ReleaseInfo } from '../releases/index.js';
import { fusedHasherFor, type FusedHasher } from './fused/release-hashers.js';
import { patchTableNote } from './options.js';

/**
 * The gates that change the restart rule, resolved for one kubelet (its settings over the release's defaults).
 *
 * @example
 * ```ts
 * import { kubelet, type ResolvedGates } from 'kubelet-hash';
 *
 * const gates: ResolvedGates = kubelet('1.33').gates;
 * [gates.inPlaceResize, gates.sidecars]; // → [true, true]
 * ```
 *
 * @group Kubelet decisions
 */
export interface ResolvedGates {
  /** InPlacePodVerticalScaling on: 1.27–1.30 compare the without-resources hash too. */
  inPlaceResize: boolean;
  /** SidecarContainers on: restartable init containers are sidecars (else plain init containers). */
  sidecars: boolean;
  /** ContainerRestartRules on: a regular container's own restartPolicy (and its rules) decide whether it starts again. */
  containerRestartRules: boolean;
  /** RestartAllContainersOnContainerExits on (and ContainerRestartRules, which it needs): a RestartAllContainers rule restarts every container. */
  restartAllContainers: boolean;
  /**
   * InPlacePodLevelResourcesVerticalScaling on (with PodLevelResources and InPlacePodVerticalScaling,
   * its dependencies): a container without its own limit is resized, or restarted, with the pod's.
   */
  podLevelResize: boolean;
  /** LegacySidecarContainers on (1.33 only): a pod without a sidecar takes the old init-container path. */
  legacySidecars: boolean;
  /** The kubelet changes started and ready status over its own restart: always before 1.35, from 1.35 only with ChangeContainerStatusOnKubeletRestart. */
  statusOnRestart: boolean;
}

/** What the kubelet handle's factory resolved, handed to {@link KubeletRelease}'s constructor. */
export interface ResolvedRelease {
  version: string;
  info: ReleaseInfo;
  jsonEscapes: JsonEscapeMode | undefined;
  toolchain: string | undefined;
  featureGates: Partial<Record<GateName, boolean>>;
  gates: ResolvedGates;
}

/**
 * The release part of a {@link Kubelet} handle: what `kubelet()` resolved once. Functions that take
 * a release accept a handle wherever they accept a version string; create one with `kubelet()`.
 *
 * @example
 * ```ts
 * import { kubelet, hashContainer, KubeletRelease } from 'kubelet-hash';
 *
 * const k = kubelet('v1.29.7');
 * k instanceof KubeletRelease; // → true
 * [k.release, k.jsonEscapes]; // → ['1.29', 'go1.22']
 * hashContainer({ name: 'web', image: 'nginx' }, k) === k.hash({ name: 'web', image: 'nginx' }); // → true
 * ```
 *
 * @group Hashing
 */
export class KubeletRelease {
  /** The version as given (`v1.29.7`, `1.29`…). */
  readonly version: string;
  /** The minor release (`1.29`). */
  readonly release: string;
  /** The registry's facts for the release. */
  readonly info: ReleaseInfo;
  /** The encoding/json escaping hashed with: the caller's, else the patch table's, else the `.0` build's (undefined). */
  readonly jsonEscapes: JsonEscapeMode | undefined;
  /** When the patch table decided the escaping: the sentence saying so (results carry it). */
  readonly toolchain: string | undefined;
  /** The feature gates as given, each read as the kubelet reads it. */
  readonly featureGates: Readonly<Partial<Record<GateName, boolean>>>;
  /** The gates that change the restart rule, resolved against the release's defaults. */
  readonly gates: Readonly<ResolvedGates>;
  /**
   * The release's compiled hashers (compiled on construction).
   *
   * @internal
   */
  readonly hasher: FusedHasher;

  /** @internal Use `kubelet()`. */
  constructor(r: ResolvedRelease) {
    this.version = r.version;
    this.release = r.info.release;
    this.info = r.info;
    this.jsonEscapes = r.jsonEscapes;
    this.toolchain = r.toolchain;
    this.featureGates = Object.freeze({ ...r.featureGates });
    this.gates = Object.freeze({ ...r.gates });
    this.hasher = fusedHasherFor(r.info, r.jsonEscapes);
  }
}

/**
 * Which kubelet a decision is for: a `kubelet()` handle, or its version (with `jsonEscapes` and the
 * call's `featureGates`, the option form). One of `kubelet` and `kubeletVersion` is required.
 *
 * @example
 * ```ts
 * import { containerChanged, kubelet, type KubeletChoice } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27' };
 * const choices: KubeletChoice[] = [{ kubelet: kubelet('1.29') }, { kubeletVersion: '1.29' }];
 * choices.map((c) => containerChanged(web, { hash: '371a981f' }, c).changed); // → [false, false]
 * ```
 *
 * @group Kubelet decisions
 */
export interface KubeletChoice {
  /** The kubelet's version: `1.27`, `1.27.4`, `v1.27.4`, a node's `v1.27.4-eks-…`, or `kubelet --version`'s text. */
  kubeletVersion?: string;
  /** A `kubelet()` handle (release, escapes and gates resolved once): then no `kubeletVersion`, `jsonEscapes` or `featureGates` beside it. */
  kubelet?: KubeletRelease;
  /** encoding/json BS/FF escaping of the kubelet's Go build (see `HashOptions.jsonEscapes`). */
  jsonEscapes?: JsonEscapeMode;
}

/**
 * The two releases of a crossing (translateHash, explainHashChange, planUpgrade), defined once: each
 * a version string or a {@link Kubelet} handle, with the string form's escaping beside it.
 *
 * @example
 * ```ts
 * import { kubelet, translateHash, type ReleasePair } from 'kubelet-hash';
 *
 * const pair: ReleasePair = { from: kubelet('1.30'), to: '1.31' };
 * translateHash({ name: 'web', image: 'nginx:1.27' }, pair); // → 'e220f96'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface ReleasePair {
  /** The release that wrote the stored hashes (`1.29`, `v1.29.4`…, or a handle). */
  from: string | KubeletRelease;
  /** The release the node moves to. */
  to: string | KubeletRelease;
  /** encoding/json BS/FF escaping of the `from` kubelet's Go build (string form only); defaults to the Go that built it (patch table, else the `.0` build). */
  fromJsonEscapes?: JsonEscapeMode;
  /** The same for the `to` kubelet. */
  toJsonEscapes?: JsonEscapeMode;
}

/** One side of a {@link ReleasePair}, resolved. */
export interface ReleaseSide {
  info: ReleaseInfo;
  /** The escaping hashed with (undefined: the `.0` build's). */
  escapes: JsonEscapeMode | undefined;
  /** The patch table's sentence when it decided the escaping. */
  toolchain?: string;
  /** The handle given, if one was. */
  handle?: KubeletRelease;
}

/** A field rule (option-fields.ts) for `from`/`to`: a version string or a handle. */
const RELEASE_FIELD = {
  test: (v: unknown): boolean => typeof v === 'string' || v instanceof KubeletRelease,
  expected: 'a kubelet version string such as "1.29" or a kubelet() handle',
} as const;

/** The {@link ReleasePair} fields, for `readOptionFields`. */
export const RELEASE_PAIR_FIELDS = {
  from: RELEASE_FIELD,
  to: RELEASE_FIELD,
  fromJsonEscapes: ['go1.22', 'pre-go1.22'],
  toJsonEscapes: ['go1.22', 'pre-go1.22'],
} as const;

/**
 * Resolves one side of a pair: a handle as it is (an escaping beside it is refused: the handle
 * already says), a version string through the registry and the patch table.
 */
function resolveSide(
  given: string | KubeletRelease,
  escapes: JsonEscapeMode | undefined,
  path: readonly JsonPathSegment[],
  escapesName: string,
): ReleaseSide {
  if (given instanceof KubeletRelease) {
    if (escapes !== undefined)
      throw new OptionError(
        'INVALID_OPTION',
        [...path.slice(0, -1), escapesName],
        'no escaping beside a kubelet() handle (give it to kubelet() instead)',
        `found ${JSON.stringify(escapes)}`,
      );
    return {
      info: given.info,
      escapes: given.jsonEscapes,
      ...(given.toolchain === undefined ? {} : { toolchain: given.toolchain }),
      handle: given,
    };
  }
  const info = releaseInfo(given, path);
  const table = patchTableNote(given, escapes);
  return { info, escapes: escapes ?? table?.escapes, ...(table ? { toolchain: table.toolchain } : {}) };
}

/** Both sides of a checked {@link ReleasePair}, `from` first (the order errors are raised in). */
export function resolvePair(pair: ReleasePair, root: JsonPathSegment): { from: ReleaseSide; to: ReleaseSide } {
  return {
    from: resolveSide(pair.from, pair.fromJsonEscapes, [root, 'from'], 'fromJsonEscapes'),
    to: resolveSide(pair.to, pair.toJsonEscapes, [root, 'to'], 'toJsonEscapes'),
  };
}
