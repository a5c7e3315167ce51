/**
 * CommonJS callers: `require('kubelet-hash')` loads the ES module package on Node 20.19+ and
 * 22.12+ (require(esm), no flag), because the library's module graph has no top-level await.
 * Runs the built package (dist/, from the vitest global setup) in a child process, as a
 * CommonJS script would. README "CommonJS" documents it.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const requireEsm = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23;

describe('CommonJS require()', () => {
  it.runIf(requireEsm)(`require('kubelet-hash') works on Node ${process.versions.node}`, () => {
    const script = [
      "const k = require('kubelet-hash');",
      "process.stdout.write(k.hashContainer({ name: 'a', image: 'b' }, { kubeletVersion: '1.29' }));",
    ].join('\n');
    // A CommonJS script resolving the package by name from the project root (its own package name).
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], { encoding: 'utf8' });
    expect(out).toBe('2979ff34');
  });
});
