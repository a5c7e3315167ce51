/** What every CLI command module shares: the command shape, usage errors and argument helpers. */
import { locateContainers, type LocatedContainer } from '../pod/locate.js';
import { readJsonInput, type CliIO } from './io.js';

export type Values = Record<string, string | boolean | undefined>;
export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export interface Command {
  summary: string;
  usage: string;
  options: OptionSpec;
  run(values: Values, positionals: string[], io: CliIO): Promise<number>;
}

/** A mistake in the command line itself (exit 64 with the usage line). */
export class UsageError extends Error {}

export function str(values: Values, name: string, required: true): string;
export function str(values: Values, name: string, required?: false): string | undefined;
export function str(values: Values, name: string, required = false): string | undefined {
  const v = values[name];
  if (typeof v === 'string') return v;
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
}

export function onePositional(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`expected one input file (or - for stdin), got ${positionals.length}`);
  return positionals[0]!;
}

/** The containers of the input document, narrowed by --container. */
export async function containersOf(file: string, values: Values, io: CliIO): Promise<LocatedContainer[]> {
  const { doc } = await readJsonInput(file, io);
  const all = locateContainers(doc);
  const name = str(values, 'container');
  const wanted = name === undefined ? all : all.filter((c) => c.name === name);
  if (wanted.length === 0) throw new UsageError(`no container named ${JSON.stringify(name)}`);
  return wanted;
}

export function single(found: LocatedContainer[]): LocatedContainer {
  if (found.length !== 1) throw new UsageError(`the input has ${found.length} containers; pick one with --container`);
  return found[0]!;
}
