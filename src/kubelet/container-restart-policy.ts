/**
 * A regular container's own restart policy (KEP-5307, gate ContainerRestartRules, 1.34+):
 * `podutil.ContainerShouldRestart` (pkg/api/v1/pod/util.go). The first `restartPolicyRules` entry
 * whose `exitCodes` match decides (action `Restart`, and `RestartAllContainers` with its gate on,
 * which restarts every container of the pod: decide-pod.ts); else the container's `restartPolicy`;
 * a container without one follows the pod's, as before.
 */
import { isPlainObject, memberOf } from '../decode/input.js';

type OwnPolicy = 'Always' | 'OnFailure' | 'Never';

/** The container's own restartPolicy, when it sets a known one. */
function ownRestartPolicy(container: unknown): OwnPolicy | undefined {
  const p = isPlainObject(container) ? memberOf(container, 'restartPolicy') : undefined;
  return p === 'Always' || p === 'OnFailure' || p === 'Never' ? p : undefined;
}

/** `FindMatchingContainerRestartRule`: the first rule whose exit-code operator matches, whatever its action. */
function matchingRule(container: unknown, exitCode: number): { action: unknown; text: string } | undefined {
  const rules = isPlainObject(container) ? memberOf(container, 'restartPolicyRules') : undefined;
  if (!Array.isArray(rules)) return undefined;
  for (const [i, rule] of rules.entries()) {
    if (!isPlainObject(rule)) continue;
    const codes = memberOf(rule, 'exitCodes');
    if (!isPlainObject(codes)) continue;
    const values = memberOf(codes, 'values');
    const list = Array.isArray(values) ? values : [];
    const op = memberOf(codes, 'operator');
    const hit = op === 'In' ? list.includes(exitCode) : op === 'NotIn' ? !list.includes(exitCode) : false;
    if (!hit) continue;
    const action = memberOf(rule, 'action');
    const text = `restartPolicyRules[${i}] (${String(action)} on exit codes ${String(op)} [${list.map(String).join(', ')}])`;
    return { action, text };
  }
  return undefined;
}

/**
 * Whether a container that exited with `exitCode` starts a RestartAllContainers reset of its pod
 * (`ShouldAllContainersRestart`, pkg/kubelet/container/helpers.go@v1.35.0): its first matching rule
 * has that action. The caller checks the gate.
 */
export function restartsAllContainers(container: unknown, exitCode: number): string | undefined {
  const rule = matchingRule(container, exitCode);
  return rule?.action === 'RestartAllContainers' ? rule.text : undefined;
}

/** Whether any of the container's restartPolicyRules has action RestartAllContainers. */
export function hasRestartAllRule(container: unknown): boolean {
  const rules = isPlainObject(container) ? memberOf(container, 'restartPolicyRules') : undefined;
  return (
    Array.isArray(rules) && rules.some((r) => isPlainObject(r) && memberOf(r, 'action') === 'RestartAllContainers')
  );
}

/**
 * Whether an exited regular container with its own restartPolicy starts again, and why; undefined
 * when it sets none (the pod's policy decides). An unknown exit code matches no rule. The first
 * matching rule decides when its action is Restart, or RestartAllContainers with
 * RestartAllContainersOnContainerExits on (`restartAll`); otherwise the container's policy
 * (`ContainerShouldRestart`, pkg/api/v1/pod/util.go@v1.37.2).
 */
export function containerShouldRestart(
  container: unknown,
  exitCode: number | undefined,
  restartAll: boolean,
): { restart: boolean; why: string } | undefined {
  const own = ownRestartPolicy(container);
  if (own === undefined) return undefined;
  const rule = exitCode === undefined ? undefined : matchingRule(container, exitCode);
  if (rule !== undefined && (rule.action === 'Restart' || (rule.action === 'RestartAllContainers' && restartAll)))
    return { restart: true, why: `${rule.text} matches exit code ${String(exitCode)}` };
  const restart = own === 'Always' || (own === 'OnFailure' && exitCode !== 0);
  return { restart, why: `the container's own restartPolicy ${own}` };
}
