/**
 * The strict reading of Kubernetes OpenAPI schemas that judges the fleet objects
 * (test/support/openapi-validator.ts): each extension it handles, on a small schema, accepts what
 * the apiserver accepts and refuses what it refuses, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { describeErrors, kubernetesAjv, strictSchema, validatorOf } from '../support/openapi-validator.js';

const META = {
  type: 'object',
  properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
};

/** The problems `schema` (rewritten strict, in a document with an ObjectMeta) finds in `value`. */
function problems(schema: unknown, value: unknown): string[] {
  const ajv = kubernetesAjv();
  const ref = (r: string): string => `t#/$defs/${r.replace(/^#\/components\/schemas\//, '')}`;
  const rw = { ref, objectMetaRef: ref('meta') };
  ajv.addSchema({ $id: 't', $defs: { meta: strictSchema(META, rw), x: strictSchema(schema, rw) } });
  const validate = validatorOf(ajv, 't#/$defs/x');
  return validate(value) ? [] : describeErrors(validate.errors);
}

describe('strict OpenAPI schemas', () => {
  const object = { type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer', format: 'int32' } } };

  it('closes objects: an unknown field is refused by its path; maps and preserve-unknown-fields stay open', () => {
    expect(problems(object, { a: 'x' })).toEqual([]);
    expect(problems(object, { a: 'x', b: 1 })).toEqual(['/b: unknown field (strict field validation)']);
    expect(problems({ type: 'object', additionalProperties: { type: 'string' } }, { any: 'x' })).toEqual([]);
    const preserved = { ...object, 'x-kubernetes-preserve-unknown-fields': true };
    expect(problems(preserved, { a: 'x', b: { c: 1 } })).toEqual([]);
    expect(problems({ 'x-kubernetes-preserve-unknown-fields': true }, [1, 'x'])).toEqual([]);
    // the source schema is not changed
    expect(object).not.toHaveProperty('additionalProperties');
  });

  it('required fields, types and int32/int64 ranges', () => {
    const s = { ...object, required: ['a'] };
    expect(problems(s, { n: 1 })).toEqual(['/a: required field missing']);
    expect(problems(s, { a: 1 })).toEqual(['/a: must be string']);
    expect(problems(s, { a: 'x', n: 2 ** 31 })).toEqual(['/n: must match format "int32"']);
    expect(problems(s, { a: 'x', n: -(2 ** 31) })).toEqual([]);
    expect(problems({ type: 'integer', format: 'int64' }, 2 ** 53)).toEqual(['/: must match format "int64"']);
    expect(problems({ type: 'string', format: 'date-time' }, '2024-05-01T10:00:00Z')).toEqual([]);
    expect(problems({ type: 'string', format: 'date-time' }, '2024-05-01 10:00')).toEqual([
      '/: must match format "date-time"',
    ]);
    expect(problems({ type: 'string', format: 'byte' }, 'aGk=')).toEqual([]);
    expect(problems({ type: 'string', format: 'byte' }, 'a')).toEqual(['/: must match format "byte"']);
  });

  it('int-or-string: format int-or-string (an int32 or a string) and x-kubernetes-int-or-string', () => {
    const builtin = { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] };
    expect(problems(builtin, 8080)).toEqual([]);
    expect(problems(builtin, 'http')).toEqual([]);
    expect(problems(builtin, 1.5)).not.toEqual([]);
    expect(problems(builtin, 2 ** 31)).not.toEqual([]);
    expect(problems(builtin, true)).not.toEqual([]);
    const crd = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    expect(problems(crd, 3)).toEqual([]);
    expect(problems(crd, '25%')).toEqual([]);
    expect(problems(crd, {})).not.toEqual([]);
  });

  it('x-kubernetes-embedded-resource: apiVersion and kind required, metadata judged as ObjectMeta', () => {
    const s = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
    expect(problems(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} })).toEqual([]);
    expect(problems(s, { kind: 'Pod' })).toEqual(['/apiVersion: required field missing']);
    expect(problems(s, { apiVersion: 'v1', kind: 'Pod', metadata: { nmae: 'p' } })).toEqual([
      '/metadata/nmae: unknown field (strict field validation)',
    ]);
  });

  it('x-kubernetes-list-type: set refuses repeats, map refuses two items with the same keys, atomic neither', () => {
    const items = { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } };
    const set = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    expect(problems(set, ['a', 'b'])).toEqual([]);
    expect(problems(set, ['a', 'a'])).toEqual(['/: must NOT have duplicate items (items ## 1 and 0 are identical)']);
    const map = { type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] };
    expect(problems(map, [{ name: 'a' }, { name: 'b' }])).toEqual([]);
    expect(
      problems(map, [
        { name: 'a', port: 1 },
        { name: 'a', port: 2 },
      ]),
    ).toEqual(['/: items 0 and 1 have the same name (a list-type map)']);
    const atomic = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' };
    expect(problems(atomic, ['a', 'a'])).toEqual([]);
  });

  it('x-kubernetes-group-version-kind: a top-level type accepts only its own apiVersion and kind', () => {
    const s = {
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' } },
      'x-kubernetes-group-version-kind': [{ group: 'batch', version: 'v1', kind: 'Job' }],
    };
    expect(problems(s, { apiVersion: 'batch/v1', kind: 'Job' })).toEqual([]);
    expect(problems(s, { apiVersion: 'batch/v2', kind: 'Job' })).toEqual([
      '/: apiVersion/kind must be one of batch/v1 Job',
    ]);
  });

  it('an extension it was not told about is an error, not ignored', () => {
    expect(() => problems({ type: 'string', 'x-kubernetes-new-thing': true }, 'x')).toThrow(/x-kubernetes-new-thing/);
    expect(() => problems({ type: 'string', format: 'uuid' }, 'x')).toThrow(/uuid/);
  });
});
