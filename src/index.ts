/**
 * kubelet-hash: the container hash a Kubernetes kubelet computes (`HashContainer`), bit for bit,
 * for every kubelet release from 1.8 on ({@link supportedReleases} lists them).
 *
 * This entry is pure computation: its module graph imports no Node built-in (no file system, no
 * child processes), so it runs in any JavaScript runtime. What a node agent needs on top (the
 * runtime stores, bbolt, node plans, locks) is `kubelet-hash/node`.
 *
 * @document ../docs/controllers.md
 * @document ../docs/node-agents.md
 * @document ../docs/in-place-kubelet-upgrade.md
 * @document ../docs/how-the-kubelet-hashes.md
 * @document ../docs/troubleshooting.md
 * @document ../docs/cli.md
 *
 * @packageDocumentation
 */
export * from './hash-api/index.js';
export {
  kubelet,
  Kubelet,
  type KubeletSettings,
  type ChangedCallOptions,
  type PredictCallOptions,
  type KubeletChoice,
  type ResolvedGates,
  containerChanged,
  type ContainerChangedOptions,
  type ContainerChangedResult,
  type ChangedRule,
  type ContainerRole,
  type ContainerStatusInput,
  type FeatureGates,
  type HashValueInput,
  predictRestarts,
  type PredictRestartsOptions,
  type PredictedAction,
  type PredictedContainer,
  type RestartPrediction,
  type ProbeResults,
  type ProbeResult,
  type PodAction,
  type PodVerdict,
  type SandboxInput,
  translateHash,
  type TranslateOptions,
  identifyReleases,
  type ReleaseMatch,
  RESTART_RULES,
  type RestartRule,
  type RestartRuleId,
  type ContainerAction,
  type PodRestartPolicy,
  type ContainerStateInput,
  type RuntimeStateName,
  type GateName,
  type GateSettings,
  type GateValue,
  type StoredHashReading,
} from './kubelet/index.js';
export * from './workloads/index.js';
export * from './explain/index.js';
export {
  applyApiserverDefaults,
  applyApiserverDefaultsReport,
  limitRangerAnnotation,
  apiserverDefaultsFor,
  missingApiserverDefaults,
  wouldGetTokenMount,
  serviceAccountTokenMount,
  APISERVER_DEFAULTS,
  SERVICE_ACCOUNT_TOKEN_MOUNT_PATH,
  type ApiserverDefaultsOptions,
  type ApiserverDefaultsReport,
  type LimitRangerSet,
  type ApiserverDefault,
  type DefaultRule,
  type DefaultRuleKind,
  type DefaultGate,
  type ListStarts,
  type TokenMountOptions,
} from './defaults/index.js';
export { locateContainers, type LocatedContainer, type ContainerList } from './pod/locate.js';
export type { ContainerFields, PodFields, PodInput } from './pod/input-types.js';
export {
  readDocuments,
  manifestObjects,
  type ManifestDocument,
  type ManifestObject,
  type SourcePosition,
} from './manifests/index.js';
export {
  readRuntimeRecords,
  rewriteRuntimeRecord,
  detectRecordKind,
  selectRecord,
  type SelectRecordInput,
  type RecordKind,
  type RuntimeName,
  type RuntimeRecord,
  type ContainerRecordInfo,
  type HashPair,
  type HashChange,
} from './runtime-records/index.js';
export { formatHash, parseHash } from './hash/format.js';
export { KubeletRelease, type ReleasePair } from './hash/release.js';
export {
  supportedReleases,
  releaseInfo,
  HASH_KEY,
  HASH_WITHOUT_RESOURCES_KEY,
  type ReleaseInfo,
  type FeatureGateInfo,
  type PatchToolchain,
  kubeletToolchain,
  type KubeletToolchain,
} from './releases/index.js';
export type { JsonEscapeMode } from './models/json-escapes.js';
export type { HashAlgorithmName } from './models/model.js';
export { parseJson, parseJsonStream, type JsonValue, type JsonStreamValue } from './json/parse.js';
export { JsonNumber } from './json/number.js';
export {
  KubeletHashError,
  DecodeError,
  QuantityError,
  ReleaseError,
  HashFormatError,
  OptionError,
  HashMismatchError,
  RecordError,
  StoreError,
  formatJsonPath,
  type ErrorCode,
  type JsonPathSegment,
} from './errors.js';
export {
  planUpgrade,
  type PlanUpgradeInput,
  type PlanEntry,
  type PlanEntryFields,
  type KeepPlanEntry,
  type RewritePlanEntry,
  type WillRestartPlanEntry,
  type UnknownPlanEntry,
  type PlanRecordIndex,
  type ObservedHashes,
  type ComputedHashes,
  type PodSandboxInfo,
  type SandboxFinding,
  type PlanAction,
  type PlanCounts,
  type PlanRecord,
  type UpgradePlan,
} from './plan/index.js';
