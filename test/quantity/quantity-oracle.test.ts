/**
 * Every quantity in the oracle, checked both ways the kubelet hashes it:
 * (a) the canonical string in the JSON pre-images (1.16–1.30),
 * (b) the Go memory layout in the go-spew pre-images (1.8–1.15).
 * Quantities are read with their JSON source text (a number like `1E3` must stay `1E3`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  roundTripQuantity,
  quantityString,
  unmarshalQuantity,
  zeroQuantity,
  type QuantityToken,
  type QuantityValue,
} from '../../src/quantity/quantity.js';
import { compareGoStrings } from '../../src/go/value.js';
import { member, parseWithSource, type SourceNode } from '../support/json-source.js';
import { spewQuantity, spewQuantityField } from '../support/spew-quantity.js';

const ORACLE = new URL('../../fixtures/oracle/', import.meta.url);

interface ExpectedRow {
  case: string;
  version: string;
  algorithm: 'legacy' | 'json' | 'name-image';
  preimage: string;
}

function tokenOf(node: SourceNode): QuantityToken {
  switch (node.kind) {
    case 'null':
      return { kind: 'null' };
    case 'string':
      return { kind: 'string', text: node.text, raw: node.raw };
    case 'number':
      return { kind: 'number', text: node.text };
    default:
      throw new Error(`not a quantity token: ${node.kind}`);
  }
}

interface CaseQuantities {
  /** ResourceList entries after the round trip, last duplicate wins like encoding/json. */
  lists: Record<'limits' | 'requests', Map<string, QuantityValue> | null>;
  /** Divisors of env[i].valueFrom.resourceFieldRef, in env order (zero value when absent). */
  divisors: Array<{ env: number; q: QuantityValue }>;
}

function collect(container: SourceNode): CaseQuantities {
  const resources = member(container, 'resources');
  const list = (name: 'limits' | 'requests'): Map<string, QuantityValue> | null => {
    const node = member(resources, name);
    if (node?.kind !== 'object') return null;
    const out = new Map<string, QuantityValue>();
    for (const [key, value] of node.members) {
      out.set(key, roundTripQuantity(unmarshalQuantity(tokenOf(value), ['resources', name, key])));
    }
    return out;
  };
  const divisors: CaseQuantities['divisors'] = [];
  const env = member(container, 'env');
  if (env?.kind === 'array') {
    env.items.forEach((item, index) => {
      const ref = member(member(item, 'valueFrom'), 'resourceFieldRef');
      if (ref?.kind !== 'object') return;
      const divisor = member(ref, 'divisor');
      const q = divisor === undefined ? zeroQuantity() : unmarshalQuantity(tokenOf(divisor));
      divisors.push({ env: index, q: roundTripQuantity(q) });
    });
  }
  return { lists: { limits: list('limits'), requests: list('requests') }, divisors };
}

/** The `Divisor:(resource.Quantity){…}` texts of a spew pre-image, in order. */
function spewDivisors(preimage: string): string[] {
  const found: string[] = [];
  const marker = 'Divisor:';
  for (let at = preimage.indexOf(marker); at >= 0; at = preimage.indexOf(marker, at + 1)) {
    let i = preimage.indexOf('{', at);
    let depth = 0;
    do {
      if (preimage[i] === '{') depth++;
      else if (preimage[i] === '}') depth--;
      i++;
    } while (depth > 0 && i < preimage.length);
    found.push(preimage.slice(at + marker.length, i));
  }
  return found;
}

function spewList(field: 'Limits' | 'Requests', list: Map<string, QuantityValue>): string {
  if (list.size === 0) return `${field}:(v1.ResourceList)<nil>`;
  const entries = [...list].sort(([a], [b]) => compareGoStrings(a, b));
  return `${field}:(v1.ResourceList)map[${entries.map(([k, q]) => `${k}:${spewQuantity(q)}`).join(' ')}]`;
}

const cases = readFileSync(new URL('cases.ndjson', ORACLE), 'utf8')
  .split('\n')
  .filter((line) => line.length > 0)
  .map((line) => parseWithSource(line));
const expected = readFileSync(new URL('expected.ndjson', ORACLE), 'utf8')
  .split('\n')
  .filter((line) => line.length > 0)
  .map((line) => JSON.parse(line) as ExpectedRow);

describe('quantities in the oracle', () => {
  // Collected inside the tests (not while collecting them), so coverage is attributed to tests.
  let collected: Map<string, CaseQuantities> | undefined;
  const quantitiesByCase = (): Map<string, CaseQuantities> => {
    if (collected) return collected;
    collected = new Map<string, CaseQuantities>();
    for (const c of cases) {
      const id = member(c, 'case');
      const container = member(c, 'container');
      if (id?.kind !== 'string' || container === undefined) throw new Error('bad case line');
      collected.set(id.text, collect(container));
    }
    return collected;
  };

  it('reads every case and finds the quantities', () => {
    let listed = 0;
    let divisors = 0;
    for (const q of quantitiesByCase().values()) {
      listed += (q.lists.limits?.size ?? 0) + (q.lists.requests?.size ?? 0);
      divisors += q.divisors.length;
    }
    expect(quantitiesByCase().size).toBe(163);
    expect({ listed, divisors }).toEqual({ listed: 266, divisors: 17 });
  });

  it('(a) JSON pre-images (1.16–1.30) carry quantityString of every round-tripped quantity', () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const row of expected) {
      if (row.algorithm !== 'json') continue;
      const qs = quantitiesByCase().get(row.case)!;
      const json = JSON.parse(row.preimage) as {
        resources?: Record<string, Record<string, string> | undefined>;
        env?: Array<{ valueFrom?: { resourceFieldRef?: { divisor?: string } } }>;
      };
      for (const name of ['limits', 'requests'] as const) {
        for (const [key, q] of qs.lists[name] ?? []) {
          checked++;
          const got = json.resources?.[name]?.[key];
          if (got !== quantityString(q))
            mismatches.push(`${row.case}@${row.version} ${name}[${key}]: ${got} ≠ ${quantityString(q)}`);
        }
      }
      for (const { env, q } of qs.divisors) {
        checked++;
        const got = json.env?.[env]?.valueFrom?.resourceFieldRef?.divisor;
        if (got !== quantityString(q))
          mismatches.push(`${row.case}@${row.version} env[${env}] divisor: ${got} ≠ ${quantityString(q)}`);
      }
    }
    expect(mismatches).toEqual([]);
    // 283 quantities × 15 json-era releases.
    expect(checked).toBe(283 * 15);
  });

  it('(b) spew pre-images (1.8–1.15) carry the exact Go layout of every round-tripped quantity', () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const row of expected) {
      if (row.algorithm !== 'legacy') continue;
      const qs = quantitiesByCase().get(row.case)!;
      for (const [name, field] of [
        ['limits', 'Limits'],
        ['requests', 'Requests'],
      ] as const) {
        const list = qs.lists[name];
        if (list === null || list.size === 0) continue;
        checked += list.size;
        const text = spewList(field, list);
        if (!row.preimage.includes(text)) mismatches.push(`${row.case}@${row.version} ${field}: ${text}`);
      }
      const found = spewDivisors(row.preimage);
      const want = qs.divisors.map(({ q }) => spewQuantityField(q));
      checked += want.length;
      if (JSON.stringify(found) !== JSON.stringify(want)) {
        mismatches.push(`${row.case}@${row.version} divisors: ${found.join(' | ')} ≠ ${want.join(' | ')}`);
      }
    }
    expect(mismatches).toEqual([]);
    // 283 quantities × 8 legacy releases.
    expect(checked).toBe(283 * 8);
  });
});
