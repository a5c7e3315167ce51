/**
 * The 1.36 judge: kubernetes-models 5.1.0, generated from v1.36.0's published OpenAPI document
 * (first-party/kubernetes-models/scripts/generate.ts in tommy351/kubernetes-models-ts lists the
 * versions it reads; the newest release's definitions win). No OpenAPI v3 document of 1.36 is
 * reachable from here, so this package is the nearest published description of 1.36:
 *
 * - its JSON schema, compiled by ajv into `kubernetes-models/_schemas/*`: types, formats, required
 *   fields and enums (the published v3 documents of 1.28–1.35 have no `enum`: these 1.36 lists are
 *   the only enums any document here gives);
 * - its TypeScript declarations, generated from the same definitions: the fields each type has.
 *   The compiled schema leaves objects open, so an unknown field is found by walking the object
 *   against the declared interface (read with the TypeScript compiler), as strict field
 *   validation refuses it.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { validate as validateClusterRole } from 'kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRole';
import { validate as validateClusterRoleBinding } from 'kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRoleBinding';
import { validate as validateJob } from 'kubernetes-models/_schemas/IoK8sApiBatchV1Job';
import { validate as validateNamespace } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Namespace';
import { validate as validateServiceAccount } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount';
import { describeErrors } from './openapi-validator.js';
import type { ErrorObject } from 'ajv';

export const KUBERNETES_MODELS = 'kubernetes-models@5.1.0';

interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** apiVersion/kind → the compiled schema and the module and interface that declare its fields. */
const KINDS: Record<string, { validate: CompiledValidator; module: string; iface: string }> = {
  'v1/Namespace': { validate: validateNamespace, module: 'v1/Namespace', iface: 'INamespace' },
  'v1/ServiceAccount': { validate: validateServiceAccount, module: 'v1/ServiceAccount', iface: 'IServiceAccount' },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    validate: validateClusterRole,
    module: 'rbac.authorization.k8s.io/v1/ClusterRole',
    iface: 'IClusterRole',
  },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': {
    validate: validateClusterRoleBinding,
    module: 'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
    iface: 'IClusterRoleBinding',
  },
  'batch/v1/Job': { validate: validateJob, module: 'batch/v1/Job', iface: 'IJob' },
};

const declarationFile = (module: string): string =>
  fileURLToPath(import.meta.resolve(`kubernetes-models/${module}`)).replace(/\.js$/, '.d.ts');

let program: { checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

/** The declared interface of every kind, from one TypeScript program over the package's declarations. */
function declaredTypes(): { checker: ts.TypeChecker; types: Map<string, ts.Type> } {
  if (program) return program;
  const files = Object.values(KINDS).map((k) => declarationFile(k.module));
  const p = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = p.getTypeChecker();
  const types = new Map<string, ts.Type>();
  for (const [key, k] of Object.entries(KINDS)) {
    const source = p.getSourceFile(declarationFile(k.module));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === k.iface);
    if (!symbol) throw new Error(`${KUBERNETES_MODELS}: no ${k.iface} in ${k.module}`);
    types.set(key, checker.getDeclaredTypeOfSymbol(symbol));
  }
  program = { checker, types };
  return program;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of `value` that `type` does not declare, as JSON pointers (recursing into declared fields). */
function undeclared(checker: ts.TypeChecker, type: ts.Type, value: unknown, at: string, out: string[]): void {
  const parts = type.isUnion() ? type.types : [type];
  if (Array.isArray(value)) {
    const array = parts.find((t) => checker.isArrayType(t));
    const element = array && checker.getTypeArguments(array as ts.TypeReference)[0];
    if (element) value.forEach((item, i) => undeclared(checker, element, item, `${at}/${i}`, out));
    return;
  }
  if (!isObject(value)) return;
  const objects = parts.filter((t) => t.flags & ts.TypeFlags.Object && !checker.isArrayType(t));
  if (objects.length === 0) return; // a primitive was declared: the compiled schema reports the type
  for (const [key, field] of Object.entries(value)) {
    const path = `${at}/${key}`;
    const prop = objects.map((t) => t.getProperty(key)).find((s) => s !== undefined);
    const index = objects.flatMap((t) => checker.getIndexInfosOfType(t))[0];
    if (prop) undeclared(checker, checker.getTypeOfSymbol(prop), field, path, out);
    else if (index) undeclared(checker, index.type, field, path, out);
    else out.push(`${path}: unknown field (strict field validation; not declared by ${KUBERNETES_MODELS})`);
  }
}

const kindOf = (o: Record<string, unknown>): string => `${String(o['apiVersion'])}/${String(o['kind'])}`;

/** What kubernetes-models 5.1.0 (v1.36.0) refuses in `o`: unknown fields, then the schema's errors. */
export function kubernetesModelsProblems(o: Record<string, unknown>): string[] {
  const kind = KINDS[kindOf(o)];
  if (!kind) return [`/: ${KUBERNETES_MODELS} has no ${kindOf(o)} this judge knows`];
  const { checker, types } = declaredTypes();
  const out: string[] = [];
  undeclared(checker, types.get(kindOf(o))!, o, '', out);
  if (!kind.validate(o)) out.push(...describeErrors(kind.validate.errors));
  return out;
}

/** Only the enum errors of kubernetes-models 5.1.0's schema: the 1.36 enums, for documents that have none. */
export function kubernetesModelsEnumProblems(o: Record<string, unknown>): string[] {
  const kind = KINDS[kindOf(o)];
  if (!kind) return [`/: ${KUBERNETES_MODELS} has no ${kindOf(o)} this judge knows`];
  return kind.validate(o) ? [] : describeErrors(kind.validate.errors?.filter((e) => e.keyword === 'enum'));
}
