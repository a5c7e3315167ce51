/**
 * Kubelet version strings as people and nodes write them: `1.27`, `1.27.4`, `v1.27.4`, and node
 * strings with vendor suffixes such as `v1.27.4-eks-2d98532` or `v1.26.5+k3s1`, and what
 * `kubelet --version` prints (`Kubernetes v1.27.4`). The minor picks the release; the patch picks
 * the Go toolchain of later patch builds (`toolchain.ts`).
 */
import { ReleaseError } from '../errors.js';

export interface KubeletVersion {
  /** The minor release this version hashes as: `1.27`. */
  release: string;
  minor: number;
  patch: number | null;
  /** The text as given. */
  raw: string;
}

// `kubelet --version` prints `Kubernetes v1.29.7`: the word is accepted before the version.
const VERSION_RE = /^(?:Kubernetes\s+)?v?1\.(0|[1-9]\d{0,3})(?:\.(0|[1-9]\d{0,5}))?(?:[-+][0-9A-Za-z.+-]*)?$/;

export function parseKubeletVersion(
  text: unknown,
  path: readonly (string | number)[] = ['kubeletVersion'],
): KubeletVersion {
  if (typeof text !== 'string') {
    throw new ReleaseError(
      'INVALID_VERSION',
      path,
      'a kubelet version string such as "1.27", "1.27.4" or "v1.27.4"',
      `found ${typeof text}`,
    );
  }
  const m = VERSION_RE.exec(text.trim());
  if (!m) {
    throw new ReleaseError(
      'INVALID_VERSION',
      path,
      'a kubelet version string such as "1.27", "1.27.4" or "v1.27.4"',
      `found ${JSON.stringify(text)}`,
    );
  }
  const minor = Number(m[1]);
  return { release: `1.${minor}`, minor, patch: m[2] === undefined ? null : Number(m[2]), raw: text };
}
