/**
 * Which published description of Kubernetes judges the objects `fleet manifests` prints for each
 * target release of `--to`, and one call that applies it:
 *
 * - **1.28–1.35**: that release's own OpenAPI v3 documents (fixtures/kube-openapi/, kube-openapi.ts),
 *   strict: required fields, types, formats, int-or-string, list-type maps and sets, and unknown
 *   fields refused. Those documents carry no `enum`, so every target is also held to the enums of
 *   kubernetes-models 5.1.0's schema (1.36's lists; an enum value is not removed from a served API).
 * - **1.36**: kubernetes-models 5.1.0 (v1.36.0): its compiled JSON schema and its declared fields
 *   (kubernetes-models-judge.ts).
 * - **1.37**: no published document; judged by 1.36's (docs/fleet.md, "Schema validation", says so).
 *
 * The system-upgrade-controller `Plan` is judged by its CRD's `openAPIV3Schema` for every target, and
 * its metadata by the target's ObjectMeta.
 */
import { OPENAPI_RELEASES, objectMetaProblems, openapiProblems, planProblems } from './kube-openapi.js';
import {
  KUBERNETES_MODELS,
  kubernetesModelsEnumProblems,
  kubernetesModelsProblems,
} from './kubernetes-models-judge.js';

export type K8sObject = Record<string, unknown> & { kind: string; apiVersion: string };

export interface TargetJudge {
  target: string;
  /** The document that judges the target: a release folder of fixtures/kube-openapi, or the npm package. */
  judge: string;
  /** Why a target is judged by another release's description; null where it is its own. */
  borrowed: string | null;
}

export const TARGET_JUDGES: readonly TargetJudge[] = [
  ...OPENAPI_RELEASES.map((r) => ({ target: r, judge: `kube-openapi ${r}`, borrowed: null })),
  { target: '1.36', judge: KUBERNETES_MODELS, borrowed: null },
  { target: '1.37', judge: KUBERNETES_MODELS, borrowed: 'no published document of 1.37: judged by 1.36' },
];

const isOpenapiRelease = (target: string): boolean => (OPENAPI_RELEASES as readonly string[]).includes(target);

/** Everything the target's judge refuses in a metadata object, paths under `/metadata`. */
function metadataProblems(target: string, meta: unknown): string[] {
  if (isOpenapiRelease(target)) return objectMetaProblems(target, meta);
  // kubernetes-models judges metadata inside an object: a namespaced one with nothing else set.
  return kubernetesModelsProblems({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta });
}

/** What the judge of `target` refuses in `o` (empty: it validates), each naming the field's JSON path. */
export function problemsFor(target: string, o: K8sObject): string[] {
  if (!TARGET_JUDGES.some((j) => j.target === target)) throw new Error(`no judge for target ${target}`);
  if (o.kind === 'Plan') return [...planProblems(o), ...metadataProblems(target, o['metadata'])];
  if (!isOpenapiRelease(target)) return kubernetesModelsProblems(o);
  return [...openapiProblems(target, o), ...kubernetesModelsEnumProblems(o)];
}
