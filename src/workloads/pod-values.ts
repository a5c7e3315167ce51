/**
 * The apiserver validates the whole new Pod before its update rules (ValidatePodUpdate calls
 * validatePodMetadataAndSpec first): a change the update rules allow is still refused when its
 * value is invalid. Restated here for the fields a Pod update may change, per release:
 * activeDeadlineSeconds (ValidatePodSpec), tolerations (ValidateTolerations) and scheduling gate
 * names (validateSchedulingGates). Each refusal carries the path the apiserver prints.
 */
import { isPlainObject } from '../decode/input.js';
import { JsonNumber } from '../json/number.js';
import type { ReleaseInfo } from '../releases/index.js';
import { isAbsent } from './template-diff.js';
import { rolloutRule, type RolloutRuleId } from './rollout-rules.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** A value the apiserver refuses: the rule, the path it prints and its message. */
export interface ValueRefusal {
  ruleId: RolloutRuleId;
  reportedField: string;
  reason: string;
}

const MAX_INT32 = 2147483647;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
// apimachinery's qualified name: an optional DNS-1123 subdomain prefix and a name of at most 63.
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/** IsQualifiedName: `[prefix/]name`, the name 1–63 characters, the prefix a DNS subdomain of at most 253. */
function isQualifiedName(v: string): boolean {
  const parts = v.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? '';
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix.length === 0 || prefix.length > 253 || !SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME.test(name);
}

const intOf = (v: unknown): number | null => {
  const n = v instanceof JsonNumber ? Number(v.text) : typeof v === 'number' ? v : NaN;
  return Number.isInteger(n) ? n : null;
};

/**
 * The first invalid value of the new Pod among the fields a Pod update may change, or null.
 * `oldSpec` decides what a release lets ratchet (Lt/Gt tolerations kept from the old pod).
 */
export function invalidPodValue(oldSpec: Obj, newSpec: Obj, info: ReleaseInfo): ValueRefusal | null {
  return activeDeadline(newSpec) ?? tolerations(oldSpec, newSpec, info) ?? schedulingGates(newSpec, info);
}

function activeDeadline(spec: Obj): ValueRefusal | null {
  const v = spec['activeDeadlineSeconds'];
  if (isAbsent(v)) return null;
  const n = intOf(v);
  if (n !== null && n >= 1 && n <= MAX_INT32) return null;
  return {
    ruleId: 'pod-active-deadline-value',
    reportedField: 'spec.activeDeadlineSeconds',
    reason:
      n === null
        ? `must be an integer (found ${JSON.stringify(v)})`
        : `must be between 1 and ${MAX_INT32}, inclusive (found ${n})`,
  };
}

function tolerations(oldSpec: Obj, newSpec: Obj, info: ReleaseInfo): ValueRefusal | null {
  const list = newSpec['tolerations'];
  if (!Array.isArray(list)) return null;
  const oldList = Array.isArray(oldSpec['tolerations']) ? (oldSpec['tolerations'] as unknown[]) : [];
  // Lt and Gt need TaintTolerationComparisonOperators (alpha, off, from 1.35) or an old pod that already uses them.
  const comparisons =
    info.minor >= rolloutRule('pod-toleration-comparison').firstMinor &&
    oldList.some((t) => ['Lt', 'Gt'].includes(String(obj(t)['operator'])));
  const refuse = (i: number, member: string, reason: string): ValueRefusal => ({
    ruleId: 'pod-toleration-values',
    reportedField: `spec.tolerations[${i}].${member}`,
    reason,
  });
  for (let i = 0; i < list.length; i++) {
    const t = obj(list[i]);
    const key = typeof t['key'] === 'string' ? t['key'] : '';
    const operator = typeof t['operator'] === 'string' ? t['operator'] : '';
    const value = typeof t['value'] === 'string' ? t['value'] : '';
    const effect = typeof t['effect'] === 'string' ? t['effect'] : '';
    if (key !== '' && !isQualifiedName(key)) return refuse(i, 'key', `invalid label name ${JSON.stringify(key)}`);
    if (key === '' && operator !== 'Exists') {
      return refuse(i, 'operator', 'operator must be Exists when `key` is empty');
    }
    if (!isAbsent(t['tolerationSeconds']) && effect !== 'NoExecute') {
      return refuse(i, 'effect', "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    if (operator === 'Equal' || operator === '') {
      // The apiserver reports an invalid value of Equal at `operator`.
      if (value.length > 63 || !LABEL_VALUE.test(value)) {
        return refuse(i, 'operator', `invalid label value ${JSON.stringify(value)}`);
      }
    } else if (operator === 'Exists') {
      if (value !== '') return refuse(i, 'operator', "value must be empty when `operator` is 'Exists'");
    } else if ((operator === 'Lt' || operator === 'Gt') && comparisons) {
      if (!DECIMAL_INTEGER.test(value) || !Number.isSafeInteger(Number(value))) {
        return refuse(i, 'value', `must be a decimal integer (found ${JSON.stringify(value)})`);
      }
    } else {
      return refuse(
        i,
        'operator',
        `Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists"`,
      );
    }
    if (effect !== '' && !EFFECTS.includes(effect)) {
      return refuse(
        i,
        'effect',
        `Unsupported value: ${JSON.stringify(effect)}: supported values: ${EFFECTS.map((e) => `"${e}"`).join(', ')}`,
      );
    }
  }
  return null;
}

function schedulingGates(spec: Obj, info: ReleaseInfo): ValueRefusal | null {
  const list = spec['schedulingGates'];
  if (!Array.isArray(list) || info.minor < rolloutRule('pod-scheduling-gate-values').firstMinor) return null;
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const name = obj(list[i])['name'];
    const text = typeof name === 'string' ? name : '';
    if (!isQualifiedName(text)) {
      return {
        ruleId: 'pod-scheduling-gate-values',
        reportedField: `spec.schedulingGates[${i}]`,
        reason: `invalid name ${JSON.stringify(text)}: a qualified name`,
      };
    }
    if (seen.has(text)) {
      return {
        ruleId: 'pod-scheduling-gate-values',
        reportedField: `spec.schedulingGates[${i}]`,
        reason: `Duplicate value: ${JSON.stringify(text)}`,
      };
    }
    seen.add(text);
  }
  return null;
}
