/**
 * The pods on one node, listed by the agent itself from inside the cluster: what `kubectl get pods
 * --all-namespaces --field-selector spec.nodeName=NODE -o json` printed, without kubectl in the
 * image (one binary less to keep in support, and no shell). It speaks to the apiserver over HTTPS
 * with the pod's projected ServiceAccount token, trusting only the cluster's CA, and follows the
 * list's `continue` pages so a node with many pods is listed whole.
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { OptionError } from '../errors.js';
import { answerMessage, apiRequest } from './api-request.js';

/** Where and how to reach the apiserver: its URL, the bearer token and the CA that signed its certificate. */
export interface ApiAccess {
  server: string;
  token: string;
  ca: Buffer;
}

/** The in-cluster default directory of the token and ca.crt (the pod's projected volume is mounted there). */
export const IN_CLUSTER_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function readAccessFile(dir: string, name: string): Buffer {
  const path = join(dir, name);
  try {
    return readFileSync(path);
  } catch (e) {
    throw new OptionError(
      'INVALID_OPTION',
      [path],
      `the pod's ${name} (a projected ServiceAccount token volume mounted at ${dir})`,
      `cannot read it: ${(e as Error).message}`,
    );
  }
}

/**
 * The in-cluster access: the apiserver from `server`, else from KUBERNETES_SERVICE_HOST/PORT (set
 * in every pod), and the token and CA from `dir`.
 */
export function inClusterAccess(
  env: Record<string, string | undefined>,
  dir = IN_CLUSTER_DIR,
  server?: string,
): ApiAccess {
  let url = server;
  if (url === undefined) {
    const host = env['KUBERNETES_SERVICE_HOST'];
    const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
    if (host === undefined || host === '')
      throw new OptionError(
        'INVALID_OPTION',
        ['KUBERNETES_SERVICE_HOST'],
        'the apiserver address Kubernetes sets in every pod (or --server)',
        'unset: not running in a pod?',
      );
    url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }
  if (!/^https:\/\/[^/]+$/.test(url))
    throw new OptionError(
      'INVALID_OPTION',
      ['--server'],
      'https://HOST[:PORT] (TLS only: the token is a credential)',
      `got ${url}`,
    );
  const token = readAccessFile(dir, 'token').toString('utf8').trim();
  if (token === '')
    throw new OptionError('INVALID_OPTION', [join(dir, 'token')], 'a bearer token', 'the file is empty');
  return { server: url, token, ca: readAccessFile(dir, 'ca.crt') };
}

/** One GET of `path`, the body parsed as JSON; any status but 200 is refused with the apiserver's message. */
async function getJson(access: ApiAccess, path: string): Promise<unknown> {
  const url = new URL(path, access.server);
  const answer = await apiRequest(access, 'GET', path);
  if (answer.status !== 200)
    throw new OptionError(
      'INVALID_OPTION',
      [url.origin + url.pathname],
      'HTTP 200 with the pods (the ServiceAccount may get and list pods)',
      `HTTP ${answer.status}: ${answerMessage(answer)}`,
    );
  if (answer.body === undefined)
    throw new OptionError('INVALID_OPTION', [url.origin + url.pathname], 'a JSON PodList', 'the body is not JSON');
  return answer.body;
}

/** The node's pods as `kubectl get pods -o json` prints them: a v1 List whose items say their kind. */
export async function listNodePods(
  access: ApiAccess,
  node: string,
  pageSize = 500,
): Promise<{ apiVersion: 'v1'; kind: 'List'; items: Record<string, unknown>[] }> {
  const items: Record<string, unknown>[] = [];
  let next: string | undefined;
  do {
    const query = new URLSearchParams({ fieldSelector: `spec.nodeName=${node}`, limit: String(pageSize) });
    if (next !== undefined) query.set('continue', next);
    const page = (await getJson(access, `/api/v1/pods?${query.toString()}`)) as {
      kind?: unknown;
      items?: unknown;
      metadata?: { continue?: unknown };
    };
    if (page.kind !== 'PodList' || !Array.isArray(page.items))
      throw new OptionError('INVALID_OPTION', [access.server, 'kind'], 'a PodList', `got kind ${String(page.kind)}`);
    for (const item of page.items as Record<string, unknown>[]) items.push({ apiVersion: 'v1', kind: 'Pod', ...item });
    const c = page.metadata?.continue;
    next = typeof c === 'string' && c !== '' ? c : undefined;
  } while (next !== undefined);
  return { apiVersion: 'v1', kind: 'List', items };
}

/**
 * Writes `text` to a new file: created exclusively (an existing file or a symlink at `path` is
 * refused, never followed or overwritten), mode 0640 (the pod list can hold env values).
 */
export function writeNewFile(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o640);
  } catch (e) {
    throw new OptionError('INVALID_OPTION', [path], 'a path where no file is yet', (e as Error).message);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
