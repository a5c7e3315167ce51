/**
 * Where a pod's initialisation stands, as the kubelet reads it from its init containers' runtime
 * states: `findNextInitContainerToRun` (1.8+, and 1.28–1.32 with SidecarContainers off) and
 * `computeInitContainerActions` (1.28+ with SidecarContainers on, the only path from 1.33). Both
 * return which init containers to start, which to kill first, whether the pod is killed, and
 * whether initialisation is done; decide-pod.ts turns that into verdicts.
 */
import type { ReleaseInfo } from '../releases/index.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import type { PodRestartPolicy } from './decide.js';
import type { RuntimeFacts } from './runtime-state.js';

/** One init container as the walk needs it. */
export interface InitMember {
  sidecar: boolean;
  container: unknown;
  runtime: RuntimeFacts;
}

/** The walk's result. */
export interface InitProgress {
  /** Initialisation is done: the regular containers are looked at. */
  done: boolean;
  /** An init container failed under restartPolicy Never (from 1.34 its own policy): the pod is killed. */
  killPod: boolean;
  /** Indexes of init containers started (after a kill where `kills` has them). */
  starts: Set<number>;
  kills: Set<number>;
  /** Why each started or killed one is, for its verdict. */
  why: Map<number, string>;
}

const RUNNING = 'running';

/** `isInitContainerFailed`: exited non-zero; from 1.20 also unknown (1.13.0's isContainerFailed had no unknown). */
function failed(info: ReleaseInfo, r: RuntimeFacts): boolean {
  if (r.state === 'exited') return (r.exitCode ?? 0) !== 0;
  return r.state === 'unknown' && info.minor >= 20;
}

/** A runtime state the kubelet has a container status for (absent and not-given are nil). */
function known(r: RuntimeFacts): boolean {
  return r.state !== undefined && r.state !== 'absent';
}

function empty(): InitProgress {
  return { done: false, killPod: false, starts: new Set(), kills: new Set(), why: new Map() };
}

/** `findNextInitContainerToRun` and what computePodActions does with its answer. */
export function legacyInitProgress(
  info: ReleaseInfo,
  inits: readonly InitMember[],
  restartPolicy: PodRestartPolicy,
  regularRunning: boolean,
): InitProgress {
  const out = empty();
  if (inits.length === 0) return { ...out, done: true };
  // From 1.21 a running regular container means the init containers ran before (they may have been
  // removed since): kuberuntime_container.go:776@v1.21.0.
  if (info.minor >= 21 && regularRunning) return { ...out, done: true };
  // The last failed one first: it is the one run again.
  for (let i = inits.length - 1; i >= 0; i--) {
    const r = inits[i]!.runtime;
    if (!known(r) || !failed(info, r)) continue;
    if (restartPolicy === 'Never') {
      out.killPod = true;
      return out;
    }
    out.starts.add(i);
    if (r.state === 'unknown') {
      out.kills.add(i);
      out.why.set(i, 'in unknown state: killed first, then started again');
    } else {
      out.why.set(i, `failed (exit code ${String(r.exitCode ?? 0)}): started again (restartPolicy ${restartPolicy})`);
    }
    return out;
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const r = inits[i]!.runtime;
    if (!known(r)) continue;
    if (r.state === RUNNING) return out; // still running: nothing to do yet
    if (r.state === 'exited') {
      if (i === inits.length - 1) return { ...out, done: true };
      out.starts.add(i + 1);
      out.why.set(i + 1, `the next init container after ${String(i)} completed`);
      return out;
    }
  }
  out.starts.add(0);
  out.why.set(0, 'no init container has run yet: the first is started');
  return out;
}

function hasProbe(container: unknown, probe: string): boolean {
  return isPlainObject(container) && isPlainObject(memberOf(container, probe));
}

/**
 * `computeInitContainerActions` (1.28+, SidecarContainers on), except the running sidecar's hash
 * and resize steps (1.32+/1.33+), which the caller asks decide() for: `compare(i)` answers whether
 * decide() restarts sidecar `i`.
 */
export function sidecarInitProgress(
  info: ReleaseInfo,
  inits: readonly InitMember[],
  regularsStarted: boolean,
  restartPolicy: PodRestartPolicy,
  ownPolicyNever: (i: number) => boolean | undefined,
  compare: (i: number) => boolean,
): InitProgress {
  const out = empty();
  if (inits.length === 0) return { ...out, done: true };
  const start = (i: number, why: string, kill = false): void => {
    out.starts.add(i);
    out.why.set(i, why);
    if (kill) out.kills.add(i);
  };
  // A regular container created or running means the pod initialised before (a kubelet restart, a
  // sidecar that exited since): only sidecars are looked at then.
  let done = regularsStarted;
  let previouslyInitialised = regularsStarted;
  for (let i = inits.length - 1; i >= 0; i--) {
    const { sidecar, container, runtime: r } = inits[i]!;
    if (!known(r)) {
      if (previouslyInitialised && sidecar) start(i, 'a sidecar with no container in a pod that has initialised');
      continue;
    }
    if (previouslyInitialised && !sidecar) continue;
    switch (r.state) {
      case 'created':
        // 1.31.14 starts a created init container again (a runtime that failed to start it); 1.29.6 waits.
        if (info.minor >= 31) start(i, 'created but not started: started again');
        break;
      case RUNNING: {
        if (!sidecar) break;
        if (hasProbe(container, 'startupProbe') && r.startupProbe !== 'success' && r.started !== true) {
          if (r.startupProbe === 'failure') start(i, 'its startup probe failed: killed and started again', true);
          // Not yet succeeded (or, after a kubelet restart, not yet run): the walk stops here.
          if (r.startupProbe === 'failure' || r.started === false) break;
        }
        if (i === inits.length - 1) done = true;
        else if (!previouslyInitialised) start(i + 1, `the next init container after sidecar ${String(i)} started`);
        if (compare(i)) {
          start(i, 'the kubelet restarts the sidecar (see its rule)', true);
          break;
        }
        if (hasProbe(container, 'livenessProbe') && r.livenessProbe === 'failure')
          start(i, 'its liveness probe failed: killed and started again', true);
        break;
      }
      case 'exited':
        if (sidecar) {
          start(i, 'a sidecar that exited is started again, whatever the restart policy');
        } else if ((r.exitCode ?? 0) !== 0) {
          if (ownPolicyNever(i) ?? restartPolicy === 'Never') return { ...empty(), killPod: true };
          start(i, `failed (exit code ${String(r.exitCode)}): started again`);
        } else if (i === inits.length - 1) {
          done = true;
        } else {
          start(i + 1, `the next init container after ${String(i)} completed`);
        }
        break;
      default: // unknown
        if (!sidecar && (ownPolicyNever(i) ?? restartPolicy === 'Never')) return { ...empty(), killPod: true };
        start(i, 'in unknown state: killed first, then started again', true);
    }
    previouslyInitialised = true;
  }
  if (!previouslyInitialised) start(0, 'no init container has run yet: the first is started');
  out.done = done;
  return out;
}
