/** The typed error a call throws, for tests that assert its code, path, expected and detail. */
import { isKubeletHashError, type KubeletHashError } from '../../src/errors.js';

export function errorOf(fn: () => unknown): KubeletHashError {
  try {
    fn();
  } catch (e) {
    if (isKubeletHashError(e)) return e;
    throw new Error(`expected a KubeletHashError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected an error');
}
