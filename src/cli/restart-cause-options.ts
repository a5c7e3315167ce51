/**
 * `--accept-cause`, shared by the commands that judge restart causes outside the hash (plan,
 * verify, upgrade-node's gate): its definition, and the causes of a crossing with the classes the
 * operator accepted marked (accepted ones do not count in the exit code).
 */
import { RESTART_CAUSE_KINDS, restartCauses, type RestartCause } from '../plan/index.js';
import { UsageError, list, type CommandContext, type OptionDef } from './command.js';
import { featureGates } from './feature-gates.js';

/** A restart cause with whether the operator accepted its class (--accept-cause): accepted ones do not count. */
export type JudgedCause = RestartCause & { accepted: boolean };

/** The classes --accept-cause names, each one a cause kind (a name outside them is bad input). */
export function acceptedCauses(ctx: CommandContext): Set<string> {
  const given = list(ctx.values, 'accept-cause');
  for (const kind of given)
    if (!(RESTART_CAUSE_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`--accept-cause: one of ${RESTART_CAUSE_KINDS.join(', ')}; got ${JSON.stringify(kind)}`);
  return new Set(given);
}

/** Restart causes outside the hash for the API pods: each counts as a finding unless its class is accepted. */
export function causesOf(pods: readonly unknown[], from: string, to: string, ctx: CommandContext): JudgedCause[] {
  const accepted = acceptedCauses(ctx);
  const gates = featureGates(ctx);
  return restartCauses({ pods, from, to, ...(gates ? { gates } : {}) }).map((c) => ({
    ...c,
    accepted: accepted.has(c.kind),
  }));
}

export const counted = (causes: readonly JudgedCause[]): number => causes.filter((c) => !c.accepted).length;

/** The counted causes as the trailer carries them (fleet report holds a node with one). */
export const trailerCauses = (causes: readonly JudgedCause[]) =>
  causes.filter((c) => !c.accepted).map((c) => ({ kind: c.kind, pod: c.pod, reason: c.reason }));

export const causeLines = (causes: readonly JudgedCause[]): string =>
  causes
    .map(
      (c) =>
        `# restart cause ${c.kind} (${c.accepted ? 'accepted' : c.verdict}, ${c.releases}) pod ${c.pod}: ${c.reason} [${c.source}]\n`,
    )
    .join('') +
  (causes.length > 0
    ? `# restart causes: ${counted(causes)} counted${causes.length > counted(causes) ? `, ${causes.length - counted(causes)} accepted` : ''}\n`
    : '');

export const ACCEPT_CAUSE: OptionDef = {
  type: 'string',
  multiple: true,
  value: 'CLASS',
  description: `a class of restart cause the operator accepts: listed as accepted, not counted in the exit code (repeatable; ${RESTART_CAUSE_KINDS.join(', ')})`,
};
