/**
 * The CLI's own error: a mistake in the command line itself. Every refusal of what the command
 * line names (a file, a hash, a record, a plan) is the library's typed error, with its code.
 */

/** A mistake in the command line itself (exit 2 with the usage line). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';
}
