/**
 * Kubernetes OpenAPI v3 schemas (a release's published `/openapi/v3/<group-version>` documents, a
 * CRD's `openAPIV3Schema`) turned into ajv validators that refuse what the apiserver refuses:
 *
 * - **Closed objects.** The documents leave objects open; the apiserver's strict field validation
 *   (`kubectl apply --validate=strict`, the default since 1.27) refuses a field its Go type (or a
 *   structural CRD schema) does not declare. An object schema with `properties` and neither
 *   `additionalProperties` nor `x-kubernetes-preserve-unknown-fields` gets `additionalProperties: false`.
 * - **int-or-string.** `format: int-or-string` (the IntOrString Go type, whose integer is an int32)
 *   and a CRD's `x-kubernetes-int-or-string: true` become "an integer or a string".
 * - **x-kubernetes-preserve-unknown-fields**: left open, and without `type` any value.
 * - **x-kubernetes-embedded-resource**: the value is an object with `apiVersion` and `kind` strings and
 *   a `metadata` judged as ObjectMeta (the apiserver validates embedded objects' metadata so).
 * - **x-kubernetes-list-type**: `set` is `uniqueItems`; `map` refuses two items with the same
 *   `x-kubernetes-list-map-keys` values; `atomic` says nothing about validity.
 * - **x-kubernetes-group-version-kind** on a top-level type: `apiVersion` and `kind` must be one of them.
 * - Formats int32, int64 (ranges), byte (base64), date-time (RFC 3339).
 *
 * Extensions about merging and clients only (patch strategy and merge key, map-type, unions,
 * `x-kubernetes-validations` CEL rules, which this does not evaluate) are declared as keywords
 * that validate nothing, so ajv's strict mode still refuses any keyword it was not told about.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Extensions that carry no validation meaning here (merge/apply behaviour, client hints, CEL). */
const ANNOTATION_KEYWORDS = [
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-map-type',
  'x-kubernetes-unions',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
];

/** One rewrite of a schema node and everything under it, so that ajv checks what the apiserver checks. */
export interface SchemaRewrite {
  /** How a `$ref` of the source document becomes a reference ajv resolves. */
  ref: (ref: string) => string;
  /** The `$ref` of ObjectMeta, for `x-kubernetes-embedded-resource`. */
  objectMetaRef: string;
}

const INT_OR_STRING = (integer: Schema): Schema[] => [integer, { type: 'string' }];

/** `node` rewritten (a new object; the source document is not changed). */
export function strictSchema(node: unknown, rw: SchemaRewrite): unknown {
  if (Array.isArray(node)) return node.map((n) => strictSchema(n, rw));
  if (!isSchema(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out[k] = rw.ref(v);
    else if (k === 'properties' && isSchema(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, strictSchema(s, rw)]));
    else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(k))
      out[k] = strictSchema(v, rw);
    else out[k] = v;
  }
  if (out['format'] === 'int-or-string') {
    // IntOrString: oneOf integer/string in the documents; its integer is a Go int32.
    delete out['format'];
    delete out['oneOf'];
    delete out['type'];
    out['anyOf'] = INT_OR_STRING({ type: 'integer', format: 'int32' });
  }
  if (out['x-kubernetes-int-or-string'] === true) {
    // controller-gen writes its own anyOf; the extension is what the apiserver reads.
    delete out['anyOf'];
    delete out['type'];
    out['anyOf'] = INT_OR_STRING({ type: 'integer' });
  }
  const preserve = out['x-kubernetes-preserve-unknown-fields'] === true;
  if (out['x-kubernetes-embedded-resource'] === true) {
    out['type'] = 'object';
    out['required'] = [...new Set([...((out['required'] as string[] | undefined) ?? []), 'apiVersion', 'kind'])];
    out['properties'] = {
      ...(out['properties'] as Schema | undefined),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: rw.objectMetaRef },
    };
  }
  if (out['properties'] !== undefined && out['additionalProperties'] === undefined && !preserve) {
    // A closed object whose fields come from a sibling allOf would refuse its own fields.
    if (out['allOf'] !== undefined) throw new Error('a schema with both properties and allOf: cannot close it');
    out['additionalProperties'] = false;
  }
  if (out['x-kubernetes-list-type'] === 'set') out['uniqueItems'] = true;
  return out;
}

const INT32 = 2 ** 31;
const INT64 = 2n ** 63n;
// RFC 3339 date-time as Go's time.RFC3339 (metav1.Time) reads it.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An ajv that knows the Kubernetes formats and extensions (strict: any other keyword or format is an error). */
export function kubernetesAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  ajv.addFormat('int64', {
    type: 'number',
    // A JSON number past 2^53 is not exact in JavaScript: refuse rather than guess.
    validate: (n: number) => Number.isSafeInteger(n) && BigInt(n) >= -INT64 && BigInt(n) < INT64,
  });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('byte', BASE64);
  ajv.addFormat('date-time', DATE_TIME);
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  ajv.addKeyword({ keyword: 'x-kubernetes-int-or-string', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-kubernetes-preserve-unknown-fields', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-kubernetes-embedded-resource', schemaType: 'boolean' });
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    schemaType: 'array',
    errors: true,
    validate: function listMapKeys(this: unknown, keys: string[], data: unknown[]): boolean {
      const seen = new Map<string, number>();
      const errors: Partial<ErrorObject>[] = [];
      data.forEach((item, i) => {
        if (!isSchema(item)) return;
        const key = JSON.stringify(keys.map((k) => item[k] ?? null));
        const first = seen.get(key);
        if (first === undefined) seen.set(key, i);
        else
          errors.push({
            keyword: 'x-kubernetes-list-map-keys',
            message: `items ${first} and ${i} have the same ${keys.join(', ')} (a list-type map)`,
            params: { keys },
          });
      });
      (listMapKeys as unknown as { errors: Partial<ErrorObject>[] }).errors = errors;
      return errors.length === 0;
    },
  });
  ajv.addKeyword({
    keyword: 'x-kubernetes-group-version-kind',
    type: 'object',
    schemaType: 'array',
    errors: true,
    validate: function gvk(
      this: unknown,
      kinds: { group: string; version: string; kind: string }[],
      data: Schema,
    ): boolean {
      const ok = kinds.some(
        (k) => data['apiVersion'] === (k.group ? `${k.group}/${k.version}` : k.version) && data['kind'] === k.kind,
      );
      (gvk as unknown as { errors: Partial<ErrorObject>[] }).errors = ok
        ? []
        : [
            {
              keyword: 'x-kubernetes-group-version-kind',
              message: `apiVersion/kind must be one of ${kinds.map((k) => `${k.group ? `${k.group}/` : ''}${k.version} ${k.kind}`).join(', ')}`,
            },
          ];
      return ok;
    },
  });
  return ajv;
}

/** Standalone-compiled validators (kubernetes-models) keep no message: say it from the params as ajv would. */
function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'type') return `must be ${String(p['type'])}`;
  if (e.keyword === 'format') return `must match format "${String(p['format'])}"`;
  return `${e.keyword} ${JSON.stringify(p)}`;
}

/** ajv's errors as `<JSON pointer>: <what is wrong>`, naming the field (unknown and missing fields by their own path). */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const at = e.instancePath;
    if (e.keyword === 'additionalProperties')
      return `${at}/${String(e.params['additionalProperty'])}: unknown field (strict field validation)`;
    if (e.keyword === 'required') return `${at}/${String(e.params['missingProperty'])}: required field missing`;
    if (e.keyword === 'enum')
      return `${at}: must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')} (enum)`;
    return `${at || '/'}: ${e.message ?? messageOf(e)}`;
  });
}

/** The validator of `ref` in `ajv`, compiled once. */
export function validatorOf(ajv: Ajv, ref: string): ValidateFunction {
  const v = ajv.getSchema(ref);
  if (!v) throw new Error(`no schema ${ref}`);
  return v;
}
