/**
 * A pod's QoS class as the apiserver computes it (pkg/apis/core/helper/qos GetPodQOS): the update
 * and resize rules refuse a change of it, and OpenKruise's in-place resize checks it too.
 */
import { isPlainObject } from '../decode/input.js';
import { parseQuantity, quantityString } from '../quantity/quantity.js';
import { JsonNumber } from '../json/number.js';
import { isAbsent } from './template-diff.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** The pod's QoS class from its containers' cpu and memory (pkg/apis/core/helper/qos GetPodQOS). */
export function qosClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [
    ...(Array.isArray(spec['containers']) ? (spec['containers'] as unknown[]) : []),
    ...(Array.isArray(spec['initContainers']) ? (spec['initContainers'] as unknown[]) : []),
  ];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = obj(obj(c)['resources']);
    const limits = obj(res['limits']);
    const requests = obj(res['requests']);
    for (const r of ['cpu', 'memory']) {
      const l = limits[r];
      // A request defaults to its limit when only the limit is given.
      const q = requests[r] ?? l;
      if (!isAbsent(l) || !isAbsent(q)) any = true;
      if (isAbsent(l) || !sameQuantity(q, l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Equal as quantities (`1` and `1000m` are); text that is no quantity compares as text. */
function sameQuantity(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): string => {
    // A JsonNumber (numbers kept as source text) prints its text.
    const text = typeof v === 'string' || typeof v === 'number' ? String(v) : v instanceof JsonNumber ? v.text : '';
    try {
      return quantityString(parseQuantity(text));
    } catch {
      return text;
    }
  };
  return canonical(a) === canonical(b);
}
