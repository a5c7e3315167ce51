/**
 * The text of the bundled example pod (examples/pod.json), read from the package when run from
 * src/. The bundles (`npm run build`'s dist/, `npm run build:exe`'s executable) replace this module
 * with one that returns the same text, written in at build time (scripts/bundle-plugins.ts).
 */
import { readFileSync } from 'node:fs';

export function examplePodText(): string {
  return readFileSync(new URL('../../examples/pod.json', import.meta.url), 'utf8');
}
