/**
 * The api-judges as real systems: one Go program (test/support/go/api-judge) built per kubelet minor
 * of test/support/go/api-judge/releases.txt against that minor's k8s.io/api module, which
 * .ci/provision/45-api-judges.sh caches under `$KUBELET_HASH_CACHE/go-judges/` keyed by the module
 * versions, the Go that built it and the SHA-256 of the sources (a changed source is never judged by
 * a stale binary).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonEscapeMode } from '../../src/models/json-escapes.js';
import { kubeletHashCache } from './go-judges.js';

const GO_SOURCES = join(import.meta.dirname, 'go');
export const API_JUDGES_HOW =
  'run as root: bash .ci/provision/45-api-judges.sh (the Go module proxy and /usr/local/go; or CI=true bash .ci/run)';

/** How the minor's kubelet hashes (releases.txt's ALGORITHM; `json+wr`: json and without resources). */
type ApiJudgeAlgorithm = 'legacy' | 'json' | 'json+wr' | 'name-image';

/** One line of releases.txt, with its binary when built. */
export interface ApiJudge {
  /** The kubelet minor (`1.27`). */
  minor: string;
  algorithm: ApiJudgeAlgorithm;
  /** The k8s.io/api module version it is built against. */
  api: string;
  apimachinery: string;
  /** The binary, when built for the current sources. */
  path?: string;
  /** `k8s.io/api v… k8s.io/apimachinery v… github.com/davecgh/go-spew v… go1.26.8`, as linked. */
  version?: string;
  /** The Go release that built it (`go1.26.8`). */
  go?: string;
  /** Why it is not there. */
  missing?: string;
}

const ALGORITHMS: ReadonlySet<string> = new Set(['legacy', 'json', 'json+wr', 'name-image']);

/** releases.txt: `MINOR ALGORITHM API APIMACHINERY` lines; `#` comments. */
function apiJudgeReleases(): ApiJudge[] {
  const text = readFileSync(join(GO_SOURCES, 'api-judge', 'releases.txt'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [minor, algorithm, api, apimachinery, ...rest] = l.trim().split(/\s+/);
      if (!minor || !algorithm || !ALGORITHMS.has(algorithm) || !api || !apimachinery || rest.length)
        throw new Error(`releases.txt: cannot read ${JSON.stringify(l)}`);
      return { minor, algorithm: algorithm as ApiJudgeAlgorithm, api, apimachinery };
    });
}

/** The sources as 45-api-judges.sh hashes them: main.go, then the shared protocol. */
function sourceKey(): string {
  const hash = createHash('sha256');
  for (const f of [join(GO_SOURCES, 'api-judge', 'main.go'), join(GO_SOURCES, 'hash-judge-protocol', 'protocol.go')])
    hash.update(readFileSync(f));
  return hash.digest('hex').slice(0, 12);
}

/** Every release of releases.txt, with its binary where 45-api-judges.sh built it for these sources. */
export function apiJudges(): ApiJudge[] {
  const dir = join(kubeletHashCache(), 'go-judges');
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  const suffix = `-${sourceKey()}`;
  return apiJudgeReleases().map((j) => {
    if (process.platform !== 'linux') return { ...j, missing: 'not Linux' };
    const prefix = `api-judge-${j.minor}-api${j.api}-apimachinery${j.apimachinery}-`;
    const found = entries.find(
      (e) => e.startsWith(prefix) && e.endsWith(suffix) && existsSync(join(dir, e, 'api-judge')),
    );
    if (!found) {
      const stale = entries.some((e) => e.startsWith(prefix));
      return {
        ...j,
        missing: stale
          ? `api-judge ${j.minor} in ${dir} was built from other sources`
          : `api-judge ${j.minor} is not built (nothing in ${dir})`,
      };
    }
    const version = readFileSync(join(dir, found, 'version'), 'utf8').trim();
    const go = version.split(' ').at(-1) ?? '';
    return { ...j, path: join(dir, found, 'api-judge'), version, go };
  });
}

/**
 * The encoding/json escaping of the Go that built a judge: `\b`/`\f` from Go 1.22 on. The library is
 * compared configured for the judge's toolchain, not the `.0` kubelet's.
 */
export function escapesOfGo(go: string): JsonEscapeMode {
  const m = /^go1\.(\d+)(?:\.|$|rc|beta)/.exec(go);
  if (!m) throw new Error(`cannot read the Go release ${JSON.stringify(go)}`);
  return Number(m[1]) >= 22 ? 'go1.22' : 'pre-go1.22';
}
