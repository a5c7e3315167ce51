/**
 * The kubelet release a node runs, read rather than typed: `kubelet --version` prints
 * "Kubernetes v1.29.7" (k3s: "Kubernetes v1.29.7+k3s1"), and a Node object's
 * status.nodeInfo.kubeletVersion says "v1.29.7". Both become "1.29.7".
 */
import { execFileSync } from 'node:child_process';
import { OptionError } from '../errors.js';

const VERSION = /v?(\d+\.\d+\.\d+)(?:[-+][0-9A-Za-z.+-]*)?/;

/** "1.29.7" from `kubelet --version` output. */
export function versionOfKubeletOutput(text: string): string {
  const m = /Kubernetes\s+v?(\d+\.\d+\.\d+)/.exec(text);
  if (!m)
    throw new OptionError(
      'INVALID_OPTION',
      ['kubeletBinary'],
      'kubelet --version output: "Kubernetes v1.N.P"',
      `got ${JSON.stringify(text.trim().slice(0, 80))}`,
    );
  return m[1]!;
}

/** Runs `BINARY --version` (read-only; the kubelet prints and exits). */
export function versionOfKubeletBinary(binary: string): string {
  let out: string;
  try {
    out = execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new OptionError(
      'INVALID_OPTION',
      ['kubeletBinary'],
      'a kubelet binary that answers --version',
      (e as Error).message.split('\n')[0],
    );
  }
  return versionOfKubeletOutput(out);
}

/** "1.29.7" from a Node object (kubectl get node NAME -o json|yaml, parsed). */
export function versionOfNodeObject(node: unknown): string {
  const info = (node as { status?: { nodeInfo?: { kubeletVersion?: unknown } } } | null)?.status?.nodeInfo;
  const v = info?.kubeletVersion;
  const m = typeof v === 'string' ? VERSION.exec(v) : null;
  if (!m)
    throw new OptionError(
      'INVALID_OPTION',
      ['node', 'status', 'nodeInfo', 'kubeletVersion'],
      'a Node object with status.nodeInfo.kubeletVersion "v1.N.P"',
      `got ${JSON.stringify(v)}`,
    );
  return m[1]!;
}
