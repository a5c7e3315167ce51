/**
 * The pod-actions judges as real systems: each release's own computePodActions, built by
 * .ci/provision/47-pod-actions-judges.sh from test/support/go/pod-actions-judge (main.go, judge.go
 * and the release's adapter files of releases.txt) and cached under `$KUBELET_HASH_CACHE/go-judges/`
 * keyed by the release, the Go that built it, its tags and the SHA-256 of those sources (a changed
 * source is never judged by a stale binary).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { kubeletHashCache } from './go-judges.js';

const SOURCES = join(import.meta.dirname, 'go', 'pod-actions-judge');
export const POD_ACTIONS_JUDGES_HOW =
  'run as root: bash .ci/provision/47-pod-actions-judges.sh (the Go module proxy, /usr/local/go and bookworm’s 1.20.2 tree; or CI=true bash .ci/run)';

/** One line of releases.txt, with its binary when built. */
export interface PodActionsJudge {
  /** The kubelet minor (`1.28`). */
  minor: string;
  /** The Kubernetes release whose kuberuntime package it runs (`1.28.15`). */
  release: string;
  /** The binary, when built for the current sources. */
  path?: string;
  /** What it was built from (`k8s.io/kubernetes v1.28.15 … go1.26.8 tags providerless`). */
  version?: string;
  /** Why it is not there. */
  missing?: string;
}

/** releases.txt: `MINOR RELEASE ADAPTER...` lines; `#` comments. */
function releases(): (PodActionsJudge & { adapters: string[] })[] {
  return readFileSync(join(SOURCES, 'releases.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [minor, release, ...adapters] = l.trim().split(/\s+/);
      if (!minor || !release || adapters.length === 0)
        throw new Error(`releases.txt: cannot read ${JSON.stringify(l)}`);
      return { minor, release, adapters };
    });
}

/** The sources as 47-pod-actions-judges.sh hashes them: main.go, judge.go, then the adapters. */
function sourceKey(adapters: readonly string[]): string {
  const hash = createHash('sha256');
  for (const f of ['main.go', 'judge.go', ...adapters]) hash.update(readFileSync(join(SOURCES, f)));
  return hash.digest('hex').slice(0, 12);
}

/** Every release of releases.txt, with its binary where 47-pod-actions-judges.sh built it for these sources. */
export function podActionsJudges(): PodActionsJudge[] {
  const dir = join(kubeletHashCache(), 'go-judges');
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  return releases().map(({ adapters, ...j }) => {
    if (process.platform !== 'linux') return { ...j, missing: 'not Linux' };
    const prefix = `pod-actions-judge-${j.minor}-v${j.release}-`;
    const suffix = `-${sourceKey(adapters)}`;
    const found = entries.find(
      (e) => e.startsWith(prefix) && e.endsWith(suffix) && existsSync(join(dir, e, 'pod-actions-judge')),
    );
    if (!found) {
      const stale = entries.some((e) => e.startsWith(prefix));
      return {
        ...j,
        missing: stale
          ? `pod-actions-judge ${j.minor} in ${dir} was built from other sources`
          : `pod-actions-judge ${j.minor} is not built (nothing in ${dir})`,
      };
    }
    const version = readFileSync(join(dir, found, 'version'), 'utf8').trim();
    return { ...j, path: join(dir, found, 'pod-actions-judge'), version };
  });
}
