/**
 * The kubelet's decision "this container's definition changed, kill and recreate it", as a pure
 * function of hashes already computed, so every caller (containerChanged, predictRestarts,
 * planUpgrade) applies the same rule. Read from kuberuntime_manager.go / kuberuntime_container.go:
 *
 * - every release: `containerChanged` compares the stored hash with `HashContainer(spec)`; the
 *   container is restarted when they differ, whatever the pod's restartPolicy;
 * - 1.27–1.30 with InPlacePodVerticalScaling on and a non-static pod: only when the
 *   without-resources hash differs from the stored one too (a resources-only change is resized);
 * - init containers are never compared (they ran to completion); running sidecars (restartable
 *   init containers) are compared and restarted from 1.32 on, with SidecarContainers on (off, the
 *   kubelet takes the legacy init path and treats them as plain init containers); ephemeral
 *   containers never are.
 */
import { formatHash } from '../hash/format.js';
import type { ReleaseInfo } from '../releases/index.js';
import type { ContainerRole } from './container-role.js';
import type { ResolvedGates } from './options.js';
import type { RestartRuleId } from './restart-rules.js';

/**
 * The kubelet's comparison: `hash` (stored vs computed `HashContainer`), `hash-and-hash-without-resources`
 * (1.27–1.30 in-place resize: both must differ), or `not-compared` (init/ephemeral, or sidecars before 1.32).
 *
 * @example
 * ```ts
 * import { containerChanged, type ChangedRule } from 'kubelet-hash';
 *
 * const web = { name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '500m' } } };
 * const stored = { hash: '590c88e0', hashWithoutResources: '371a981f' };
 * const resized = { ...web, resources: { limits: { cpu: '1' } } };
 * const rule = (kubeletVersion: string, InPlacePodVerticalScaling?: boolean): ChangedRule =>
 *   containerChanged(resized, stored, { kubeletVersion, featureGates: InPlacePodVerticalScaling === undefined ? {} : { InPlacePodVerticalScaling } }).rule;
 * [rule('1.26'), rule('1.29'), rule('1.29', true), rule('1.31')]; // → ['hash', 'hash', 'hash-and-hash-without-resources', 'hash']
 * containerChanged(web, stored, { kubeletVersion: '1.29', containerList: 'ephemeralContainers' }).rule; // → 'not-compared'
 * ```
 *
 * @group Kubelet decisions
 */
export type ChangedRule = 'hash' | 'hash-and-hash-without-resources' | 'not-compared';

export interface RuleInput {
  info: ReleaseInfo;
  role: ContainerRole;
  /** The kubelet's gates that change the rule (see resolveGates). */
  gates: ResolvedGates;
  staticPod: boolean;
  expected: bigint;
  stored: bigint;
  /** Computed lazily: only the 1.27–1.30 resize rule needs it. */
  expectedWithoutResources: () => bigint;
  storedWithoutResources: bigint;
}

export interface RuleOutcome {
  changed: boolean;
  hashDiffers: boolean;
  rule: ChangedRule;
  /** The row of RESTART_RULES that decided. */
  ruleId: RestartRuleId;
  reason: string;
  /** Set when the rule consulted the without-resources hashes. */
  withoutResources?: { expected: bigint; stored: bigint };
}

/** The hash comparison of the kubelet of `r.info` (rules `hash`, `hash-and-hash-without-resources` and the not-compared roles). */
export function applyChangedRule(r: RuleInput): RuleOutcome {
  const hashDiffers = r.expected !== r.stored;
  const storedText = r.stored === 0n ? '0 (missing or unreadable)' : formatHash(r.stored);
  const hashes = `stored ${storedText}, computed ${formatHash(r.expected)}`;

  if (r.role === 'ephemeral') {
    return {
      changed: false,
      hashDiffers,
      rule: 'not-compared',
      ruleId: 'ephemeral-never-restarted',
      reason: 'ephemeral containers are never restarted for a definition change',
    };
  }
  if (r.role === 'init' || (r.role === 'sidecar' && r.info.minor < 28)) {
    const why =
      r.role === 'init'
        ? ''
        : ` (kubelet ${r.info.release} has no sidecars: restartPolicy on init containers arrived in 1.28)`;
    return {
      changed: false,
      hashDiffers,
      rule: 'not-compared',
      ruleId: 'init-not-compared',
      reason: `init containers run to completion; the kubelet does not compare their hash${why}`,
    };
  }
  if (r.role === 'sidecar' && !r.gates.sidecars) {
    return {
      changed: false,
      hashDiffers,
      rule: 'not-compared',
      ruleId: 'sidecar-as-init',
      reason: `SidecarContainers is off in this kubelet ${r.info.release}: a restartable init container runs as a plain init container, whose hash is never compared`,
    };
  }
  if (r.role === 'sidecar' && !r.info.restartsSidecarsOnHashChange) {
    return {
      changed: false,
      hashDiffers,
      rule: 'not-compared',
      ruleId: 'sidecar-not-compared',
      reason: `kubelet ${r.info.release} does not restart sidecars (restartable init containers) when their definition changes; 1.32+ does`,
    };
  }
  const what = r.role === 'sidecar' ? 'sidecar' : 'container';
  if (!hashDiffers) {
    return {
      changed: false,
      hashDiffers,
      rule: 'hash',
      ruleId: 'hash',
      reason: `hash unchanged (${formatHash(r.expected)})`,
    };
  }
  const resizeRule = r.role === 'container' && r.info.hashWithoutResources && r.gates.inPlaceResize && !r.staticPod;
  if (!resizeRule) {
    return {
      changed: true,
      hashDiffers,
      rule: 'hash',
      ruleId: 'hash',
      reason: `${what} definition changed (${hashes}): restarted whatever the restartPolicy`,
    };
  }
  const expectedWr = r.expectedWithoutResources();
  const withoutResources = { expected: expectedWr, stored: r.storedWithoutResources };
  if (expectedWr === r.storedWithoutResources) {
    return {
      changed: false,
      hashDiffers,
      rule: 'hash-and-hash-without-resources',
      ruleId: 'hash-and-hash-without-resources',
      reason: `hash differs (${hashes}) but the hash without resources matches (${formatHash(expectedWr)}): only resources changed, the resize rule decides (InPlacePodVerticalScaling)`,
      withoutResources,
    };
  }
  const wrStored = r.storedWithoutResources === 0n ? '0 (missing or unreadable)' : formatHash(r.storedWithoutResources);
  return {
    changed: true,
    hashDiffers,
    rule: 'hash-and-hash-without-resources',
    ruleId: 'hash-and-hash-without-resources',
    reason: `container definition changed beyond resources (${hashes}; without resources: stored ${wrStored}, computed ${formatHash(expectedWr)})`,
    withoutResources,
  };
}
