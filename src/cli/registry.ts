/** Every CLI command, in the order `--help` lists them. A new command module adds its list here. */
import { z } from 'zod';
import type { CommandDef } from './command.js';
import { CORE_COMMANDS } from './commands.js';
import { CONTROLLER_COMMANDS } from './commands-controllers.js';
import { doctor } from './commands-doctor.js';
import { fleet } from './commands-fleet.js';
import { hold, holdAudit } from './commands-hold.js';
import { NODE_COMMANDS } from './commands-plan.js';
import { PREDICT_COMMANDS } from './commands-predict.js';
import { UPGRADE_COMMANDS } from './commands-upgrade.js';
import { upgradeNodeCommand } from './commands-upgrade-node.js';
import { documentSchema } from './output-schema.js';

export const COMMANDS: readonly CommandDef[] = [
  ...CORE_COMMANDS,
  ...CONTROLLER_COMMANDS,
  ...PREDICT_COMMANDS,
  ...NODE_COMMANDS,
  ...UPGRADE_COMMANDS,
  upgradeNodeCommand,
  doctor,
  hold,
  holdAudit,
  fleet,
];

/** The `--json` document of any command (discriminated by `command`). */
export function outputSchema(commands: readonly CommandDef[] = COMMANDS) {
  const [first, ...rest] = commands.map((c) => documentSchema(c.name, c.output));
  if (first === undefined) throw new Error('outputSchema: no commands');
  return z.discriminatedUnion('command', [first, ...rest]);
}
