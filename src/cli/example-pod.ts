/**
 * The text of the bundled example pod (examples/pod.json), read from the package. The single
 * executable has no package beside it: `npm run build:exe` replaces this module with one that
 * returns the same text, written in at bundle time.
 */
import { readFileSync } from 'node:fs';

export function examplePodText(): string {
  return readFileSync(new URL('../../examples/pod.json', import.meta.url), 'utf8');
}
