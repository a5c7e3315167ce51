/**
 * Hostile input for the hashing API: random and mangled JSON text, and containers with a node
 * replaced by something wrong (wrong types, `__proto__`/`constructor` keys, deep nesting, numbers
 * JS or int64 cannot hold, functions, symbols, class instances, cycles). The only acceptable
 * outcomes are a hash or a typed {@link KubeletHashError}; the caller's object is never changed.
 */
import fc from 'fast-check';
import { KubeletHashError, hashContainer, hashContainerWithoutResources } from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot } from '../../src/models/gotype.js';
import { supportedReleases } from '../../src/releases/release-info.js';
import { deepContainerArb } from './deep-arbitraries.js';

/** What a hostile input led to: `hash`, or the error code. */
export type Outcome = 'hash' | KubeletHashError['code'];

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

function cyclic(): object {
  const o: Record<string, unknown> = { name: 'loop' };
  o['env'] = [{ name: 'x', valueFrom: o }];
  return o;
}

/** Values that do not belong anywhere in a container. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    undefined,
    true,
    0,
    -0,
    1.5,
    NaN,
    Infinity,
    -Infinity,
    // eslint-disable-next-line no-loss-of-precision -- a literal beyond float64 on purpose: JavaScript reads it as Infinity
    1e400,
    2 ** 53 + 2,
    -(2 ** 63),
    2n ** 64n,
    -(2n ** 63n) - 1n,
    '',
    '1Gi',
    'x'.repeat(10_000),
    '\ud800',
    [],
    [null],
    {},
    new Date(0),
    new Map([['a', 1]]),
    /re/,
    Symbol('s'),
    () => 1,
    { toJSON: () => ({ name: 'other' }) },
    Object.create({ inherited: 'x' }) as object,
    Object.assign(Object.create(null) as object, { name: 'np' }),
    JSON.parse('{"__proto__": {"name": "proto"}, "constructor": 1}') as object,
    new Uint8Array([1, 2]),
    // eslint-disable-next-line @typescript-eslint/no-extraneous-class -- an instance of a field-less user class is the hostile input
    new (class Opaque {})(),
  ),
  fc.nat({ max: 3000 }).map((d) => nested(d, 'x', true)),
  fc.nat({ max: 3000 }).map((d) => nested(d, 1, false)),
  fc.constant(null).map(cyclic),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.bigInt(),
  fc.double(),
);

/** Replaces one node (chosen by `pick`) of a JSON-like tree by `value`, building a new tree. */
function replaceNode(tree: unknown, pick: number, value: unknown): unknown {
  const nodes: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      nodes.push({ parent: v as Record<string, unknown>, key: Array.isArray(v) ? Number(k) : k });
      walk(x);
    }
  };
  const copy = structuredClone(tree);
  walk(copy);
  if (nodes.length === 0) return value;
  const { parent, key } = nodes[pick % nodes.length]!;
  (parent as Record<string | number, unknown>)[key] = value;
  return copy;
}

const newestRoot = resolveRoot(releaseModel(supportedReleases().at(-1)!));

/** A container object with one node replaced, a member added under a hostile key, or something else entirely. */
const hostileObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(deepContainerArb(newestRoot), fc.nat(), wrongValue).map(([c, pick, v]) => replaceNode(c, pick, v)),
  fc
    .tuple(
      deepContainerArb(newestRoot),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'name'),
      wrongValue,
    )
    .map(([c, key, v]) => {
      const copy: Record<string, unknown> = { ...c };
      Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
      return copy;
    }),
  wrongValue,
);

/** JSON text: random, a valid container's text mangled, or deep nesting. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc
    .tuple(
      deepContainerArb(newestRoot),
      fc.nat(),
      fc.nat({ max: 4 }),
      fc.string({ unit: 'binary-ascii', maxLength: 4 }),
    )
    .map(([c, at, cut, insert]) => {
      const text = JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + cut);
    }),
  fc.nat({ max: 2000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  fc.constantFrom(
    '{"name":"a","name":"b"}',
    '{"name":"\\ud800"}',
    '{"resources":{"limits":{"cpu":1e999}}}',
    '\ufeff{}',
    '',
  ),
);

export const hostileInputArb: fc.Arbitrary<unknown> = fc.oneof(hostileObject, hostileText);

/**
 * A flat record of a tree that tells any change apart: structure, prototypes, own string keys,
 * leaf values, identity of functions and symbols. Iterative, so deep nesting cannot overflow it.
 */
function snapshot(root: unknown): unknown[] {
  const out: unknown[] = [];
  const ids = new Map<object, number>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
      out.push(typeof v, v);
      continue;
    }
    const id = ids.get(v);
    if (id !== undefined) {
      out.push('ref', id);
      continue;
    }
    ids.set(v, ids.size);
    out.push(typeof v, Object.getPrototypeOf(v), v);
    if (typeof v === 'function') continue;
    const keys = Reflect.ownKeys(v).filter((k): k is string => typeof k === 'string');
    out.push(keys.length, ...keys);
    for (const k of keys.reverse()) stack.push((v as Record<string, unknown>)[k]);
  }
  return out;
}

function sameSnapshot(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

/**
 * Hashes `input` for `release` with both hash functions and reports the outcome. Throws (with the
 * reason) when the library threw anything but a KubeletHashError or changed the input.
 */
export function runHostile(input: unknown, release: string): Outcome {
  const before = snapshot(input);
  let outcome: Outcome = 'hash';
  for (const fn of [hashContainer, hashContainerWithoutResources]) {
    try {
      fn(input as object, { kubeletVersion: release });
    } catch (e) {
      if (!(e instanceof KubeletHashError)) {
        throw new Error(
          `raw error from ${fn.name} @${release}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
          { cause: e },
        );
      }
      if (fn === hashContainer || e.code !== 'NOT_AVAILABLE') outcome = outcome === 'hash' ? e.code : outcome;
    }
  }
  const after = snapshot(input);
  if (!sameSnapshot(before, after)) throw new Error(`input changed @${release}`);
  return outcome;
}

export const releaseArb: fc.Arbitrary<string> = fc.constantFrom(...supportedReleases());
