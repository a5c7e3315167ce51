/**
 * The package version, read from package.json beside src/ (`npm run cli`). The bundles (`npm run
 * build`, `build:exe`) replace this module with one returning the version, written in at build time.
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function toolVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
