/** The package version, read from package.json beside src/ or dist/ (the same relative place in both). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function toolVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
