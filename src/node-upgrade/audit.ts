/**
 * Who made a plan, a backup or a report, and when: the audit stamp plans, apply and verify reports
 * (and the backup manifest) carry, so a file found on a node months later says where it came from.
 * One type and one schema for all of them.
 */
import { hostname } from 'node:os';
import { lazySchema } from '../on-demand.js';

/**
 * When, where and by what a plan, backup or report was made.
 *
 * @example
 * ```ts
 * import { auditStamp, type AuditStamp } from 'kubelet-hash/node';
 * const stamp: AuditStamp = auditStamp({ command: 'kubelet-hash plan --from 1.30 --to 1.31', toolVersion: '0.4.0', now: new Date(0), host: 'node-a' });
 * stamp.createdAt; // → '1970-01-01T00:00:00.000Z'
 * stamp.tool; // → 'kubelet-hash 0.4.0'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export interface AuditStamp {
  /** When it was made (ISO 8601, UTC). */
  createdAt: string;
  /** The host it was made on (`os.hostname()`). */
  host: string;
  /** The tool and its version, `kubelet-hash 0.4.0`. */
  tool: string;
  /** The command line (or library call) that made it. */
  command: string;
}

/** The audit stamp as zod reads it from a plan file or a manifest (built on first use). */
export const auditStampSchema = lazySchema((z) =>
  z.object({
    /** When it was made (ISO 8601, UTC). */
    createdAt: z.iso.datetime(),
    /** The host it was made on. */
    host: z.string(),
    /** The tool and its version, `kubelet-hash 0.4.0`. */
    tool: z.string(),
    /** The command line (or library call) that made it. */
    command: z.string(),
  }),
);

/**
 * A stamp for now, on this host. `toolVersion` is the caller's (the CLI passes its own version).
 *
 * @example
 * ```ts
 * import { auditStamp } from 'kubelet-hash/node';
 * auditStamp({ command: 'my-agent apply', toolVersion: '0.4.0', host: 'node-a', now: new Date(0) }).command; // → 'my-agent apply'
 * ```
 *
 * @group Upgrades and runtime stores
 */
export function auditStamp(options: { command: string; toolVersion: string; now?: Date; host?: string }): AuditStamp {
  return {
    createdAt: (options.now ?? new Date()).toISOString(),
    host: options.host ?? hostname(),
    tool: `kubelet-hash ${options.toolVersion}`,
    command: options.command,
  };
}
