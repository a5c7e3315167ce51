/**
 * The published OpenAPI v3 documents of Kubernetes 1.28–1.35 and the system-upgrade-controller
 * `Plan` CRD (fixtures/kube-openapi/, copied unchanged; its README gives their provenance), as
 * strict validators (openapi-validator.ts says what "strict" adds to the documents).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Ajv } from 'ajv';
import { describeErrors, kubernetesAjv, strictSchema, validatorOf } from './openapi-validator.js';

const root = new URL('../../fixtures/kube-openapi/', import.meta.url);

/** The releases with published documents here, oldest first. */
export const OPENAPI_RELEASES = ['1.28', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35'] as const;

/** The document of each apiVersion the fleet objects use, under a release's folder. */
const DOCUMENTS: Record<string, string> = {
  v1: 'api/v1.json',
  'batch/v1': 'apis/batch/v1.json',
  'rbac.authorization.k8s.io/v1': 'apis/rbac.authorization.k8s.io/v1.json',
};

export const PLAN_CRD = 'crds/system-upgrade-controller-v0.20.1/upgrade.cattle.io_plans.yaml';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

type Schema = Record<string, unknown>;
interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** One release's documents in one ajv, and the component name of each top-level kind. */
interface Release {
  ajv: Ajv;
  kinds: Map<string, string>;
}

const releases = new Map<string, Release>();

/**
 * Adds `release`'s document of `apiVersion` to `ajv`, strict, and records in `kinds` the ref of each
 * top-level kind it serves; returns how a component name becomes a ref.
 */
function addDocument(
  ajv: Ajv,
  release: string,
  apiVersion: string,
  kinds: Map<string, string>,
): (name: string) => string {
  const doc = JSON.parse(readFileSync(new URL(`${release}/${DOCUMENTS[apiVersion]!}`, root), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  };
  const id = `kube-openapi:${release}/${apiVersion}`;
  const ref = (r: string): string => `${id}#/$defs/${r.replace(/^#\/components\/schemas\//, '')}`;
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    defs[name] = strictSchema(schema, { ref, objectMetaRef: ref(OBJECT_META) });
    for (const g of (schema['x-kubernetes-group-version-kind'] as Gvk[] | undefined) ?? []) {
      const av = g.group ? `${g.group}/${g.version}` : g.version;
      if (av === apiVersion) kinds.set(`${av}/${g.kind}`, ref(name));
    }
  }
  ajv.addSchema({ $id: id, $defs: defs });
  return ref;
}

function loadRelease(release: string): Release {
  const known = releases.get(release);
  if (known) return known;
  const ajv = kubernetesAjv();
  const kinds = new Map<string, string>();
  for (const apiVersion of Object.keys(DOCUMENTS)) addDocument(ajv, release, apiVersion, kinds);
  const loaded = { ajv, kinds };
  releases.set(release, loaded);
  return loaded;
}

/** What `release`'s published documents refuse in the top-level object `o` (empty: it validates). */
export function openapiProblems(release: string, o: Record<string, unknown>): string[] {
  const { ajv, kinds } = loadRelease(release);
  const key = `${String(o['apiVersion'])}/${String(o['kind'])}`;
  const ref = kinds.get(key);
  if (!ref) return [`/: the ${release} documents here have no ${key}`];
  const validate = validatorOf(ajv, ref);
  return validate(o) ? [] : describeErrors(validate.errors);
}

/** What `release`'s ObjectMeta refuses in `meta` (a custom resource's metadata), paths under `/metadata`. */
export function objectMetaProblems(release: string, meta: unknown): string[] {
  const validate = validatorOf(loadRelease(release).ajv, `kube-openapi:${release}/v1#/$defs/${OBJECT_META}`);
  return validate(meta)
    ? []
    : describeErrors(validate.errors).map((p) => `/metadata${p.startsWith('/:') ? p.slice(1) : p}`);
}

interface Crd {
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

let planValidator: { apiVersions: string[]; kind: string; validate: ReturnType<typeof validatorOf> } | undefined;

/**
 * The Plan CRD's `openAPIV3Schema`, strict (the apiserver prunes or, with strict field validation,
 * refuses what a structural schema does not declare). A custom resource's `metadata` is ObjectMeta
 * whatever its schema says: the caller judges it with the target release's own ObjectMeta. An
 * embedded resource inside the schema (the Plan has none) would be judged by 1.35's ObjectMeta.
 */
export function planProblems(plan: Record<string, unknown>): string[] {
  if (!planValidator) {
    const crd = parse(readFileSync(new URL(PLAN_CRD, root), 'utf8')) as Crd;
    const ajv = kubernetesAjv();
    const core = addDocument(ajv, '1.35', 'v1', new Map());
    const served = crd.spec.versions.filter((v) => v.served);
    if (served.length !== 1) throw new Error(`${PLAN_CRD}: expected one served version`);
    const version = served[0]!;
    const schema = strictSchema(version.schema.openAPIV3Schema, {
      ref: (r) => r,
      objectMetaRef: core(OBJECT_META),
    }) as Schema;
    ajv.addSchema(schema, 'plan');
    planValidator = {
      apiVersions: served.map((v) => `${crd.spec.group}/${v.name}`),
      kind: crd.spec.names.kind,
      validate: validatorOf(ajv, 'plan'),
    };
  }
  const { apiVersions, kind, validate } = planValidator;
  const out: string[] = [];
  if (!apiVersions.includes(String(plan['apiVersion'])))
    out.push(`/apiVersion: must be one of ${apiVersions.join(', ')} (the CRD's served versions)`);
  if (plan['kind'] !== kind) out.push(`/kind: must be ${kind} (the CRD's kind)`);
  if (!validate(plan)) out.push(...describeErrors(validate.errors));
  return out;
}
