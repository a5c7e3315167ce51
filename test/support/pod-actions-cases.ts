/**
 * Generated pods for the pod-actions judges (test/real/pod-actions-judges.integration…): a scenario
 * (containers of every role in every runtime state, probes, sandbox, policies, gates), the line the
 * Go judge reads, the library's prediction for it, and the comparison of both in the library's terms.
 */
import fc from 'fast-check';
import { predictRestarts, type PodAction, type RestartPrediction } from '../../src/index.js';

type Role = 'init' | 'sidecar' | 'container' | 'ephemeral';
type RuntimeState =
  { state: 'absent' } | { state: 'running' | 'created' | 'unknown' } | { state: 'exited'; exitCode: number };
type Probe = 'success' | 'failure' | 'none';

interface Member {
  name: string;
  role: Role;
  runtime: RuntimeState;
  /** The running container was made from another image (its stored hash differs). */
  changed: boolean;
  /** Undefined: the spec has no such probe; else the prober's latest result (`none`: none yet). */
  liveness?: Probe;
  startup?: Probe;
  /** A regular container's own restartPolicy (ContainerRestartRules, 1.34+). */
  ownPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** A regular container's restartPolicyRules (1.35+ here: Restart or RestartAllContainers on some exit codes). */
  rules?: { action: 'Restart' | 'RestartAllContainers'; exitCodes: { operator: 'In' | 'NotIn'; values: number[] } }[];
}

export interface Scenario {
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  hostNetwork: boolean;
  sandbox: { exists: false } | { exists: true; ready: boolean; hasIp: boolean };
  members: Member[];
  gates: Record<string, boolean>;
  /** The pod's last API status has AllContainersRestarting True (1.35+). */
  allContainersRestarting?: boolean;
}

/**
 * Gates the judge sets that the library does not take: 1.20's EphemeralContainers is alpha (off by
 * default), and a pod has ephemeral containers only where it is on (the library assumes so);
 * RestartAllContainersOnContainerExits (1.35+) needs ContainerRestartRules, and is off with it.
 */
function judgeOnlyGates(minor: number, gates: Record<string, boolean>): Record<string, boolean> {
  if (minor === 20) return { EphemeralContainers: true };
  // The library takes both and resolves the reset off; the kubelet refuses to start so set.
  if (minor >= 35 && gates['ContainerRestartRules'] === false) return { RestartAllContainersOnContainerExits: false };
  return {};
}

/** The gates each release's decision reads, each set both ways. */
function gatesArb(minor: number): fc.Arbitrary<Record<string, boolean>> {
  if (minor === 20) return fc.constant({});
  if (minor < 33) return fc.record({ SidecarContainers: fc.boolean(), InPlacePodVerticalScaling: fc.boolean() });
  if (minor < 35) return fc.record({ ContainerRestartRules: fc.boolean() });
  return fc.record({ ContainerRestartRules: fc.boolean(), RestartAllContainersOnContainerExits: fc.boolean() });
}

const runtimeArb: fc.Arbitrary<RuntimeState> = fc.oneof(
  fc.constant({ state: 'absent' as const }),
  fc.constantFrom('running' as const, 'created' as const, 'unknown' as const).map((state) => ({ state })),
  fc.constantFrom(0, 1, 137).map((exitCode) => ({ state: 'exited' as const, exitCode })),
  // Running twice as often: most pods run.
  fc.constant({ state: 'running' as const }),
);
const probeArb: fc.Arbitrary<Probe | undefined> = fc.constantFrom(undefined, 'none', 'success', 'failure', 'success');

function memberArb(minor: number, role: Role, name: string): fc.Arbitrary<Member> {
  return fc
    .record({
      runtime: runtimeArb,
      changed: fc.boolean(),
      liveness: role === 'init' || role === 'ephemeral' ? fc.constant(undefined) : probeArb,
      startup: role === 'init' || role === 'ephemeral' || minor < 16 ? fc.constant(undefined) : probeArb,
      rules:
        role === 'container' && minor >= 35
          ? fc.option(
              fc.array(
                fc.record({
                  action: fc.constantFrom('Restart' as const, 'RestartAllContainers' as const),
                  exitCodes: fc.record({
                    operator: fc.constantFrom('In' as const, 'NotIn' as const),
                    values: fc.subarray([0, 1, 137], { minLength: 1 }),
                  }),
                }),
                { minLength: 1, maxLength: 2 },
              ),
              { freq: 2 },
            )
          : fc.constant(null),
      ownPolicy:
        role === 'container' && minor >= 34
          ? fc.constantFrom(undefined, undefined, 'Always' as const, 'OnFailure' as const, 'Never' as const)
          : fc.constant(undefined),
    })
    .map((m) => {
      const out: Member = { name, role, runtime: m.runtime, changed: m.changed };
      if (m.liveness !== undefined) out.liveness = m.liveness;
      if (m.startup !== undefined) out.startup = m.startup;
      if (m.ownPolicy !== undefined) out.ownPolicy = m.ownPolicy;
      // Validation wants a container's own restartPolicy beside its rules.
      if (m.rules) {
        out.rules = m.rules;
        out.ownPolicy ??= 'Never';
      }
      return out;
    });
}

export function scenarioArb(minor: number): fc.Arbitrary<Scenario> {
  const initRoles = fc.array(minor >= 28 ? fc.constantFrom<Role>('init', 'sidecar') : fc.constant<Role>('init'), {
    maxLength: 3,
  });
  return fc
    .record({
      restartPolicy: fc.constantFrom(undefined, 'Always' as const, 'OnFailure' as const, 'Never' as const),
      hostNetwork: fc.boolean(),
      sandbox: fc.oneof(
        fc.constant({ exists: false as const }),
        fc.record({ exists: fc.constant(true as const), ready: fc.boolean(), hasIp: fc.boolean() }),
        fc.constant({ exists: true as const, ready: true, hasIp: true }),
        fc.constant({ exists: true as const, ready: true, hasIp: true }),
      ),
      initRoles,
      regular: fc.integer({ min: 1, max: 3 }),
      ephemeral: fc.integer({ min: 0, max: 2 }),
      gates: gatesArb(minor),
      restarting: minor >= 35 ? fc.constantFrom(false, false, false, true) : fc.constant(false),
    })
    .chain((s) => {
      const members = [
        ...s.initRoles.map((role, i) => memberArb(minor, role, `${role === 'sidecar' ? 's' : 'i'}${i}`)),
        ...Array.from({ length: s.regular }, (_, i) => memberArb(minor, 'container', `c${i}`)),
        ...Array.from({ length: s.ephemeral }, (_, i) => memberArb(minor, 'ephemeral', `e${i}`)),
      ];
      return fc.tuple(...members).map((list) => {
        const out: Scenario = { hostNetwork: s.hostNetwork, sandbox: s.sandbox, members: list, gates: s.gates };
        if (s.restartPolicy !== undefined) out.restartPolicy = s.restartPolicy;
        if (s.restarting) out.allContainersRestarting = true;
        return out;
      });
    });
}

const PROBE = { exec: { command: ['true'] } };

/** The pod before (what the running containers were made from) and after (what the kubelet syncs to). */
function podOf(s: Scenario, when: 'before' | 'after'): Record<string, unknown> {
  const container = (m: Member): Record<string, unknown> => {
    const c: Record<string, unknown> = {
      name: m.name,
      image: when === 'before' && m.changed ? 'busybox:1' : 'busybox',
    };
    if (m.liveness !== undefined) c['livenessProbe'] = PROBE;
    if (m.startup !== undefined) c['startupProbe'] = PROBE;
    if (m.role === 'sidecar') c['restartPolicy'] = 'Always';
    if (m.ownPolicy !== undefined) c['restartPolicy'] = m.ownPolicy;
    if (m.rules !== undefined) c['restartPolicyRules'] = m.rules;
    return c;
  };
  const of = (role: Role | Role[]) =>
    s.members.filter((m) => (Array.isArray(role) ? role.includes(m.role) : m.role === role)).map(container);
  const spec: Record<string, unknown> = { containers: of('container') };
  const inits = of(['init', 'sidecar']);
  if (inits.length > 0) spec['initContainers'] = inits;
  const ephemeral = of('ephemeral');
  if (ephemeral.length > 0) spec['ephemeralContainers'] = ephemeral;
  if (s.restartPolicy !== undefined) spec['restartPolicy'] = s.restartPolicy;
  if (s.hostNetwork) spec['hostNetwork'] = true;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'judged', namespace: 'default', uid: 'u-1' }, spec };
}

const present = (m: Member): boolean => m.runtime.state !== 'absent';
const result = (p: Probe | undefined): string => (p === undefined || p === 'none' ? '' : p);

/** One line for the judge. */
export function caseLine(s: Scenario, minor: number, id: number): string {
  return JSON.stringify({
    id,
    gates: { ...s.gates, ...judgeOnlyGates(minor, s.gates) },
    before: podOf(s, 'before'),
    after: podOf(s, 'after'),
    sandbox: s.sandbox.exists ? { ready: s.sandbox.ready, hasIp: s.sandbox.hasIp, attempt: 0 } : null,
    statuses: s.members.filter(present).map((m) => ({
      name: m.name,
      state: m.runtime.state,
      exitCode: m.runtime.state === 'exited' ? m.runtime.exitCode : 0,
      // The prober keeps results for running containers only.
      liveness: m.runtime.state === 'running' ? result(m.liveness) : '',
      startup: m.runtime.state === 'running' ? result(m.startup) : '',
    })),
    allContainersRestarting: s.allContainersRestarting === true,
  });
}

function ours(s: Scenario, minor: string): RestartPrediction {
  const entry = (m: Member) => ({
    name: m.name,
    state: m.runtime.state,
    ...(m.runtime.state === 'exited' ? { exitCode: m.runtime.exitCode } : {}),
    // ContainerStatus.started, as the kubelet publishes it from its startup prober's cache.
    ...(m.runtime.state === 'running' && m.startup !== undefined ? { started: m.startup === 'success' } : {}),
  });
  // Every container has an entry: `absent` says the runtime has none (no entry would be assumed running).
  const list = (roles: Role[]) => s.members.filter((m) => roles.includes(m.role)).map(entry);
  const probes: Record<string, { livenessProbe?: 'success' | 'failure'; startupProbe?: 'success' | 'failure' }> = {};
  for (const m of s.members) {
    if (m.runtime.state !== 'running') continue;
    const p: (typeof probes)[string] = {};
    if (m.liveness === 'success' || m.liveness === 'failure') p.livenessProbe = m.liveness;
    if (m.startup === 'success' || m.startup === 'failure') p.startupProbe = m.startup;
    if (Object.keys(p).length > 0) probes[m.name] = p;
  }
  return predictRestarts(podOf(s, 'before'), podOf(s, 'after'), {
    kubeletVersion: minor,
    podStatus: {
      initContainerStatuses: list(['init', 'sidecar']),
      containerStatuses: list(['container']),
      ephemeralContainerStatuses: list(['ephemeral']),
      ...(s.allContainersRestarting ? { conditions: [{ type: 'AllContainersRestarting', status: 'True' }] } : {}),
    },
    sandbox: s.sandbox,
    probes,
    featureGates: s.gates,
  });
}

/** computePodActions' podActions, by container name (test/support/go/pod-actions-judge/judge.go). */
export interface GoAnswer {
  id: number;
  killPod: boolean;
  createSandbox: boolean;
  attempt: number;
  initToStart: string[];
  containersToStart: string[];
  ephemeralToStart: string[];
  containersToKill: string[];
  containersToReset: string[];
  containersResetKill: string[];
}

/** The kubelet's answer in the library's terms: the pod action, and per container started / killed. */
function goVerdict(s: Scenario, a: GoAnswer): { pod: PodAction; started: Set<string>; killed: Set<string> } {
  const reset = a.containersToReset.length > 0;
  const pod: PodAction = a.createSandbox
    ? a.attempt === 0
      ? 'create-sandbox'
      : 'kill-and-recreate'
    : a.killPod
      ? 'kill'
      : reset
        ? 'restart-all'
        : 'none';
  // A reset container (RestartAllContainers) is removed and started again with the pod.
  const started = new Set([...a.initToStart, ...a.containersToStart, ...a.ephemeralToStart, ...a.containersToReset]);
  const killed = new Set([...a.containersToKill, ...a.containersResetKill]);
  // Killing the pod stops every running container (ConvertPodStatusToRunningPod keeps the running ones).
  if (a.killPod) for (const m of s.members) if (m.runtime.state === 'running') killed.add(m.name);
  return { pod, started, killed };
}

export interface Tally {
  cases: number;
  same: number;
  diverged: number;
  mismatches: string[];
  /** Pod-level actions seen (the generator must reach each). */
  podActions: Map<PodAction, number>;
}

export function compare(minor: string, s: Scenario, a: GoAnswer, tally: Tally): void {
  tally.cases++;
  const go = goVerdict(s, a);
  tally.podActions.set(go.pod, (tally.podActions.get(go.pod) ?? 0) + 1);
  const p = ours(s, minor);
  const diffs: string[] = [];
  if (p.pod.action !== go.pod) diffs.push(`pod: library ${p.pod.action} (${p.pod.reason}), Go ${go.pod}`);
  for (const m of s.members) {
    const c = p.containers.find((x) => x.name === m.name);
    if (!c) {
      diffs.push(`${m.name}: missing`);
      continue;
    }
    const started = c.action === 'start' || c.action === 'restart';
    const killed = c.kills === true;
    if (started !== go.started.has(m.name) || killed !== go.killed.has(m.name))
      diffs.push(
        `${m.name}: library ${c.action}${killed ? ' (kills)' : ''} [${c.ruleId ?? ''}: ${c.reason}], Go ${go.started.has(m.name) ? 'starts' : 'does not start'}${go.killed.has(m.name) ? ', kills' : ''}`,
      );
  }
  if (diffs.length === 0) {
    tally.same++;
    return;
  }
  tally.diverged++;
  if (tally.mismatches.length < 10) tally.mismatches.push(`${diffs.join('; ')} — case ${JSON.stringify(s)}`);
}
