/**
 * vitest globalSetup: builds the package once (`tsc -p tsconfig.build.json` into dist/), so the CLI
 * tests run the real `kubelet-hash` binary as a child process, as users run it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
