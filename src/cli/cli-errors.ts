/** The CLI's own errors: a mistake in the command line, or a refusal to give a verdict. */

/** A mistake in the command line itself (exit 2 with the usage line). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';
}

/** The CLI declines to give a verdict on what it was given (exit 2); `code` says why. */
export class RefusalError extends Error {
  override readonly name = 'RefusalError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
