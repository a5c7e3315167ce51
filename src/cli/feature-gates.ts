/**
 * `--feature-gates`, the one option several commands share (changed, predict, plan, verify): its
 * definition and its reading, done once into booleans (`GateSettings`) so every command, and any
 * plan file it writes, sees the gates in one form.
 */
import { OptionError } from '../errors.js';
import { readGateSettings, resolveGates, type GateSettings } from '../kubelet/index.js';
import { modelledGates, releaseInfo } from '../releases/index.js';
import { UsageError, str, type CommandContext, type OptionDef } from './command.js';
import { didYouMean } from '../suggest.js';

export const GATES: OptionDef = {
  type: 'string',
  value: 'G=BOOL,…',
  description:
    // Every gate the library models, from the release registry (a new gate is listed without an edit here).
    `the kubelet's --feature-gates (${modelledGates().join(', ')}); values as Go's ParseBool reads them (true, True, 1, t, false, 0, f…)`,
};

const GATES_FLAG = '--feature-gates';

/**
 * `--feature-gates A=true,B=false`, as the kubelet's flag is written, read by the library
 * (strconv.ParseBool, names outside its table refused, with its own codes and paths rooted at the
 * flag); the gates a release lacks are refused where the release is known ({@link checkGatesFor}).
 */
export function featureGates(ctx: CommandContext): GateSettings | undefined {
  const text = str(ctx.values, 'feature-gates');
  if (text === undefined) return undefined;
  const gates: Record<string, string> = {};
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]+)=(.*)$/.exec(part);
    const name = m?.[1];
    const value = m?.[2]?.trim();
    if (name === undefined || value === undefined) {
      throw new UsageError(`--feature-gates expects Name=BOOL pairs separated by commas, got ${JSON.stringify(part)}`);
    }
    gates[name] = value;
  }
  try {
    return readGateSettings(gates, [GATES_FLAG]);
  } catch (e) {
    // The library's refusal, with the closest known name (a typo is the usual cause).
    if (!(e instanceof OptionError) || e.code !== 'UNKNOWN_FEATURE_GATE') throw e;
    const name = String(e.path[1]);
    throw new OptionError(e.code, e.path, e.expected, `${e.detail ?? ''}${didYouMean(name, modelledGates())}`);
  }
}

/** The gates `version` lacks or locks, refused by the library at the flag (not in an input file). */
export function checkGatesFor(version: string, gates: GateSettings | undefined): void {
  if (gates) resolveGates(releaseInfo(version), gates, [GATES_FLAG]);
}
