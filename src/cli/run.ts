/**
 * Command dispatch and error rendering. Library errors are printed as `error CODE at PATH:
 * expected …` (with line and column when the input text is at hand), exit code 2; usage errors
 * exit 64; a failed check (e.g. "changed") exits 1.
 */
import { parseArgs } from 'node:util';
import { DecodeError, KubeletHashError, QuantityError } from '../errors.js';
import { supportedReleases } from '../releases/registry.js';
import { UsageError, type Command } from './command.js';
import { CORE_COMMANDS } from './commands.js';
import { CONTROLLER_COMMANDS } from './commands-controllers.js';
import { UPGRADE_COMMANDS } from './commands-upgrade.js';
import type { CliIO } from './io.js';
import { describePosition } from './source-position.js';

const COMMANDS: Record<string, Command> = { ...CORE_COMMANDS, ...CONTROLLER_COMMANDS, ...UPGRADE_COMMANDS };

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? 0 : 64;
  }
  const cmd: Command | undefined = COMMANDS[name];
  if (!cmd) {
    io.stderr.write(`kubelet-hash: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 64;
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: cmd.options, allowPositionals: true, strict: true });
    return await cmd.run(values as Record<string, string | boolean | undefined>, positionals, io);
  } catch (e) {
    if (e instanceof KubeletHashError) {
      // Only errors about the input document have a place in its text (not options, not records).
      const aboutInput = e instanceof DecodeError || e instanceof QuantityError;
      const position = aboutInput && io.lastText !== undefined && e.path.length > 0 ? describePosition(io.lastText, e.path) : null;
      io.stderr.write(`error ${e.message}\n${position ? `  at ${position}\n` : ''}`);
      return 2;
    }
    if (e instanceof UsageError || (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`kubelet-hash ${name}: ${e.message}\n  usage: kubelet-hash ${name} ${cmd.usage}\n`);
      return 64;
    }
    if (e instanceof Error && 'code' in e && (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES')) {
      io.stderr.write(`kubelet-hash ${name}: ${e.message}\n`);
      return 66;
    }
    throw e;
  }
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(12)} ${c.summary}\n      kubelet-hash ${n} ${c.usage}`);
  const releases = supportedReleases();
  const range = `${releases[0] ?? ''}–${releases.at(-1) ?? ''}`;
  return `kubelet-hash: the container hash a kubelet computes, for every release ${range}\n\ncommands:\n${lines.join('\n')}\n`;
}
