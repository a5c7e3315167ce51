/**
 * A regular container's own restart policy (KEP-5307, gate ContainerRestartRules, 1.34+):
 * `podutil.ContainerShouldRestart` (pkg/api/v1/pod/util.go). The first `restartPolicyRules` entry
 * whose `exitCodes` match decides (action `Restart`, and `RestartAllContainers`, which restarts
 * this container with the rest of the pod); else the container's `restartPolicy`; a container
 * without one follows the pod's, as before.
 */
import { isPlainObject, memberOf } from '../decode/input.js';

type OwnPolicy = 'Always' | 'OnFailure' | 'Never';

/** The container's own restartPolicy, when it sets a known one. */
function ownRestartPolicy(container: unknown): OwnPolicy | undefined {
  const p = isPlainObject(container) ? memberOf(container, 'restartPolicy') : undefined;
  return p === 'Always' || p === 'OnFailure' || p === 'Never' ? p : undefined;
}

/** `findMatchingContainerRestartRule`: the first rule whose exit-code operator matches, as text. */
function matchingRule(container: unknown, exitCode: number): string | undefined {
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
    const action = memberOf(rule, 'action');
    if (hit && (action === 'Restart' || action === 'RestartAllContainers')) {
      return `restartPolicyRules[${i}] (${action} on exit codes ${op === 'In' ? 'In' : 'NotIn'} [${list.map(String).join(', ')}])`;
    }
  }
  return undefined;
}

/**
 * Whether an exited regular container with its own restartPolicy starts again, and why; undefined
 * when it sets none (the pod's policy decides). An unknown exit code matches no rule.
 */
export function containerShouldRestart(
  container: unknown,
  exitCode: number | undefined,
): { restart: boolean; why: string } | undefined {
  const own = ownRestartPolicy(container);
  if (own === undefined) return undefined;
  const rule = exitCode === undefined ? undefined : matchingRule(container, exitCode);
  if (rule !== undefined) return { restart: true, why: `${rule} matches exit code ${String(exitCode)}` };
  const restart = own === 'Always' || (own === 'OnFailure' && exitCode !== 0);
  return { restart, why: `the container's own restartPolicy ${own}` };
}
