/** Validation of the options objects public functions take (zod at the edge, typed errors out). */
import { z } from 'zod';
import { OptionError } from '../errors.js';
import type { JsonEscapeMode } from '../encode/gojson-string.js';
import { releaseInfo, type ReleaseInfo } from '../releases/registry.js';

export interface HashOptions {
  /** The kubelet's version: `1.27`, `1.27.4`, `v1.27.4`, or a node's `v1.27.4-eks-…`. */
  kubeletVersion: string;
  /**
   * Which Go toolchain's encoding/json escaping of BS/FF to use. Defaults to that of the release's
   * `.0` build; late 1.29.x patches were built with Go 1.22 and need `'go1.22'`.
   */
  jsonEscapes?: JsonEscapeMode;
}

const hashOptionsSchema = z.object({
  kubeletVersion: z.string(),
  jsonEscapes: z.enum(['go1.22', 'pre-go1.22']).optional(),
});

export interface ResolvedHashOptions {
  info: ReleaseInfo;
  jsonEscapes: JsonEscapeMode | undefined;
}

/** Checks an options object and resolves its release, or throws an {@link OptionError}/ReleaseError. */
export function resolveHashOptions(options: unknown, name = 'options'): ResolvedHashOptions {
  const parsed = hashOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OptionError('INVALID_OPTION', [name, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], describeIssue(issue), issue.message);
  }
  return { info: releaseInfo(parsed.data.kubeletVersion, [name, 'kubeletVersion']), jsonEscapes: parsed.data.jsonEscapes };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.path.length === 0) return 'an options object such as { kubeletVersion: "1.27" }';
  const key = String(issue.path[issue.path.length - 1]);
  if (key === 'kubeletVersion') return 'a kubelet version string such as "1.27"';
  if (key === 'jsonEscapes') return '"go1.22" or "pre-go1.22"';
  return 'a valid option value';
}
