/**
 * Errors as plain data: every error the library throws is a {@link KubeletHashError} with a
 * stable string `code`, the JSON `path` it concerns (`[]` for the document root) and what was
 * `expected` there, so callers can branch on `code` and print `path` without parsing messages.
 */

/** A step in a JSON path: an object key or an array index. */
export type JsonPathSegment = string | number;

/** Every error code the library uses. */
export type ErrorCode =
  | 'INVALID_TYPE'
  | 'INT_OUT_OF_RANGE'
  | 'NOT_AN_INTEGER'
  | 'INVALID_QUANTITY'
  | 'INVALID_JSON'
  | 'DUPLICATE_CONTAINER_NAME'
  | 'UNSAFE_INTEGER'
  | 'TOO_DEEP'
  | 'UNSUPPORTED_RELEASE'
  | 'INVALID_VERSION'
  | 'INVALID_HASH'
  | 'INVALID_OPTION'
  | 'NOT_AVAILABLE'
  | 'HASH_MISMATCH'
  | 'INVALID_RECORD';

/** Renders a path the way jq would address it: `.env[0].valueFrom`. */
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

/** Base class of every error thrown by kubelet-hash. */
export class KubeletHashError extends Error {
  /** Stable machine-readable reason (`INVALID_QUANTITY`, `UNSUPPORTED_RELEASE`…); branch on this, not on `message`. */
  readonly code: ErrorCode;
  /** JSON path of the offending value in the input (`[]` for the whole input); frozen. */
  readonly path: readonly JsonPathSegment[];
  /** What a valid value at `path` would have been, in words (the text after "expected" in `message`). */
  readonly expected: string;
  /** What was found instead, or why, when known. */
  readonly detail: string | undefined;

  constructor(code: ErrorCode, path: readonly JsonPathSegment[], expected: string, detail?: string) {
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
      code: ErrorCode,
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
    code: ErrorCode;
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

/** The container (or another input document) does not fit the Go type it is decoded into. */
export class DecodeError extends KubeletHashError {}

/** A text is not a valid `resource.Quantity` (apimachinery's ParseQuantity refused it). */
export class QuantityError extends KubeletHashError {}

/**
 * A kubelet version string is malformed, names a release this library does not model, or names
 * one without the feature asked for (`NOT_AVAILABLE`: e.g. hashWithoutResources outside 1.27–1.30).
 */
export class ReleaseError extends KubeletHashError {}

/** A stored hash text is not what the kubelet writes (`strconv.FormatUint(h, 16)`). */
export class HashFormatError extends KubeletHashError {}

/** An option passed to a public function is invalid. */
export class OptionError extends KubeletHashError {}

/** An observed hash does not match the one computed for the claimed source release. */
export class HashMismatchError extends KubeletHashError {}

/** A runtime record (docker inspect, config.v2.json, crictl inspect) is malformed. */
export class RecordError extends KubeletHashError {}
