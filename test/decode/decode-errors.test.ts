/**
 * Every decode error branch, pinned to the exact typed error a caller sees: class, code, JSON path,
 * `expected` and `detail`. The messages are user-facing (CLI output, logs), so their wording is part
 * of the contract. `validateContainer` decodes the whole container with the release's model (the
 * tree path); `hashContainer` tries the fused hasher first and must fail the same way.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { JsonNumber, hashContainer, preimage, validateContainer } from '../../src/index.js';
import { isKubeletHashError } from '../../src/errors.js';

const v = { kubeletVersion: '1.29' };
const legacy = { kubeletVersion: '1.15' };
const nameImage = { kubeletVersion: '1.31' };

interface ErrorData {
  name: string;
  code: string;
  path: (string | number)[];
  expected: string;
  detail?: string;
}

/** The error `fn` throws, as plain data without the message (which only concatenates these fields). */
function failure(fn: () => unknown): ErrorData {
  try {
    fn();
  } catch (e) {
    if (!isKubeletHashError(e)) throw new Error(`expected a KubeletHashError, got ${String(e)}`, { cause: e });
    const { message, ...data } = e.toJSON();
    expect(message.startsWith(e.code)).toBe(true);
    return data;
  }
  throw new Error('expected an error');
}

const decodeError = (code: string, path: (string | number)[], expected: string, detail: string): ErrorData => ({
  name: 'DecodeError',
  code,
  path,
  expected,
  detail,
});
const invalidType = (path: (string | number)[], expected: string, detail: string) =>
  decodeError('INVALID_TYPE', path, expected, detail);

/** A container whose only odd member is `value` at `field` (a top-level key). */
const withField = (field: string, value: unknown): object => ({ name: 'c', image: 'i', [field]: value });
const withPort = (value: unknown): object => withField('ports', [{ containerPort: value }]);
const withRunAsUser = (value: unknown): object => withField('securityContext', { runAsUser: value });
const withCpu = (value: unknown): object => withField('resources', { limits: { cpu: value } });
const withProbePort = (value: unknown): object => withField('livenessProbe', { httpGet: { port: value } });

/** Checks the tree path's error and that hashing (fused path first) refuses the input the same way. */
function expectRefused(container: unknown, error: ErrorData, options = v): void {
  expect(failure(() => validateContainer(container as object, options))).toEqual(error);
  expect(failure(() => hashContainer(container as object, options))).toEqual(error);
}

const PORT = ['ports', 0, 'containerPort'];
const RUN_AS_USER = ['securityContext', 'runAsUser'];
const CPU = ['resources', 'limits', 'cpu'];
const PROBE_PORT = ['livenessProbe', 'httpGet', 'port'];
const INT32_RANGE = 'an int32 in [-2147483648, 2147483647]';
const INT64_RANGE = 'an int64 in [-9223372036854775808, 9223372036854775807]';
const QUANTITY_TYPE = 'a quantity string such as "500m" or "1Gi", or a number';
const TO_JSON = 'found a toJSON method: JSON.stringify would send what it returns';

class V1Container {
  name = 'c';
}

describe('decode errors: what was found, described', () => {
  it.each<[string, unknown, string]>([
    ['a JS number', 42, 'found number 42'],
    ['a negative fraction', -1.5, 'found number -1.5'],
    ['a JsonNumber', new JsonNumber('4e2'), 'found number 4e2'],
    ['a bigint', 5n, 'found bigint 5'],
    ['true', true, 'found boolean true'],
    ['false', false, 'found boolean false'],
    ['a function', Math.max, 'found function function max() { [native code] }'],
    ['a symbol', Symbol('s'), 'found symbol Symbol(s)'],
    ['an array', [], 'found an array'],
    ['a plain object', {}, 'found an object'],
    ['a null-prototype object', Object.create(null), 'found an object'],
    ['an object whose prototype has no constructor', Object.create(Object.create(null) as object), 'found an object'],
    ['a class instance', new V1Container(), 'found a V1Container'],
    [
      'an instance of an anonymous class',
      new (class {
        image = 'i';
      })(),
      'found an object',
    ],
    ['a prototype whose constructor name is no string', Object.create({ constructor: { name: 7 } }), 'found an object'],
    ['a Map', new Map(), 'found a Map'],
    ['a Set', new Set(), 'found a Set'],
    ['a Date', new Date(0), 'found a Date'],
    ['an Error', new Error('x'), 'found an Error'],
    ['a boxed number', Object(1), 'found a Number'],
    ['a typed array', new Uint8Array(2), 'found an Uint8Array'],
    ['an arguments object', runInNewContext('(function () { return arguments; })(1)'), 'found an Arguments'],
    ['a subclass of Map', new (class Registry extends Map {})(), 'found a Map'],
  ])('a string field given %s', (_label, value, detail) => {
    expectRefused(withField('image', value), invalidType(['image'], 'a string', detail));
  });

  it('quotes strings, cut after 40 characters', () => {
    const forty = 'p'.repeat(40);
    expectRefused(withPort(forty), invalidType(PORT, 'an int32', `found string "${forty}"`));
    expectRefused(withPort(forty + 'q'), invalidType(PORT, 'an int32', `found string "${forty}…"`));
    expectRefused(withPort('say "80"'), invalidType(PORT, 'an int32', 'found string "say \\"80\\""'));
  });
});

describe('decode errors: the container itself', () => {
  it.each<[string, unknown, string]>([
    ['undefined', undefined, 'found undefined'],
    ['null', null, 'found null'],
    ['a number', 42, 'found number 42'],
    ['a JsonNumber', new JsonNumber('1'), 'found number 1'],
    ['an array', [{ name: 'c' }], 'found an array'],
    ['a Map', new Map([['name', 'c']]), 'found a Map'],
    ['an object with a Date prototype but no date', Object.create(Date.prototype), 'found a Date'],
    ['a Map from another realm', runInNewContext('new Map([["name", "c"]])'), 'found a Map'],
  ])('refuses %s', (_label, container, detail) => {
    for (const options of [v, legacy, nameImage]) {
      expect(failure(() => validateContainer(container as object, options))).toEqual(
        invalidType([], 'a container object', detail),
      );
      expect(failure(() => preimage(container as object, options))).toEqual(
        invalidType([], 'a container object', detail),
      );
    }
  });

  it('refuses arrays and functions that claim to be plain objects', () => {
    const array = Object.assign([], { [Symbol.toStringTag]: 'Object', name: 'c' });
    const fn = Object.assign(() => 0, { [Symbol.toStringTag]: 'Object' });
    Object.defineProperty(fn, 'name', { value: 'c', enumerable: true });
    expect(failure(() => validateContainer(array, v))).toEqual(invalidType([], 'a container object', 'found an array'));
    expect(failure(() => validateContainer(fn, v)).detail).toMatch(/^found function /);
  });

  it('accepts a plain object from another realm like a local one', () => {
    const foreign = runInNewContext('({ name: "c", image: "i", ports: [{ containerPort: 80 }] })') as object;
    const local = { name: 'c', image: 'i', ports: [{ containerPort: 80 }] };
    expect(preimage(foreign, v).text).toBe(preimage(local, v).text);
    expect(preimage(foreign, legacy).text).toBe(preimage(local, legacy).text);
  });

  it('refuses a container with toJSON, whichever release', () => {
    const container = { name: 'c', image: 'i', toJSON: () => ({ name: 'other' }) };
    const error = invalidType([], 'a container object as plain data', TO_JSON);
    for (const options of [v, legacy, nameImage]) {
      expect(failure(() => preimage(container, options))).toEqual(error);
      expect(failure(() => hashContainer(container, options))).toEqual(error);
    }
  });

  it('hashes only name and image from 1.31 on but checks the whole container, each error at its own path', () => {
    expect(failure(() => preimage({ name: 42, image: 'i' }, nameImage))).toEqual(
      invalidType(['name'], 'a string', 'found number 42'),
    );
    expect(failure(() => preimage({ name: 'c', image: ['i'] }, nameImage))).toEqual(
      invalidType(['image'], 'a string', 'found an array'),
    );
    expect(failure(() => hashContainer({ name: 'c', image: true }, nameImage))).toEqual(
      invalidType(['image'], 'a string', 'found boolean true'),
    );
    expect(failure(() => preimage({ name: 'c', image: null, ports: 'bad' }, nameImage))).toEqual(
      invalidType(['ports'], 'an array ([]v1.ContainerPort)', 'found string "bad"'),
    );
    expect(preimage({ name: 'c', image: null, ports: [{ containerPort: 80 }] }, nameImage).text).toBe(
      '{"image":"","name":"c"}',
    );
  });
});

describe('decode errors: objects, arrays and maps', () => {
  it('names the Go type an object or array was expected for', () => {
    expectRefused(
      withField('securityContext', 'x'),
      invalidType(['securityContext'], 'an object (v1.SecurityContext)', 'found string "x"'),
    );
    expectRefused(
      withField('securityContext', [1]),
      invalidType(['securityContext'], 'an object (v1.SecurityContext)', 'found an array'),
    );
    expectRefused(withField('ports', 'x'), invalidType(['ports'], 'an array ([]v1.ContainerPort)', 'found string "x"'));
    expectRefused(
      withField('ports', { 0: {} }),
      invalidType(['ports'], 'an array ([]v1.ContainerPort)', 'found an object'),
    );
    expectRefused(
      withField('resources', { limits: [] }),
      invalidType(['resources', 'limits'], 'an object (v1.ResourceList)', 'found an array'),
    );
    expectRefused(
      withField('resources', { limits: new Map() }),
      invalidType(['resources', 'limits'], 'an object (v1.ResourceList)', 'found a Map'),
    );
    expectRefused(
      withField('env', [{ name: 'E', valueFrom: 7 }]),
      invalidType(['env', 0, 'valueFrom'], 'an object (v1.EnvVarSource)', 'found number 7'),
    );
  });

  it('refuses objects and arrays whose toJSON would send something else', () => {
    const toJSON = () => null;
    expectRefused(
      withField('securityContext', { runAsUser: 1, toJSON }),
      invalidType(['securityContext'], 'an object (v1.SecurityContext) as plain data', TO_JSON),
    );
    expectRefused(
      withField('ports', Object.assign([{ containerPort: 80 }], { toJSON })),
      invalidType(['ports'], 'an array ([]v1.ContainerPort) as plain data', TO_JSON),
    );
    expectRefused(
      withField('resources', { limits: { cpu: '1', toJSON } }),
      invalidType(['resources', 'limits'], 'an object (v1.ResourceList) as plain data', TO_JSON),
    );
  });

  it('leaves out map members whose value is undefined, as JSON.stringify does', () => {
    const sparse = withField('resources', { limits: { cpu: undefined, memory: '1Gi' }, requests: { cpu: undefined } });
    const plain = withField('resources', { limits: { memory: '1Gi' } });
    expect(preimage(sparse, v).text).toBe(preimage(plain, v).text);
    expect(preimage(sparse, v).text).toContain('"resources":{"limits":{"memory":"1Gi"}}');
    expect(preimage(sparse, legacy).text).toBe(preimage(plain, legacy).text);
  });
});

describe('decode errors: integers', () => {
  it('takes int32 up to its bounds and refuses one beyond, as numbers, bigints or JSON text', () => {
    expect(preimage(withPort(-2147483648), v).text).toContain('"containerPort":-2147483648');
    expect(preimage(withPort(2147483647), v).text).toContain('"containerPort":2147483647');
    expect(preimage(withPort(2147483647n), v).text).toContain('"containerPort":2147483647');
    expectRefused(withPort(-2147483649), decodeError('INT_OUT_OF_RANGE', PORT, INT32_RANGE, 'found -2147483649'));
    expectRefused(withPort(2147483648), decodeError('INT_OUT_OF_RANGE', PORT, INT32_RANGE, 'found 2147483648'));
    expectRefused(withPort(-(2n ** 31n) - 1n), decodeError('INT_OUT_OF_RANGE', PORT, INT32_RANGE, 'found -2147483649'));
    expectRefused(
      withPort(new JsonNumber('2147483648')),
      decodeError('INT_OUT_OF_RANGE', PORT, INT32_RANGE, 'found 2147483648'),
    );
    expect(failure(() => validateContainer('{"name":"c","ports":[{"containerPort":-2147483649}]}', v))).toEqual(
      decodeError('INT_OUT_OF_RANGE', PORT, INT32_RANGE, 'found -2147483649'),
    );
  });

  it('takes int64 up to its bounds and refuses one beyond', () => {
    expect(preimage(withRunAsUser(2n ** 63n - 1n), v).text).toContain('"runAsUser":9223372036854775807');
    expect(preimage(withRunAsUser(-(2n ** 63n)), v).text).toContain('"runAsUser":-9223372036854775808');
    expectRefused(
      withRunAsUser(2n ** 63n),
      decodeError('INT_OUT_OF_RANGE', RUN_AS_USER, INT64_RANGE, 'found 9223372036854775808'),
    );
    expectRefused(
      withRunAsUser(new JsonNumber('-9223372036854775809')),
      decodeError('INT_OUT_OF_RANGE', RUN_AS_USER, INT64_RANGE, 'found -9223372036854775809'),
    );
  });

  it('hashes -0 as 0', () => {
    expect(hashContainer(withPort(-0), v)).toBe(hashContainer(withPort(0), v));
    expect(preimage(withPort(-0), legacy).text).toBe(preimage(withPort(0), legacy).text);
    expect(preimage(withRunAsUser(-0), v).text).toContain('"runAsUser":0');
  });

  it('refuses fractions and exponents (NOT_AN_INTEGER), saying what was found', () => {
    expectRefused(withPort(1.5), decodeError('NOT_AN_INTEGER', PORT, 'an int32 (an integer)', 'found 1.5'));
    expectRefused(withPort(NaN), decodeError('NOT_AN_INTEGER', PORT, 'an int32 (an integer)', 'found NaN'));
    expectRefused(
      withRunAsUser(-0.25),
      decodeError('NOT_AN_INTEGER', RUN_AS_USER, 'an int64 (an integer)', 'found -0.25'),
    );
    const noFraction = (what: string) => `${what} (an integer without fraction or exponent)`;
    expectRefused(
      withPort(new JsonNumber('8e1')),
      decodeError('NOT_AN_INTEGER', PORT, noFraction('an int32'), 'found 8e1'),
    );
    expectRefused(
      withRunAsUser(new JsonNumber('1.0')),
      decodeError('NOT_AN_INTEGER', RUN_AS_USER, noFraction('an int64'), 'found 1.0'),
    );
    expect(failure(() => validateContainer('{"name":"c","ports":[{"containerPort":80.0}]}', v))).toEqual(
      decodeError('NOT_AN_INTEGER', PORT, noFraction('an int32'), 'found 80.0'),
    );
  });

  it('refuses JS numbers beyond 2^53, which may already be rounded (UNSAFE_INTEGER)', () => {
    const rounded = (n: number) => `the JS number ${n} is beyond 2^53 and may have been rounded`;
    expectRefused(
      withRunAsUser(2 ** 60),
      decodeError(
        'UNSAFE_INTEGER',
        RUN_AS_USER,
        'an int64 given exactly: a bigint, or the container as JSON text',
        rounded(2 ** 60),
      ),
    );
    expect(rounded(2 ** 60)).toBe('the JS number 1152921504606847000 is beyond 2^53 and may have been rounded');
    expectRefused(
      withPort(-(2 ** 53)),
      decodeError(
        'UNSAFE_INTEGER',
        PORT,
        'an int32 given exactly: a bigint, or the container as JSON text',
        rounded(-(2 ** 53)),
      ),
    );
  });

  it('names int32 and int64 in type errors', () => {
    expectRefused(withPort(true), invalidType(PORT, 'an int32', 'found boolean true'));
    expectRefused(withPort({}), invalidType(PORT, 'an int32', 'found an object'));
    expectRefused(withRunAsUser('1000'), invalidType(RUN_AS_USER, 'an int64', 'found string "1000"'));
    expectRefused(withRunAsUser([1000]), invalidType(RUN_AS_USER, 'an int64', 'found an array'));
  });

  it('refuses a JsonNumber whose text is no JSON number', () => {
    const bad = (text: string) =>
      decodeError(
        'INVALID_JSON',
        PORT,
        'a JsonNumber holding a JSON number (RFC 8259 syntax)',
        `found ${JSON.stringify(text)}`,
      );
    expectRefused(withPort(new JsonNumber('1Gi')), bad('1Gi'));
    expectRefused(withPort(new JsonNumber('080')), bad('080'));
    expectRefused(withPort(new JsonNumber(' 80')), bad(' 80'));
  });
});

describe('decode errors: IntOrString ports', () => {
  it('takes a string as a name and anything numeric as an int32', () => {
    expect(preimage(withProbePort('8080'), v).text).toContain('"port":"8080"');
    expect(preimage(withProbePort(8080), v).text).toContain('"port":8080');
    expect(preimage(withProbePort(new JsonNumber('8080')), v).text).toContain('"port":8080');
    expect(preimage(withProbePort(8080n), v).text).toContain('"port":8080');
    expect(preimage(withProbePort(null), v).text).toContain('"port":0');
  });

  it.each<[string, unknown, string]>([
    ['true', true, 'found boolean true'],
    ['false', false, 'found boolean false'],
    ['an object', { port: 80 }, 'found an object'],
    ['an array', [80], 'found an array'],
    ['a Map', new Map(), 'found a Map'],
  ])('refuses %s', (_label, value, detail) => {
    expectRefused(withProbePort(value), invalidType(PROBE_PORT, 'a port number or name (int or string)', detail));
  });

  it('checks a numeric port as an int32', () => {
    expectRefused(
      withProbePort(70000.5),
      decodeError('NOT_AN_INTEGER', PROBE_PORT, 'an int32 (an integer)', 'found 70000.5'),
    );
    expectRefused(withProbePort(2 ** 31), decodeError('INT_OUT_OF_RANGE', PROBE_PORT, INT32_RANGE, 'found 2147483648'));
  });
});

describe('decode errors: quantities', () => {
  it.each<[string, unknown, string]>([
    ['true', true, 'found boolean true'],
    ['an object', { amount: 1 }, 'found an object'],
    ['an array', ['1'], 'found an array'],
    ['NaN', NaN, 'found number NaN'],
    ['Infinity', Infinity, 'found number Infinity'],
    ['-Infinity', -Infinity, 'found number -Infinity'],
  ])('refuses %s where a quantity belongs', (_label, value, detail) => {
    expectRefused(withCpu(value), invalidType(CPU, QUANTITY_TYPE, detail));
  });

  it('refuses JS numbers beyond 2^53, takes bigints and safe numbers', () => {
    expectRefused(
      withCpu(2 ** 60),
      decodeError(
        'UNSAFE_INTEGER',
        CPU,
        'a quantity given exactly: a string, a bigint, or the container as JSON text',
        'the JS number 1152921504606847000 is beyond 2^53 and may have been rounded',
      ),
    );
    expect(preimage(withCpu(2n ** 60n), v).text).toContain('"cpu":"1152921504606846976"');
    expect(preimage(withCpu(2 ** 53 - 1), v).text).toContain('"cpu":"9007199254740991"');
    expect(preimage(withCpu(0.5), v).text).toContain('"cpu":"500m"');
  });

  it('refuses a JsonNumber whose text is no JSON number', () => {
    expectRefused(
      withCpu(new JsonNumber('1Gi')),
      decodeError('INVALID_JSON', CPU, 'a JsonNumber holding a JSON number (RFC 8259 syntax)', 'found "1Gi"'),
    );
    expect(preimage(withCpu(new JsonNumber('1E3')), v).text).toContain('"cpu":"1E3"');
  });

  it('refuses non-ASCII white space around a quantity, and only around it', () => {
    const aroundError = {
      name: 'QuantityError',
      code: 'INVALID_QUANTITY',
      path: CPU,
      expected: 'a quantity like "500m" or "1Gi"',
      detail:
        'non-ASCII white space around the value: the apiserver trims it or rejects it depending on how the client escaped it',
    };
    const formatError = {
      ...aroundError,
      // The text itself is echoed first ("found …"), then Go's message.
      detail: expect.stringContaining(
        "; apimachinery: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ) as unknown as string,
    };
    for (const around of ['\u00a01', '1\u2028', ' \u3000 1 ', '\u00a0']) expectRefused(withCpu(around), aroundError);
    // Non-ASCII inside the value (ASCII spaces around it) is an ordinary format error.
    for (const inside of ['1é ', ' 1é ', ' é1', 'é ']) expectRefused(withCpu(inside), formatError);
    expect(preimage(withCpu(' 1 '), v).text).toContain('"cpu":"1"');
    // A JS string is sent escaped: Go's Quantity sees `\t2` and refuses it (escapes are not trimmed).
    expectRefused(withCpu('\t2'), formatError);
  });
});
