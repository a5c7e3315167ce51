/**
 * The Go judges of ours (test/support/go/NAME/main.go) as real systems: where
 * .ci/provision/40-go-judges.sh cached each binary, keyed by the packages it was built from and the
 * SHA-256 of its source (so a changed source is never judged by a stale binary). Each entry has an
 * id, a version and a "how to get it" command, in the shape of the registry of real systems.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const GO_SOURCES = join(import.meta.dirname, 'go');
const HOW = 'run as root: bash .ci/provision/40-go-judges.sh (Debian packages only; or CI=true bash .ci/run)';

/** A Go judge: a binary found in the cache, or why there is none. */
export interface GoJudge {
  /** Registry id (also the program's directory under test/support/go). */
  id: string;
  /** What it is, for the lines the tests print. */
  title: string;
  /** The command that builds it. */
  howToGet: string;
  /** The binary, when built for the current source. */
  path?: string;
  /** The packages it was built from (from the cache directory), when built. */
  version?: string;
  /** Why it cannot run here, when it cannot. */
  missing?: string;
}

/** `$KUBELET_HASH_CACHE` as the provision scripts default it. */
export function kubeletHashCache(): string {
  return process.env.KUBELET_HASH_CACHE ?? '/var/cache/kubelet-hash';
}

/** The judge's sources as 40-go-judges.sh hashes them: main.go, and the hash judges' shared protocol. */
function sourceKey(id: string): string {
  const files = [join(GO_SOURCES, id, 'main.go')];
  if (id.startsWith('hash-judge-')) files.push(join(GO_SOURCES, 'hash-judge-protocol', 'protocol.go'));
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(f));
  return hash.digest('hex').slice(0, 12);
}

function locate(id: string, title: string): GoJudge {
  const judge: GoJudge = { id, title, howToGet: HOW };
  if (process.platform !== 'linux') return { ...judge, missing: 'not Linux' };
  const dir = join(kubeletHashCache(), 'go-judges');
  const suffix = `-${sourceKey(id)}`;
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  const found = entries.find((e) => e.startsWith(`${id}-`) && e.endsWith(suffix) && existsSync(join(dir, e, id)));
  if (!found) {
    const stale = entries.some((e) => e.startsWith(`${id}-`));
    return {
      ...judge,
      missing: stale
        ? `${id} in ${dir} was built from another version of test/support/go/${id}/main.go`
        : `${id} is not built (nothing in ${dir})`,
    };
  }
  const version = readFileSync(join(dir, found, 'version'), 'utf8').trim();
  return { ...judge, path: join(dir, found, id), version };
}

/** Real bbolt 1.3.6 (Debian bookworm's golang-github-coreos-bbolt-dev): tx.Check() and the stored hashes. */
export const BBOLT_CHECK = locate('bbolt-check', 'real bbolt');
/** Kubelet 1.20.2's own HashContainer over the real 1.20 types (Debian bookworm's kubernetes source). */
export const HASH_JUDGE_120 = locate('hash-judge-1.20', 'real Go, kubelet 1.20');
/** The 1.36 hash over Debian sid's k8s.io/api 0.36.4, built with Debian's Go 1.27. */
export const HASH_JUDGE_136 = locate('hash-judge-1.36', 'real Go, k8s.io/api 0.36');

const inCi = process.env.CI === 'true';
const warned = new Set<string>();

/**
 * Whether `judge` can run. When it cannot: in CI (`CI=true`) throws, so the test fails; elsewhere
 * prints once which judge did not run and how to get it, and returns false.
 */
export function judgeAvailable(judge: GoJudge): judge is GoJudge & { path: string; version: string } {
  if (judge.path !== undefined) return true;
  if (inCi) throw new Error(`CI requires ${judge.title} (${judge.id}), but ${judge.missing ?? '?'}. ${judge.howToGet}`);
  if (!warned.has(judge.id)) {
    warned.add(judge.id);
    console.warn(`\n[${judge.title}] SKIPPED: ${judge.missing ?? '?'}. To run it: ${judge.howToGet}\n`);
  }
  return false;
}

/** True where a describe block that needs `judge` must run: it is there, or CI requires it. */
export function judgeRequired(judge: GoJudge): boolean {
  return judge.path !== undefined || inCi;
}
