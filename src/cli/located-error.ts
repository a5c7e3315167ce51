/** The CLI's wrapper of a library error that happened in an input file (kept apart so dispatch loads no input code). */
import type { KubeletHashError } from '../errors.js';
import type { SourcePosition } from '../manifests/index.js';

/** A library error, with the file and the place in it that it concerns. */
export class LocatedError extends Error {
  override readonly name = 'LocatedError';
  constructor(
    readonly error: KubeletHashError,
    readonly file: string,
    readonly position: SourcePosition | null,
  ) {
    super(error.message);
  }
}
