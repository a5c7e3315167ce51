/** The decode stage: Go Unmarshal semantics, typed errors, exact int64, hostile input. */
import { describe, expect, it } from 'vitest';
import {
  DecodeError,
  QuantityError,
  ReleaseError,
  hashContainer,
  hashContainerWithoutResources,
  parseJson,
  preimage,
  supportedReleases,
  validateContainer,
} from '../../src/index.js';
import { errorOf } from '../support/error-of.js';

const v = { kubeletVersion: '1.29' };

describe('decode', () => {
  it('names the JSON path and what was expected for wrong types', () => {
    const e = errorOf(() => hashContainer({ name: 'a', ports: [{ containerPort: '80' }] }, v));
    expect(e).toBeInstanceOf(DecodeError);
    expect(e.code).toBe('INVALID_TYPE');
    expect(e.path).toEqual(['ports', 0, 'containerPort']);
    expect(e.expected).toBe('an int32');
    expect(e.message).toContain('.ports[0].containerPort');
  });

  it('rejects out-of-range int32 and non-integers, as Go strconv.ParseInt would', () => {
    expect(errorOf(() => hashContainer({ ports: [{ containerPort: 2 ** 31 }] }, v)).code).toBe('INT_OUT_OF_RANGE');
    expect(errorOf(() => hashContainer({ ports: [{ containerPort: 1.5 }] }, v)).code).toBe('NOT_AN_INTEGER');
    expect(errorOf(() => hashContainer('{"ports":[{"containerPort":8e1}]}', v)).code).toBe('NOT_AN_INTEGER');
    expect(errorOf(() => hashContainer('{"ports":[{"containerPort":80.0}]}', v)).code).toBe('NOT_AN_INTEGER');
  });

  it('keeps int64 exact beyond 2^53 (bigint or JSON text) and refuses rounded JS numbers', () => {
    const text = '{"name":"x","securityContext":{"runAsUser":9007199254740993}}';
    expect(preimage(text, v).text).toContain('"runAsUser":9007199254740993');
    expect(preimage({ name: 'x', securityContext: { runAsUser: 9007199254740993n } }, v).text).toContain(
      '9007199254740993',
    );
    expect(preimage(text, { kubeletVersion: '1.15' }).text).toContain('RunAsUser:(*int64)9007199254740993');
    const e = errorOf(() => hashContainer({ securityContext: { runAsUser: 2 ** 60 } }, v));
    expect(e.code).toBe('UNSAFE_INTEGER');
    expect(e.path).toEqual(['securityContext', 'runAsUser']);
    expect(errorOf(() => hashContainer({ securityContext: { runAsUser: 2n ** 63n } }, v)).code).toBe(
      'INT_OUT_OF_RANGE',
    );
  });

  it('reports invalid quantities with their path', () => {
    const e = errorOf(() => hashContainer({ resources: { limits: { cpu: 'lots' } } }, v));
    expect(e).toBeInstanceOf(QuantityError);
    expect(e.code).toBe('INVALID_QUANTITY');
    expect(e.path).toEqual(['resources', 'limits', 'cpu']);
  });

  it('rejects non-object containers and bad nested shapes', () => {
    for (const bad of [null, 42, 'x', [], new Map()]) {
      const e = errorOf(() => hashContainer(bad as object, { kubeletVersion: '1.20' }));
      expect(e.code === 'INVALID_TYPE' || e.code === 'INVALID_JSON').toBe(true);
    }
    expect(errorOf(() => hashContainer({ env: {} }, v)).path).toEqual(['env']);
    expect(errorOf(() => hashContainer({ resources: { limits: [] } }, v)).path).toEqual(['resources', 'limits']);
    expect(errorOf(() => hashContainer({ stdin: 'true' }, v)).expected).toBe('a boolean');
  });

  it('drops unknown fields and does not mutate the input', () => {
    const c = { name: 'a', image: 'b', notAField: { deep: [1, 2] }, resources: { limits: { cpu: '0.5' } } };
    const copy = structuredClone(c);
    Object.freeze(c.resources.limits);
    expect(hashContainer(c, v)).toBe(
      hashContainer({ name: 'a', image: 'b', resources: { limits: { cpu: '500m' } } }, v),
    );
    expect(c).toEqual(copy);
  });

  it('treats __proto__ and constructor keys as data', () => {
    const text =
      '{"name":"a","__proto__":{"image":"evil"},"constructor":1,"resources":{"limits":{"__proto__":"1","constructor":"2"}}}';
    expect(preimage(text, v).text).toBe('{"name":"a","resources":{"limits":{"__proto__":"1","constructor":"2"}}}');
    expect(({} as Record<string, unknown>)['image']).toBeUndefined();
    const viaParse = JSON.parse(text) as object;
    expect(hashContainer(viaParse, v)).toBe(hashContainer(text, v));
  });

  it('survives cyclic and very large objects: decoding follows the Go types, not the object graph', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', image: 'x' };
    cyclic['securityContext'] = cyclic; // decodes as a SecurityContext: every key is unknown there
    cyclic['self'] = cyclic;
    expect(preimage(cyclic, v).text).toBe('{"name":"loop","image":"x","resources":{},"securityContext":{}}');
    const env = Array.from({ length: 50_000 }, (_, i) => ({ name: `E${i}`, value: String(i) }));
    const big = { name: 'big', env };
    const text = preimage(big, v).text;
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(hashContainer(JSON.stringify(big), v)).toBe(hashContainer(big, v));
  });

  it('refuses JSON nested deeper than the limit instead of overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(errorOf(() => parseJson(deep)).code).toBe('TOO_DEEP');
    expect(errorOf(() => parseJson('{"a":1,}')).code).toBe('INVALID_JSON');
  });

  it('refuses a malformed field even where the release hashes only name and image (the kubelet decodes it all)', () => {
    for (const input of [{ name: 'a', ports: 'nope' }, '{"name":"a","ports":"nope"}']) {
      expect(errorOf(() => hashContainer(input, { kubeletVersion: '1.31' })).path).toEqual(['ports']);
      expect(
        errorOf(() => {
          validateContainer(input, { kubeletVersion: '1.31' });
        }).path,
      ).toEqual(['ports']);
    }
  });

  it('serialises errors as plain data, detail included', () => {
    const e = errorOf(() => hashContainer({ stdin: 'yes' }, v));
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'DecodeError',
      code: 'INVALID_TYPE',
      path: ['stdin'],
      expected: 'a boolean',
      detail: 'found string "yes"',
      message: 'INVALID_TYPE at .stdin: expected a boolean (found string "yes")',
    });
  });

  it('refuses hashWithoutResources outside 1.27–1.30 with a ReleaseError', () => {
    for (const release of ['1.26', '1.31', '1.15']) {
      const e = errorOf(() => hashContainerWithoutResources({ name: 'a' }, { kubeletVersion: release }));
      expect(e).toBeInstanceOf(ReleaseError);
      expect(e.code).toBe('NOT_AVAILABLE');
    }
  });

  it('checks options and versions with typed errors', () => {
    expect(errorOf(() => hashContainer({}, { kubeletVersion: '1.7' })).code).toBe('UNSUPPORTED_RELEASE');
    const releases = supportedReleases();
    const next = `1.${Number(releases.at(-1)!.split('.')[1]) + 1}.0`;
    expect(errorOf(() => hashContainer({}, { kubeletVersion: next })).message).toContain(`1.8 to ${releases.at(-1)!}`);
    expect(errorOf(() => hashContainer({}, { kubeletVersion: 'latest' })).code).toBe('INVALID_VERSION');
    expect(errorOf(() => hashContainer({}, {} as { kubeletVersion: string })).code).toBe('INVALID_OPTION');
    expect(errorOf(() => hashContainer({}, undefined as unknown as { kubeletVersion: string })).path).toEqual([
      'options',
    ]);
  });
});
