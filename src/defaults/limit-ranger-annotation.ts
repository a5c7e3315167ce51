/** The pod-level result of LimitRanger defaulting: the `kubernetes.io/limit-ranger` annotation. */
import { OptionError } from '../errors.js';
import { isPlainObject, memberOf } from '../decode/input.js';
import { applyApiserverDefaultsReport } from './apply.js';
import { limitRangerAnnotationText } from './limit-ranges.js';

/**
 * The value of the `kubernetes.io/limit-ranger` annotation the LimitRanger plugin puts on a pod
 * created with `podSpec` in a namespace with `limitRanges` (see
 * {@link ApiserverDefaultsOptions.limitRanges}), or null when no LimitRange set anything.
 *
 * @example
 * ```ts
 * import { limitRangerAnnotation } from 'kubelet-hash';
 *
 * const limitRanges = [{ spec: { limits: [{ type: 'Container', default: { memory: '256Mi' } }] } }];
 * limitRangerAnnotation({ containers: [{ name: 'web', image: 'nginx' }] }, { kubeletVersion: '1.20', limitRanges });
 * // → 'LimitRanger plugin set: memory request for container web; memory limit for container web'
 * ```
 */
export function limitRangerAnnotation(
  podSpec: object,
  options: { kubeletVersion: string; limitRanges: unknown; featureGates?: Record<string, boolean> },
): string | null {
  if (!isPlainObject(podSpec)) throw new OptionError('INVALID_OPTION', ['podSpec'], 'a pod spec object');
  const containers: {
    name: string;
    initContainer: boolean;
    set: ReturnType<typeof applyApiserverDefaultsReport>['limitRanger'];
  }[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    const cs = memberOf(podSpec, list);
    if (cs === undefined || cs === null) continue;
    if (!Array.isArray(cs)) throw new OptionError('INVALID_OPTION', ['podSpec', list], 'an array of containers');
    for (const c of cs as unknown[]) {
      const report = applyApiserverDefaultsReport(c as object, { ...options, podSpec, list });
      const name = memberOf(report.container, 'name');
      containers.push({
        name: typeof name === 'string' ? name : '',
        initContainer: list === 'initContainers',
        set: report.limitRanger,
      });
    }
  }
  return limitRangerAnnotationText(containers);
}
