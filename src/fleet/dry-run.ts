/**
 * Asks a real apiserver what it does with an edit, without storing it: a server-side dry run
 * (`?dryRun=All`) of the change from OLD to NEW, sent as a JSON merge patch (RFC 7386) of the
 * object, so what the cluster stores and OLD leaves out is kept as it is. A Pod edit goes to the
 * request that carries it on that server: the `resize` subresource for a change of container
 * resources only, `ephemeralcontainers` for added ephemeral containers only (where the server
 * serves them as Pods, 1.22+), else the Pod itself. 2xx is admitted; 400 and 422 are refusals with the apiserver's message and field
 * causes, and so is a 403 from an admission plugin; anything else (an RBAC 403 included) is no
 * verdict (APISERVER_ERROR).
 */
import { OptionError } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { deepEqual } from '../go/value-diff.js';
import { apiRequest, jsonText, statusMessage, type ApiAccess, type ApiAnswer } from './api-client.js';

/** One of the apiserver's field causes, as its Status prints it. */
interface DryRunCause {
  /** The field path as the apiserver prints it (`spec.containers[0].image`; `''` when it names none). */
  field: string;
  /** `FieldValueInvalid`, `FieldValueForbidden`, … */
  reason: string;
  message: string;
}

/** The apiserver's answer to a dry-run edit. */
export interface DryRunAnswer {
  /** The request that carried it: the object itself, or the Pod's resize or ephemeralcontainers subresource. */
  request: 'update' | 'resize' | 'ephemeralcontainers';
  /** `PATCH /api/v1/namespaces/ns/pods/web/resize` (without the query). */
  sent: string;
  /** The HTTP status. */
  status: number;
  admitted: boolean;
  /** The Status `reason` of a refusal (`Invalid`, `BadRequest`); `''` when admitted. */
  reason: string;
  /** The Status `message` of a refusal; `''` when admitted. */
  message: string;
  causes: DryRunCause[];
}

/** What the apiserver serves: its version and, per API group version, its resources by kind. */
export class ApiServer {
  private readonly resources = new Map<
    string,
    Promise<Map<string, { name: string; kind: string; namespaced: boolean }>>
  >();

  private constructor(
    readonly access: ApiAccess,
    /** `v1.37.2` as `/version` gives it. */
    readonly version: string,
  ) {}

  /** Reads `/version` (the one request that shows the credentials work before any edit is sent). */
  static async connect(access: ApiAccess): Promise<ApiServer> {
    const answer = await apiRequest(access, 'GET', '/version');
    const v = (answer.body as { gitVersion?: unknown } | undefined)?.gitVersion;
    if (answer.status !== 200 || typeof v !== 'string') throw noVerdict(access, '/version', answer, 'its version');
    return new ApiServer(access, v);
  }

  /** The resources (and subresources, by `pods/resize` names) of `apiVersion`, by discovery. */
  private served(apiVersion: string) {
    let found = this.resources.get(apiVersion);
    if (!found) {
      const path = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
      found = apiRequest(this.access, 'GET', path).then((answer) => {
        const list = (answer.body as { resources?: unknown } | undefined)?.resources;
        if (answer.status !== 200 || !Array.isArray(list))
          throw noVerdict(this.access, path, answer, `the resources of ${apiVersion}`);
        const out = new Map<string, { name: string; kind: string; namespaced: boolean }>();
        for (const r of list as { name?: unknown; kind?: unknown; namespaced?: unknown }[])
          if (typeof r.name === 'string' && typeof r.kind === 'string')
            out.set(r.name, { name: r.name, kind: r.kind, namespaced: r.namespaced === true });
        return out;
      });
      this.resources.set(apiVersion, found);
    }
    return found;
  }

  /**
   * Sends the edit of `oldObject` into `newObject` as a dry run and returns the apiserver's answer.
   * `namespace` is used when NEW names none (the kubeconfig context's, else `default`).
   */
  async dryRun(oldObject: unknown, newObject: unknown, namespace = 'default'): Promise<DryRunAnswer> {
    const o = obj(oldObject);
    const n = obj(newObject);
    const apiVersion = n['apiVersion'];
    const kind = n['kind'];
    const meta = obj(n['metadata']);
    const name = meta['name'];
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string' || name === '') {
      throw new OptionError(
        'INVALID_OPTION',
        ['metadata', 'name'],
        'an object with apiVersion, kind and metadata.name to send to the apiserver',
        `found ${describe(apiVersion)} ${describe(kind)} ${describe(name)}`,
      );
    }
    const resources = await this.served(apiVersion);
    const resource = [...resources.values()].find((r) => r.kind === kind && !r.name.includes('/'));
    if (!resource) {
      throw new OptionError(
        'APISERVER_ERROR',
        [this.access.server, apiVersion],
        `a resource of kind ${kind} served in ${apiVersion}`,
        `the apiserver (${this.version}) serves none`,
      );
    }
    const ns = typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? meta['namespace'] : namespace;
    const base = `${apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`}${resource.namespaced ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${resource.name}/${encodeURIComponent(name)}`;
    const request = kind === 'Pod' && apiVersion === 'v1' ? podRequest(o, n, resources) : 'update';
    const sent = request === 'update' ? base : `${base}/${request}`;
    const patch = mergePatch(sendable(o), sendable(n)) ?? {};
    const answer = await apiRequest(this.access, 'PATCH', `${sent}?dryRun=All`, {
      text: jsonText(patch),
      contentType: 'application/merge-patch+json',
    });
    if (answer.status >= 200 && answer.status < 300) {
      return {
        request,
        sent: `PATCH ${sent}`,
        status: answer.status,
        admitted: true,
        reason: '',
        message: '',
        causes: [],
      };
    }
    // 403 is an admission plugin's refusal (PodResizeValidator: the node), unless RBAC denies the request itself.
    const rbac = answer.status === 403 && / is forbidden: User ".*" cannot /.test(statusMessage(answer));
    if ((answer.status !== 400 && answer.status !== 403 && answer.status !== 422) || rbac)
      throw noVerdict(
        this.access,
        sent,
        answer,
        'a verdict on the edit (HTTP 2xx, or 400, 403 or 422 from validation or admission)',
      );
    const status = obj(answer.body);
    const causes = Array.isArray(obj(status['details'])['causes'])
      ? (obj(status['details'])['causes'] as unknown[])
      : [];
    return {
      request,
      sent: `PATCH ${sent}`,
      status: answer.status,
      admitted: false,
      reason: typeof status['reason'] === 'string' ? status['reason'] : '',
      message: statusMessage(answer),
      causes: causes.map((c) => ({
        field: typeof obj(c)['field'] === 'string' ? (obj(c)['field'] as string) : '',
        reason: typeof obj(c)['reason'] === 'string' ? (obj(c)['reason'] as string) : '',
        message: typeof obj(c)['message'] === 'string' ? (obj(c)['message'] as string) : '',
      })),
    };
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function describe(v: unknown): string {
  return v === undefined ? 'missing' : JSON.stringify(v);
}

function noVerdict(access: ApiAccess, path: string, answer: ApiAnswer, expected: string): OptionError {
  return new OptionError(
    'APISERVER_ERROR',
    [access.server + path],
    expected,
    `HTTP ${answer.status}: ${statusMessage(answer)}`,
  );
}

/** The object as an edit sends it: no status, no fields the server keeps for itself. */
function sendable(o: Obj): Obj {
  const { status: _status, metadata, ...rest } = o;
  const serverKept = new Set(['resourceVersion', 'managedFields', 'generation', 'selfLink', 'creationTimestamp']);
  const m = Object.fromEntries(Object.entries(obj(metadata)).filter(([k]) => !serverKept.has(k)));
  return { ...rest, metadata: m };
}

/** The request a Pod edit needs on this server: a subresource when only its fields change and it is served. */
function podRequest(o: Obj, n: Obj, resources: Map<string, { kind: string }>): DryRunAnswer['request'] {
  const [a, b] = [sendable(o), sendable(n)];
  if (!deepEqual(a['metadata'], b['metadata'])) return 'update';
  const [sa, sb] = [obj(a['spec']), obj(b['spec'])];
  const changed = [...new Set([...Object.keys(sa), ...Object.keys(sb)])].filter(
    (k) => !deepEqual(sa[k] ?? null, sb[k] ?? null),
  );
  if (
    changed.length === 1 &&
    changed[0] === 'ephemeralContainers' &&
    resources.get('pods/ephemeralcontainers')?.kind === 'Pod'
  )
    return 'ephemeralcontainers';
  const withoutResources = (list: unknown) =>
    arr(list).map((c) => Object.fromEntries(Object.entries(obj(c)).filter(([k]) => k !== 'resources')));
  const onlyResources =
    changed.length > 0 &&
    changed.every(
      (k) =>
        (k === 'containers' || k === 'initContainers') &&
        arr(sa[k]).length === arr(sb[k]).length &&
        deepEqual(withoutResources(sa[k]), withoutResources(sb[k])),
    );
  return onlyResources && resources.has('pods/resize') ? 'resize' : 'update';
}

/**
 * The JSON merge patch that turns `a` into `b` (RFC 7386): objects member by member, a member `b`
 * lacks (or holds null) set to null, any other change (lists included) to `b`'s value. Undefined
 * when there is nothing to change.
 */
export function mergePatch(a: unknown, b: unknown): unknown {
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: Obj = {};
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const [x, y] = [a[k], b[k]];
      const absentA = x === undefined || x === null;
      const absentB = y === undefined || y === null;
      if (absentA && absentB) continue;
      if (absentB) out[k] = null;
      else if (absentA) out[k] = y;
      else {
        const sub = mergePatch(x, y);
        if (sub !== undefined) out[k] = sub;
      }
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return deepEqual(a, b) ? undefined : b;
}
