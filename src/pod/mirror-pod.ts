/**
 * Which pod uid a node's records carry. A mirror pod (the apiserver's copy of a static pod) has a
 * uid of its own, but the kubelet labels the static pod's containers with the static pod's uid,
 * which the mirror pod carries in an annotation.
 */
import { isPlainObject, memberOf } from '../decode/input.js';

export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** The static pod's uid a mirror pod's `metadata` carries, or undefined for any other pod. */
export function mirroredPodUid(metadata: unknown): string | undefined {
  const annotations = isPlainObject(metadata) ? memberOf(metadata, 'annotations') : undefined;
  const mirror = isPlainObject(annotations) ? memberOf(annotations, MIRROR_ANNOTATION) : undefined;
  return typeof mirror === 'string' ? mirror : undefined;
}
