/**
 * Builds the node helper (native/node-helper: our own Go source, standard library only) that the
 * single executable embeds for flock(2) and chroot(2) (src/bbolt/node-helper.ts). Go is pinned:
 * the toolchain at KUBELET_HASH_GO (default /usr/local/go/bin/go) must say GO_VERSION, and
 * GOTOOLCHAIN=local keeps it from fetching another. Static (CGO_ENABLED=0), no paths or build id
 * inside (-trimpath, -buildid=), so a build is the same bytes wherever it runs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The Go release the helper is built with. */
export const GO_VERSION = 'go1.26.8';
/** The helper's Go module. */
export const HELPER_SOURCE = fileURLToPath(new URL('../native/node-helper', import.meta.url));

const GOARCH = { x64: 'amd64', arm64: 'arm64' } as const;

/** Builds the helper for `arch` into `out`; throws when the pinned Go is not there. */
export function buildNodeHelper(arch: keyof typeof GOARCH, out: string, env = process.env): void {
  const go = env.KUBELET_HASH_GO ?? '/usr/local/go/bin/go';
  const goEnv = {
    ...env,
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '0',
    GOOS: 'linux',
    GOARCH: GOARCH[arch],
    GOFLAGS: '-p=1',
  };
  const version = execFileSync(go, ['env', 'GOVERSION'], { env: goEnv, encoding: 'utf8' }).trim();
  if (version !== GO_VERSION)
    throw new Error(`the node helper is built with ${GO_VERSION}; ${go} is ${version} (set KUBELET_HASH_GO)`);
  execFileSync(go, ['build', '-trimpath', '-ldflags=-s -w -buildid=', '-o', out, '.'], {
    cwd: HELPER_SOURCE,
    env: { ...goEnv, GOCACHE: env.GOCACHE ?? join(env.HOME ?? '/root', '.cache', 'go-build') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
