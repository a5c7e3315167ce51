/** The audit stamp of a command run: its command line, this tool's version, now, this host. */
import { auditStamp, type AuditStamp } from '../node-upgrade/index.js';
import type { CommandContext } from './command.js';
import { toolVersion } from './version.js';

/** Each argument quoted when it needs it, so the line can be run again. */
const quoted = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

export function commandAudit(ctx: CommandContext): AuditStamp {
  return auditStamp({
    command: ['kubelet-hash', ...(ctx.argv ?? [])].map(quoted).join(' '),
    toolVersion: toolVersion(),
  });
}
