/**
 * Errors as plain data: every error the library throws is a {@link KubeletHashError} with a
 * stable string `code`, the JSON `path` it concerns (`[]` for the document root) and what was
 * `expected` there, so callers can branch on `code` and print `path` without parsing messages.
 */

/**
 * A step in a JSON path: an object key or an array index.
 *
 * @example
 * ```ts
 * import { formatJsonPath, type JsonPathSegment } from 'kubelet-hash';
 *
 * const path: JsonPathSegment[] = ['env', 0, 'valueFrom'];
 * formatJsonPath(path); // → '.env[0].valueFrom'
 * ```
 *
 * @group Errors
 */
export type JsonPathSegment = string | number;

/**
 * Every error code the library uses, bound to the one error class that carries it, with when it is
 * thrown. {@link ErrorCode}, the per-class code types and the table in its documentation come from
 * here (`test/api/errors.test.ts` holds the documentation table to this one).
 *
 * @internal
 */
export const ERROR_CODES = {
  INVALID_TYPE: {
    class: 'DecodeError',
    when: 'a value has the wrong JSON type for its Go field, or a document holds no containers',
  },
  INT_OUT_OF_RANGE: { class: 'DecodeError', when: 'an integer does not fit its Go type (int32, int64)' },
  NOT_AN_INTEGER: { class: 'DecodeError', when: 'an integer field holds a fraction or an exponent' },
  UNSAFE_INTEGER: {
    class: 'DecodeError',
    when: 'a JS number beyond 2^53 (already rounded): pass a bigint or JSON text',
  },
  INVALID_JSON: { class: 'DecodeError', when: 'JSON text is malformed, repeats a key, or holds an unpaired surrogate' },
  INVALID_YAML: {
    class: 'DecodeError',
    when: 'a YAML manifest is malformed (syntax, a repeated key, an alias or tag kubectl refuses); the detail names line and column',
  },
  TOO_DEEP: { class: 'DecodeError', when: 'JSON or YAML nested deeper than 512 levels' },
  DUPLICATE_CONTAINER_NAME: { class: 'DecodeError', when: 'two containers of one pod share a name' },
  INVALID_QUANTITY: { class: 'QuantityError', when: '`resource.Quantity` parsing refuses the text' },
  INVALID_VERSION: { class: 'ReleaseError', when: 'a version string is no kubelet version' },
  UNSUPPORTED_RELEASE: { class: 'ReleaseError', when: 'a release outside the supported range (`supportedReleases()`)' },
  NOT_AVAILABLE: {
    class: 'ReleaseError',
    when: 'the release lacks what was asked (hashWithoutResources outside 1.27–1.30)',
  },
  INVALID_HASH: { class: 'HashFormatError', when: 'a hash text is not what the kubelet writes or reads' },
  INVALID_OPTION: {
    class: 'OptionError',
    when: 'an options object or argument is invalid (including feature gates a kubelet refuses)',
  },
  HASH_MISMATCH: { class: 'HashMismatchError', when: 'a stored or observed hash is not the one expected' },
  INVALID_RECORD: { class: 'RecordError', when: 'a runtime record is malformed' },
  NOT_A_CONTAINER: {
    class: 'DecodeError',
    when: 'a Pod, List, workload or pod spec was given where one container is expected',
  },
  MISSING_NAME: { class: 'DecodeError', when: 'a container has no name (the apiserver requires one)' },
  MISSING_HASH: { class: 'HashFormatError', when: 'a caller-given status or record carries no kubelet hash' },
  UNKNOWN_FEATURE_GATE: {
    class: 'OptionError',
    when: 'a gate the library does not model, or one the release does not have',
  },
  RECORD_MISMATCH: { class: 'RecordError', when: 'a record belongs to another container or pod than the one checked' },
  AMBIGUOUS_RECORD: {
    class: 'RecordError',
    when: "several records fit one container, or records of several pods are given without the container's pod",
  },
  STORE_LOCKED: { class: 'StoreError', when: 'the runtime holds the lock on its store (containerd runs)' },
  RUNTIME_RUNNING: { class: 'StoreError', when: "the runtime's daemon runs (crio, dockerd)" },
  LIVE_RESTORE_OFF: { class: 'StoreError', when: "dockerd's `live-restore` is off: stopping it stops the containers" },
  STORE_CORRUPT: {
    class: 'StoreError',
    when: 'the store fails its own checks (bbolt magic, checksums, page bounds, invariants)',
  },
  STORE_CHANGED: { class: 'StoreError', when: 'a record is not what the plan read (fingerprint, stored hash, gone)' },
  STORE_IO: { class: 'StoreError', when: 'reading or writing the store failed' },
  EMPTY_STORE: {
    class: 'StoreError',
    when: 'the store holds no CRI container records while the API pods have running containers (wrong root or namespace)',
  },
  WRITE_INTERRUPTED: { class: 'StoreError', when: 'writing the bbolt meta page failed (the file keeps its old state)' },
  RUNTIME_ROOT_MISMATCH: {
    class: 'StoreError',
    when: "a node plan was made for another runtime root than the one the kubelet's runtime endpoint serves",
  },
  DUPLICATE_POD: { class: 'OptionError', when: 'two API pods share a uid (a pod view must list each pod once)' },
  NODE_NOT_FOUND: {
    class: 'OptionError',
    when: 'no given pod is scheduled on the node named (the detail names the nodes the pods are on, and a near match)',
  },
  EMPTY_POD_VIEW: {
    class: 'StoreError',
    when: 'no API pod is given while the store holds container records (nothing to check them against)',
  },
  NAMESPACE_MISMATCH: {
    class: 'StoreError',
    when: "the containerd namespace read holds no CRI container while another one does (the kubelet's containers would go unchecked)",
  },
  MISSING_RUNROOT: {
    class: 'StoreError',
    when: 'a CRI-O store with containers planned or verified without its runroot, or with one that does not exist',
  },
  INCOMPLETE_PLAN: {
    class: 'OptionError',
    when: 'a node plan given to `fleet report` misses rows or its trailer (a cut `plan --ndjson`), or its counts do not add up',
  },
  DUPLICATE_NODE: { class: 'OptionError', when: '`fleet report` is given the same node (or the same plan) twice' },
  AMBIGUOUS_RUNTIME: {
    class: 'OptionError',
    when: 'node discovery finds several runtime layouts for one socket and no evidence (a root that exists, a listener) to choose',
  },
  ROOT_NOT_FOUND: {
    class: 'OptionError',
    when: 'the runtime root (or CRI-O runroot) node discovery found does not exist on the node',
  },
  CRI_UNREACHABLE: {
    class: 'StoreError',
    when: 'verify with a runtime endpoint: the runtime does not answer CRI ListContainers on its socket (or its answer is not one)',
  },
  CRI_DISAGREES: {
    class: 'StoreError',
    when: 'verify with a runtime endpoint: the containers the runtime serves over CRI are not the ones its store holds (one missing on either side, another hash or identity)',
  },
  INVALID_KUBECONFIG: {
    class: 'OptionError',
    when: 'a kubeconfig is malformed, lacks the context, cluster or user it names, or asks for credentials the library does not send (exec, auth-provider)',
  },
  APISERVER_ERROR: {
    class: 'OptionError',
    when: 'the apiserver does not answer over TLS, or answers with an error that is no verdict on the object sent (401, 403, 404, 409, 5xx)',
  },
} as const satisfies Record<string, { class: ErrorClassName; when: string }>;

/** The names of the error classes below (a code's `class` in {@link ERROR_CODES}). */
type ErrorClassName =
  | 'DecodeError'
  | 'QuantityError'
  | 'ReleaseError'
  | 'HashFormatError'
  | 'OptionError'
  | 'HashMismatchError'
  | 'RecordError'
  | 'StoreError';

/** The codes {@link ERROR_CODES} binds to one class. */
type CodesOf<C extends ErrorClassName> = {
  [K in keyof typeof ERROR_CODES]: (typeof ERROR_CODES)[K]['class'] extends C ? K : never;
}[keyof typeof ERROR_CODES];

/**
 * Every error code the library uses. Each belongs to one error class:
 *
 * | code | class | thrown when |
 * |---|---|---|
 * | `INVALID_TYPE` | {@link DecodeError} | a value has the wrong JSON type for its Go field, or a document holds no containers |
 * | `INT_OUT_OF_RANGE` | {@link DecodeError} | an integer does not fit its Go type (int32, int64) |
 * | `NOT_AN_INTEGER` | {@link DecodeError} | an integer field holds a fraction or an exponent |
 * | `UNSAFE_INTEGER` | {@link DecodeError} | a JS number beyond 2^53 (already rounded): pass a bigint or JSON text |
 * | `INVALID_JSON` | {@link DecodeError} | JSON text is malformed, repeats a key, or holds an unpaired surrogate |
 * | `INVALID_YAML` | {@link DecodeError} | a YAML manifest is malformed (syntax, a repeated key, an alias or tag kubectl refuses); the detail names line and column |
 * | `TOO_DEEP` | {@link DecodeError} | JSON or YAML nested deeper than 512 levels |
 * | `DUPLICATE_CONTAINER_NAME` | {@link DecodeError} | two containers of one pod share a name |
 * | `INVALID_QUANTITY` | {@link QuantityError} | `resource.Quantity` parsing refuses the text |
 * | `INVALID_VERSION` | {@link ReleaseError} | a version string is no kubelet version |
 * | `UNSUPPORTED_RELEASE` | {@link ReleaseError} | a release outside the supported range (`supportedReleases()`) |
 * | `NOT_AVAILABLE` | {@link ReleaseError} | the release lacks what was asked (hashWithoutResources outside 1.27–1.30) |
 * | `INVALID_HASH` | {@link HashFormatError} | a hash text is not what the kubelet writes or reads |
 * | `INVALID_OPTION` | {@link OptionError} | an options object or argument is invalid (including feature gates a kubelet refuses) |
 * | `HASH_MISMATCH` | {@link HashMismatchError} | a stored or observed hash is not the one expected |
 * | `INVALID_RECORD` | {@link RecordError} | a runtime record is malformed |
 * | `NOT_A_CONTAINER` | {@link DecodeError} | a Pod, List, workload or pod spec was given where one container is expected |
 * | `MISSING_NAME` | {@link DecodeError} | a container has no name (the apiserver requires one) |
 * | `MISSING_HASH` | {@link HashFormatError} | a caller-given status or record carries no kubelet hash |
 * | `UNKNOWN_FEATURE_GATE` | {@link OptionError} | a gate the library does not model, or one the release does not have |
 * | `RECORD_MISMATCH` | {@link RecordError} | a record belongs to another container or pod than the one checked |
 * | `AMBIGUOUS_RECORD` | {@link RecordError} | several records fit one container, or records of several pods are given without the container's pod |
 * | `STORE_LOCKED` | {@link StoreError} | the runtime holds the lock on its store (containerd runs) |
 * | `RUNTIME_RUNNING` | {@link StoreError} | the runtime's daemon runs (crio, dockerd) |
 * | `LIVE_RESTORE_OFF` | {@link StoreError} | dockerd's `live-restore` is off: stopping it stops the containers |
 * | `STORE_CORRUPT` | {@link StoreError} | the store fails its own checks (bbolt magic, checksums, page bounds, invariants) |
 * | `STORE_CHANGED` | {@link StoreError} | a record is not what the plan read (fingerprint, stored hash, gone) |
 * | `STORE_IO` | {@link StoreError} | reading or writing the store failed |
 * | `EMPTY_STORE` | {@link StoreError} | the store holds no CRI container records while the API pods have running containers (wrong root or namespace) |
 * | `WRITE_INTERRUPTED` | {@link StoreError} | writing the bbolt meta page failed (the file keeps its old state) |
 * | `RUNTIME_ROOT_MISMATCH` | {@link StoreError} | a node plan was made for another runtime root than the one the kubelet's runtime endpoint serves |
 * | `DUPLICATE_POD` | {@link OptionError} | two API pods share a uid (a pod view must list each pod once) |
 * | `NODE_NOT_FOUND` | {@link OptionError} | no given pod is scheduled on the node named (the detail names the nodes the pods are on, and a near match) |
 * | `EMPTY_POD_VIEW` | {@link StoreError} | no API pod is given while the store holds container records (nothing to check them against) |
 * | `NAMESPACE_MISMATCH` | {@link StoreError} | the containerd namespace read holds no CRI container while another one does (the kubelet's containers would go unchecked) |
 * | `MISSING_RUNROOT` | {@link StoreError} | a CRI-O store with containers planned or verified without its runroot, or with one that does not exist |
 * | `INCOMPLETE_PLAN` | {@link OptionError} | a node plan given to `fleet report` misses rows or its trailer (a cut `plan --ndjson`), or its counts do not add up |
 * | `DUPLICATE_NODE` | {@link OptionError} | `fleet report` is given the same node (or the same plan) twice |
 * | `AMBIGUOUS_RUNTIME` | {@link OptionError} | node discovery finds several runtime layouts for one socket and no evidence (a root that exists, a listener) to choose |
 * | `ROOT_NOT_FOUND` | {@link OptionError} | the runtime root (or CRI-O runroot) node discovery found does not exist on the node |
 * | `CRI_UNREACHABLE` | {@link StoreError} | verify with a runtime endpoint: the runtime does not answer CRI ListContainers on its socket (or its answer is not one) |
 * | `CRI_DISAGREES` | {@link StoreError} | verify with a runtime endpoint: the containers the runtime serves over CRI are not the ones its store holds (one missing on either side, another hash or identity) |
 * | `INVALID_KUBECONFIG` | {@link OptionError} | a kubeconfig is malformed, lacks the context, cluster or user it names, or asks for credentials the library does not send (exec, auth-provider) |
 * | `APISERVER_ERROR` | {@link OptionError} | the apiserver does not answer over TLS, or answers with an error that is no verdict on the object sent (401, 403, 404, 409, 5xx) |
 *
 * @example
 * ```ts
 * import { hashContainer, KubeletHashError, type ErrorCode } from 'kubelet-hash';
 *
 * function codeOf(run: () => unknown): ErrorCode | 'ok' {
 *   try {
 *     run();
 *     return 'ok';
 *   } catch (e) {
 *     if (e instanceof KubeletHashError) return e.code;
 *     throw e;
 *   }
 * }
 * codeOf(() => hashContainer({ name: 'a', image: 'b', ports: [{ containerPort: 1e10 }] }, { kubeletVersion: '1.29' })); // → 'INT_OUT_OF_RANGE'
 * codeOf(() => hashContainer({ name: 'a', image: 'b' }, { kubeletVersion: 'banana' })); // → 'INVALID_VERSION'
 * ```
 *
 * @group Errors
 */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Renders a path the way jq would address it: `.env[0].valueFrom`. Error messages use it.
 *
 * @example
 * ```ts
 * import { formatJsonPath } from 'kubelet-hash';
 *
 * formatJsonPath(['spec', 'containers', 0, 'env', 1, 'valueFrom']); // → '.spec.containers[0].env[1].valueFrom'
 * formatJsonPath(['metadata', 'annotations', 'io.kubernetes.container.hash']); // → '.metadata.annotations["io.kubernetes.container.hash"]'
 * formatJsonPath([]); // → '.'
 * ```
 *
 * @group Errors
 */
export function formatJsonPath(path: readonly JsonPathSegment[]): string {
  if (path.length === 0) return '.';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * Base class of every error thrown by kubelet-hash: catch this one to tell the library's refusals
 * from bugs, then branch on {@link KubeletHashError.code} (see {@link ErrorCode} for which subclass
 * carries which code). The message reads `CODE at .json.path: expected … (detail)`.
 *
 * @example
 * ```ts
 * import { hashContainer, KubeletHashError } from 'kubelet-hash';
 *
 * try {
 *   hashContainer({ name: 'web', image: 'nginx', resources: { limits: { memory: '1 Gi' } } }, { kubeletVersion: '1.29' });
 * } catch (e) {
 *   if (!(e instanceof KubeletHashError)) throw e;
 *   [e.name, e.code, e.path]; // → ['QuantityError', 'INVALID_QUANTITY', ['resources', 'limits', 'memory']]
 *   e.toJSON().expected; // → 'a quantity like "500m" or "1Gi"'
 *   // Errors from a container inside a pod can be re-rooted at the container's path.
 *   e.withPathPrefix(['spec', 'containers', 0]).message.startsWith('INVALID_QUANTITY at .spec.containers[0].resources.limits.memory'); // → true
 * }
 * ```
 *
 * @group Errors
 */
export class KubeletHashError<C extends ErrorCode = ErrorCode> extends Error {
  /** Stable machine-readable reason (`INVALID_QUANTITY`, `UNSUPPORTED_RELEASE`…); branch on this, not on `message`. */
  readonly code: C;
  /** JSON path of the offending value in the input (`[]` for the whole input); frozen. */
  readonly path: readonly JsonPathSegment[];
  /** What a valid value at `path` would have been, in words (the text after "expected" in `message`). */
  readonly expected: string;
  /** What was found instead, or why, when known. */
  readonly detail: string | undefined;

  /**
   * The one constructor of every error class: each subclass is `KubeletHashError` with `code`
   * narrowed to the codes `ERROR_CODES` binds to it (see {@link ErrorCode}), so a wrong code is a compile error.
   */
  constructor(code: C, path: readonly JsonPathSegment[], expected: string, detail?: string) {
    const where = path.length > 0 ? ` at ${formatJsonPath(path)}` : '';
    super(`${code}${where}: expected ${expected}${detail ? ` (${detail})` : ''}`);
    this.name = new.target.name;
    this.code = code;
    this.path = Object.freeze([...path]);
    this.expected = expected;
    this.detail = detail;
  }

  /** The same error (same class) for a document that holds the failing value under `prefix`. */
  withPathPrefix(prefix: readonly JsonPathSegment[]): this {
    const Same = this.constructor as new (
      code: C,
      path: readonly JsonPathSegment[],
      expected: string,
      detail?: string,
    ) => this;
    return new Same(this.code, [...prefix, ...this.path], this.expected, this.detail);
  }

  /** The error as plain data, e.g. for a CLI's `--json` output. */
  toJSON(): {
    /** The error class name (`DecodeError`, `QuantityError`…). */
    name: string;
    /** Same as {@link KubeletHashError.code}. */
    code: C;
    /** A mutable copy of {@link KubeletHashError.path}. */
    path: JsonPathSegment[];
    /** Same as {@link KubeletHashError.expected}. */
    expected: string;
    /** Same as {@link KubeletHashError.detail}; absent when there is none. */
    detail?: string;
    /** The full human-readable message: code, jq-style path, expectation and detail. */
    message: string;
  } {
    return {
      name: this.name,
      code: this.code,
      path: [...this.path],
      expected: this.expected,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      message: this.message,
    };
  }
}

/**
 * The container (or another input document) does not fit the Go type it is decoded into. Codes:
 * `INVALID_TYPE` (wrong JSON type, or no containers found), `INT_OUT_OF_RANGE`, `NOT_AN_INTEGER`,
 * `UNSAFE_INTEGER` (a JS number beyond 2^53: give a bigint or JSON text), `INVALID_JSON` (bad JSON
 * text, a repeated key, an unpaired surrogate), `INVALID_YAML`, `TOO_DEEP`,
 * `DUPLICATE_CONTAINER_NAME`, `NOT_A_CONTAINER` (a Pod, List, workload or pod spec where one
 * container is expected) and `MISSING_NAME`. Thrown by every function that reads a container or a pod.
 *
 * @example
 * ```ts
 * import { hashContainer, DecodeError } from 'kubelet-hash';
 *
 * try {
 *   hashContainer({ name: 'web', image: 'nginx', securityContext: { runAsUser: 2 ** 60 } }, { kubeletVersion: '1.29' });
 * } catch (e) {
 *   e instanceof DecodeError && [e.code, e.path]; // → ['UNSAFE_INTEGER', ['securityContext', 'runAsUser']]
 * }
 * // The exact value as a bigint is fine.
 * hashContainer({ name: 'web', image: 'nginx', securityContext: { runAsUser: 2n ** 60n } }, { kubeletVersion: '1.29' }); // → '6216a964'
 * ```
 *
 * @group Errors
 */
export class DecodeError extends KubeletHashError<CodesOf<'DecodeError'>> {}

/**
 * A text is not a valid `resource.Quantity` (apimachinery's ParseQuantity refused it): code
 * `INVALID_QUANTITY`, with the path of the quantity in the container.
 *
 * @example
 * ```ts
 * import { hashContainer, QuantityError } from 'kubelet-hash';
 *
 * try {
 *   hashContainer({ name: 'web', image: 'nginx', resources: { requests: { memory: '1GB' } } }, { kubeletVersion: '1.29' });
 * } catch (e) {
 *   e instanceof QuantityError && e.path; // → ['resources', 'requests', 'memory']
 * }
 * ```
 *
 * @group Errors
 */
export class QuantityError extends KubeletHashError<CodesOf<'QuantityError'>> {}

/**
 * A kubelet version string is malformed (`INVALID_VERSION`), names a release this library does
 * not model (`UNSUPPORTED_RELEASE`: outside `supportedReleases()`), or names one without the feature asked for
 * (`NOT_AVAILABLE`: e.g. hashWithoutResources outside 1.27–1.30).
 *
 * @example
 * ```ts
 * import { hashContainer, ReleaseError } from 'kubelet-hash';
 *
 * try {
 *   hashContainer({ name: 'web', image: 'nginx' }, { kubeletVersion: '1.7' });
 * } catch (e) {
 *   e instanceof ReleaseError && [e.code, e.expected.startsWith('a kubelet release from 1.8 to ')]; // → ['UNSUPPORTED_RELEASE', true]
 * }
 * ```
 *
 * @group Errors
 */
export class ReleaseError extends KubeletHashError<CodesOf<'ReleaseError'>> {}

/**
 * A stored hash text is not what the kubelet writes (`strconv.FormatUint(h, 16)`) or can read
 * back: code `INVALID_HASH`, or a status or record carries none (`MISSING_HASH`). Thrown by {@link parseHash}, {@link formatHash},
 * {@link identifyReleases} and {@link rewriteRuntimeRecord} (for a `to` hash with a leading zero
 * or capitals, which the kubelet never writes).
 *
 * @example
 * ```ts
 * import { formatHash, HashFormatError } from 'kubelet-hash';
 *
 * try {
 *   formatHash(-1);
 * } catch (e) {
 *   e instanceof HashFormatError && e.code; // → 'INVALID_HASH'
 * }
 * ```
 *
 * @group Errors
 */
export class HashFormatError extends KubeletHashError<CodesOf<'HashFormatError'>> {}

/**
 * An option passed to a public function is invalid: code `INVALID_OPTION`, with the path of the
 * option (`['options', 'jsonEscapes']`). Also thrown for feature gates a kubelet would refuse to
 * start with (`UNKNOWN_FEATURE_GATE`: a gate the release does not have, or one set against its
 * locked GA default), and for inputs that contradict each other: `DUPLICATE_POD`, `NODE_NOT_FOUND`,
 * `INCOMPLETE_PLAN`, `DUPLICATE_NODE`, `AMBIGUOUS_RUNTIME`, `ROOT_NOT_FOUND`; and for a cluster
 * asked (`predict --kubeconfig`): `INVALID_KUBECONFIG`, `APISERVER_ERROR` (see {@link ErrorCode}).
 *
 * @example
 * ```ts
 * import { containerChanged, OptionError } from 'kubelet-hash';
 *
 * try {
 *   containerChanged({ name: 'web', image: 'nginx' }, { hash: '0' }, { kubeletVersion: '1.35', featureGates: { InPlacePodVerticalScaling: false } });
 * } catch (e) {
 *   e instanceof OptionError && e.path; // → ['options', 'featureGates', 'InPlacePodVerticalScaling']
 * }
 * ```
 *
 * @group Errors
 */
export class OptionError extends KubeletHashError<CodesOf<'OptionError'>> {}

/**
 * An observed hash does not match the one computed for the claimed source release: code
 * `HASH_MISMATCH`. Thrown by {@link translateHash} when `observed` is not the `from` hash, and by
 * {@link rewriteRuntimeRecord} when a stored copy is not `change.from`. Never rewrite such a
 * hash: the container may run another spec, or another release created it (see
 * {@link identifyReleases}).
 *
 * @example
 * ```ts
 * import { translateHash, HashMismatchError } from 'kubelet-hash';
 *
 * try {
 *   translateHash({ name: 'web', image: 'nginx' }, { from: '1.30', to: '1.31', observed: 'abc' });
 * } catch (e) {
 *   e instanceof HashMismatchError && e.path; // → ['options', 'observed']
 * }
 * ```
 *
 * @group Errors
 */
export class HashMismatchError extends KubeletHashError<CodesOf<'HashMismatchError'>> {}

/**
 * A runtime record (docker inspect, config.v2.json, crictl inspect) is malformed, or stores no
 * hash to rewrite: code `INVALID_RECORD`, with the JSON path inside the record. Thrown by
 * {@link readRuntimeRecords}, {@link detectRecordKind} and {@link rewriteRuntimeRecord};
 * {@link planUpgrade} turns it into an `unknown` entry instead. A record of another container or
 * pod is `RECORD_MISMATCH` ({@link containerChanged}, {@link selectRecord}), and several records
 * that fit one container `AMBIGUOUS_RECORD` ({@link selectRecord}).
 *
 * @example
 * ```ts
 * import { readRuntimeRecords, RecordError } from 'kubelet-hash';
 *
 * try {
 *   readRuntimeRecords('{"status": {"id": "c0ffee", "labels": {}}}');
 * } catch (e) {
 *   e instanceof RecordError && e.path; // → ['status', 'labels', 'io.kubernetes.pod.name']
 * }
 * ```
 *
 * @group Errors
 */
export class RecordError extends KubeletHashError<CodesOf<'RecordError'>> {}

/**
 * A runtime's persisted store (containerd meta.db, CRI-O config.json, docker config.v2.json) cannot
 * be read or written safely: the runtime holds it (`STORE_LOCKED`, `RUNTIME_RUNNING`), it fails its
 * own checks (`STORE_CORRUPT`), a record is not what a plan read (`STORE_CHANGED`), or I/O failed
 * (`STORE_IO`, `WRITE_INTERRUPTED`), or stopping the runtime would stop its containers
 * (`LIVE_RESTORE_OFF`), or it holds no CRI container record for a node whose API pods run
 * containers (`EMPTY_STORE`: a wrong runtime root or namespace), or a plan was made for another root
 * than the runtime's (`RUNTIME_ROOT_MISMATCH`), or the view of the node would leave containers
 * unchecked (`EMPTY_POD_VIEW`, `NAMESPACE_MISMATCH`, `MISSING_RUNROOT`), or the runtime cannot be asked
 * over CRI (`CRI_UNREACHABLE`) or serves other containers than its store holds (`CRI_DISAGREES`).
 * {@link StoreError.location} says where. Nothing has been written when it is thrown before a commit.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { StoreError } from 'kubelet-hash';
 * import { ContainerdStore } from 'kubelet-hash/node';
 * // No meta.db under this root.
 * const store = new ContainerdStore({ root: mkdtempSync(join(tmpdir(), 'containerd-')) });
 * const error = await store.list().catch((e: unknown) => e);
 * error instanceof StoreError; // → true
 * (error as StoreError).code; // → 'STORE_IO'
 * ```
 *
 * @group Errors
 */
export class StoreError extends KubeletHashError<CodesOf<'StoreError'>> {
  /**
   * Where in the store: the file (`…/meta.db`, a `config.json`, a backup manifest), and inside a bbolt
   * file the bucket path of the record (`…/meta.db#v1/k8s.io/containers/ID/…`), or the runtime root or
   * socket when no one file is concerned (`EMPTY_STORE`, `RUNTIME_RUNNING`, `CRI_UNREACHABLE`). Every
   * StoreError this library throws sets it, except the page-format checks of a bbolt file, whose
   * `detail` names the file and page. `path` stays the JSON path of the offending input value
   * (`['store', 'namespace']`), `[]` when there is none.
   */
  readonly location: string | undefined;

  constructor(
    code: CodesOf<'StoreError'>,
    path: readonly JsonPathSegment[],
    expected: string,
    detail?: string,
    location?: string,
  ) {
    super(code, path, expected, detail);
    this.location = location;
  }

  override withPathPrefix(prefix: readonly JsonPathSegment[]): this {
    // Through this.constructor, not the class's own name: a class naming itself in its body is
    // bundled as `class _StoreError`, and its errors would be named so.
    const Same = this.constructor as typeof StoreError;
    return new Same(this.code, [...prefix, ...this.path], this.expected, this.detail, this.location) as this;
  }

  /** {@link KubeletHashError.toJSON} with the store's `location` when known. */
  override toJSON(): ReturnType<KubeletHashError<CodesOf<'StoreError'>>['toJSON']> & {
    /** Same as {@link StoreError.location}; absent when there is none. */
    location?: string;
  } {
    return { ...super.toJSON(), ...(this.location !== undefined ? { location: this.location } : {}) };
  }
}

/** The `code` of a system error (`ENOENT`, `EACCES`…), or undefined for anything else thrown. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('code' in e)) return undefined;
  return typeof e.code === 'string' ? e.code : undefined;
}

/**
 * A failed file operation as a {@link StoreError}: `what` is what was being done (`to read the mode
 * of /x`), `location` the file it concerns, the system error's code (or text) the detail. A StoreError passes
 * through unchanged.
 */
export function ioError(
  e: unknown,
  what: string,
  location: string,
  code: 'STORE_IO' | 'WRITE_INTERRUPTED' = 'STORE_IO',
): StoreError {
  return e instanceof StoreError ? e : new StoreError(code, [], what, errnoCode(e) ?? String(e), location);
}

/** Zod's first issue, with its path as ours: under `base` (`path`) and inside the parsed value (`inside`). */
export interface SchemaIssue {
  path: JsonPathSegment[];
  inside: JsonPathSegment[];
  /** The schema's message at that leaf: our schemas state the expectation there. */
  message: string;
  /** Zod's issue code (`invalid_type`, `too_small`…). */
  code: string;
}

/** The part of a zod schema {@link parseWith} uses (structural, so this module needs no zod import). */
interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly RawIssue[] } };
}
interface RawIssue {
  path: readonly PropertyKey[];
  message: string;
  code: string;
  // What zod's issues carry beside the message, read to say the expectation in our words.
  expected?: unknown;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: unknown;
  values?: readonly unknown[];
  keys?: readonly unknown[];
  format?: unknown;
  pattern?: unknown;
  errors?: readonly (readonly RawIssue[])[];
}

/** zod's own (English locale) messages start so; the messages our schemas give never do. */
const ZOD_DEFAULT =
  /^(Invalid input|Invalid option|Invalid string|Invalid number|Invalid key|Invalid element|Invalid [a-zA-Z]+:|Too small|Too big|Unrecognized key)/;

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  bigint: 'an integer',
  null: 'null',
};

/** A bound as words: `at least 1 character`, `at most 3 items`, `≥ 0`. */
function bound(raw: RawIssue, most: boolean): string {
  const n = String(most ? raw.maximum : raw.minimum);
  const inclusive = raw.inclusive !== false;
  if (raw.origin === 'string')
    return n === '1' && !most ? 'a non-empty string' : `a string of ${most ? 'at most' : 'at least'} ${n} characters`;
  if (raw.origin === 'array' || raw.origin === 'set')
    return n === '1' && !most ? 'a non-empty list' : `a list of ${most ? 'at most' : 'at least'} ${n} items`;
  return `a number ${most ? (inclusive ? '≤' : '<') : inclusive ? '≥' : '>'} ${n}`;
}

/** The expectation of an issue in our words, when its message is zod's own default text. */
function issueWords(raw: RawIssue): string {
  if (!ZOD_DEFAULT.test(raw.message)) return raw.message;
  const text = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  switch (raw.code) {
    case 'invalid_type':
      return TYPE_WORDS[String(raw.expected)] ?? `a value of type ${String(raw.expected)}`;
    case 'too_small':
      return bound(raw, false);
    case 'too_big':
      return bound(raw, true);
    case 'invalid_value':
      return raw.values && raw.values.length === 1
        ? `the value ${text(raw.values[0])}`
        : `one of ${(raw.values ?? []).map(text).join(', ')}`;
    case 'unrecognized_keys':
      return `no member ${(raw.keys ?? []).map(text).join(', ')} (not one this object has)`;
    case 'invalid_format':
      return raw.format === 'regex' ? `a string matching ${String(raw.pattern)}` : `a valid ${String(raw.format)}`;
    case 'invalid_union': {
      // The branches that failed at this very value, by what each expected.
      const words = (raw.errors ?? []).flatMap((branch) =>
        branch[0] && branch[0].path.length === 0 ? [issueWords(branch[0])] : [],
      );
      return words.length > 0 ? [...new Set(words)].join(' or ') : 'a value of one of the accepted forms';
    }
    default:
      return 'a valid value';
  }
}

/**
 * The one zod-issue → typed-error converter: parses `value` with `schema`, or throws what `toError`
 * makes of the first issue (zod reports at least one), so no ZodError ever leaves the library. A
 * schema without a message of its own gets one here (zod's default text is never passed on).
 */
export function parseWith<T>(
  schema: SafeParser<T>,
  value: unknown,
  toError: (issue: SchemaIssue) => Error,
  base: readonly JsonPathSegment[] = [],
): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const raw: RawIssue = r.error.issues[0] ?? { path: [], message: 'a valid value', code: 'custom' };
  const inside = raw.path.map((p) => (typeof p === 'number' ? p : String(p)));
  throw toError({ path: [...base, ...inside], inside, message: issueWords(raw), code: raw.code });
}

/**
 * Whether `e` is one of the library's typed errors, as the full union of codes: `instanceof` on the
 * generic class narrows to `KubeletHashError<any>`, which the linter rightly refuses to pass on.
 */
export function isKubeletHashError(e: unknown): e is KubeletHashError {
  return e instanceof KubeletHashError;
}
