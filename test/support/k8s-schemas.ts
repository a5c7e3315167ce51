/**
 * What judges the Kubernetes objects `fleet manifests` prints, per target release, all from the npm
 * registry (no schema is written here):
 *
 * - **JSON schemas.** kubernetes-models compiles the published OpenAPI document of one release into
 *   ajv validators (its generator, first-party/kubernetes-models/scripts/generate.ts, merges the
 *   removed APIs of older releases in; the newest release's definitions win): 4.5.1 is v1.33.0 and
 *   5.1.0 is v1.36.0. No npm package ships the schema of any other release from 1.28 to 1.37.
 * - **Field models.** @kubernetes/client-node is generated from one release's OpenAPI document per
 *   minor version: 0.20.0 release-1.28, 0.21.0 release-1.29, 0.22.3 release-1.30 (the header of every
 *   generated file), 1.1.2 v1.32.0, 1.3.0 v1.33.0, 1.4.0 v1.34.0, 2.0.1 v1.35.0 (its `settings`). Its
 *   ObjectSerializer keeps only the fields that release's types declare: an object that comes back
 *   from deserialize → serialize unchanged uses no field that release lacks. That checks field names
 *   (and nesting) only, not required fields, enums or formats; the JSON schemas check those.
 *   No client-node minor was generated from 1.31, 1.36 or 1.37.
 */
import { createRequire } from 'node:module';
import { ClusterRole as ClusterRole133 } from 'kubernetes-models-1.33/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding as ClusterRoleBinding133 } from 'kubernetes-models-1.33/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Job as Job133 } from 'kubernetes-models-1.33/batch/v1/Job';
import { Namespace as Namespace133 } from 'kubernetes-models-1.33/v1/Namespace';
import { ServiceAccount as ServiceAccount133 } from 'kubernetes-models-1.33/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

export type K8sObject = Record<string, unknown> & { kind: string; apiVersion: string };

type Model = new (data: never) => { validate(): void };

/** The published JSON schemas: the Kubernetes release each was compiled from, and its models by apiVersion/kind. */
export const JSON_SCHEMAS: Record<string, { pkg: string; models: Record<string, Model> }> = {
  '1.33.0': {
    pkg: 'kubernetes-models@4.5.1',
    models: {
      'v1/Namespace': Namespace133,
      'v1/ServiceAccount': ServiceAccount133,
      'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole133,
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding133,
      'batch/v1/Job': Job133,
    },
  },
  '1.36.0': {
    pkg: 'kubernetes-models@5.1.0',
    models: {
      'v1/Namespace': Namespace,
      'v1/ServiceAccount': ServiceAccount,
      'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
      'batch/v1/Job': Job,
    },
  },
};

/** Throws the schema's message when `o` does not validate against the JSON schema of `release`. */
export function validateSchema(release: string, o: K8sObject): void {
  const Model = JSON_SCHEMAS[release]?.models[`${o.apiVersion}/${o.kind}`];
  if (!Model) throw new Error(`no ${release} schema for ${o.apiVersion}/${o.kind}`);
  new Model(o as never).validate();
}

interface Serializer {
  serialize(data: unknown, type: string, format?: string): unknown;
  deserialize(data: unknown, type: string, format?: string): unknown;
}

const require = createRequire(import.meta.url);
// 0.x is CommonJS; 1.x and 2.x are ES modules. Only the serializer is loaded (2.0.1's HTTP client
// needs Node 22; its models do not).
const cjs = (m: unknown): Serializer => (m as { ObjectSerializer: Serializer }).ObjectSerializer;

/** The client-node release that holds each Kubernetes release's models, and how to load its serializer. */
export const FIELD_MODELS: Record<string, { pkg: string; load: () => Promise<Serializer> }> = {
  '1.28': {
    pkg: '@kubernetes/client-node@0.20.0',
    load: () => Promise.resolve(cjs(require('client-node-k8s-1.28/dist/gen/model/models.js'))),
  },
  '1.29': {
    pkg: '@kubernetes/client-node@0.21.0',
    load: () => Promise.resolve(cjs(require('client-node-k8s-1.29/dist/gen/model/models.js'))),
  },
  '1.30': {
    pkg: '@kubernetes/client-node@0.22.3',
    load: () => Promise.resolve(cjs(require('client-node-k8s-1.30/dist/gen/model/models.js'))),
  },
  '1.32': {
    pkg: '@kubernetes/client-node@1.1.2',
    load: async () => (await import('client-node-k8s-1.32/dist/gen/models/ObjectSerializer.js')).ObjectSerializer,
  },
  '1.33': {
    pkg: '@kubernetes/client-node@1.3.0',
    load: async () => (await import('client-node-k8s-1.33/dist/gen/models/ObjectSerializer.js')).ObjectSerializer,
  },
  '1.34': {
    pkg: '@kubernetes/client-node@1.4.0',
    load: async () => (await import('@kubernetes/client-node/dist/gen/models/ObjectSerializer.js')).ObjectSerializer,
  },
  '1.35': {
    pkg: '@kubernetes/client-node@2.0.1',
    load: async () => (await import('client-node-k8s-1.35/dist/gen/models/ObjectSerializer.js')).ObjectSerializer,
  },
};

/** The models' type name of an object's kind. */
const MODEL_TYPE: Record<string, string> = {
  Namespace: 'V1Namespace',
  ServiceAccount: 'V1ServiceAccount',
  ClusterRole: 'V1ClusterRole',
  ClusterRoleBinding: 'V1ClusterRoleBinding',
  Job: 'V1Job',
};

/** `value` as `release`'s models read it back (deserialize → serialize): what that release keeps of it. */
export async function throughModels(release: string, type: string, value: unknown): Promise<unknown> {
  const models = FIELD_MODELS[release];
  if (!models) throw new Error(`no ${release} models`);
  const s = await models.load();
  // The 1.x serializer takes a format (empty for objects); 0.x ignores the extra argument.
  return s.serialize(s.deserialize(structuredClone(value), type, ''), type, '');
}

/** `o` as `release`'s models read it back; equal to `o` when it uses only fields that release has. */
export function objectThroughModels(release: string, o: K8sObject): Promise<unknown> {
  const type = MODEL_TYPE[o.kind];
  if (!type) throw new Error(`no model type for ${o.kind}`);
  return throughModels(release, type, o);
}

/**
 * Which schema and models judge each target release of `fleet manifests --to`. Every target is
 * also held to both published JSON schemas (its objects do not change with the target).
 * `schema`/`models` name the ones built from the target release itself; null where npm has none.
 */
export const TARGET_JUDGES: readonly { target: string; schema: string | null; models: string | null }[] = [
  { target: '1.28', schema: null, models: '1.28' },
  { target: '1.29', schema: null, models: '1.29' },
  { target: '1.30', schema: null, models: '1.30' },
  { target: '1.31', schema: null, models: null },
  { target: '1.32', schema: null, models: '1.32' },
  { target: '1.33', schema: '1.33.0', models: '1.33' },
  { target: '1.34', schema: null, models: '1.34' },
  { target: '1.35', schema: null, models: '1.35' },
  { target: '1.36', schema: '1.36.0', models: null },
  { target: '1.37', schema: null, models: null },
];
