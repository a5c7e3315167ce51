/**
 * The credentials of a kubeconfig file (YAML or JSON), as a kubelet's `--kubeconfig` holds them: the
 * current context's server and CA, and its user's client certificate and key (inline `-data` or
 * files, relative paths from the file's directory) or bearer token (`token`, `tokenFile`). What
 * the guard needs to act as the node itself. Exec plugins, auth providers and skipping TLS
 * verification are refused: the guard runs unattended and must reach the real apiserver.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { OptionError } from '../errors.js';
import { yamlNow } from '../on-demand.js';
import type { ApiCredentials } from './api-request.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entry of `list` (kubeconfig's `clusters`, `users`, `contexts`) named `name`, its inner object. */
function named(file: string, doc: Obj, list: string, inner: string, name: string): Obj {
  const items = doc[list];
  const found = Array.isArray(items) ? items.find((i) => isObj(i) && i['name'] === name) : undefined;
  if (!isObj(found) || !isObj(found[inner]))
    throw new OptionError('INVALID_OPTION', [file, list], `an entry named ${JSON.stringify(name)}`, 'none');
  return found[inner];
}

/** Credentials from the kubeconfig at `file` (the current context, or `context`). */
export function kubeconfigAccess(file: string, context?: string): ApiCredentials {
  let doc: unknown;
  try {
    doc = yamlNow().parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new OptionError('INVALID_OPTION', [file], 'a readable kubeconfig (YAML or JSON)', (e as Error).message);
  }
  if (!isObj(doc)) throw new OptionError('INVALID_OPTION', [file], 'a kubeconfig (a mapping)', 'not a mapping');
  const current = context ?? doc['current-context'];
  if (typeof current !== 'string' || current === '')
    throw new OptionError('INVALID_OPTION', [file, 'current-context'], 'a context name', 'none');
  const ctx = named(file, doc, 'contexts', 'context', current);
  const cluster = named(file, doc, 'clusters', 'cluster', String(ctx['cluster']));
  const user = named(file, doc, 'users', 'user', String(ctx['user']));
  const base = dirname(file);
  /** Inline base64 `KEY-data`, else the file `KEY`; undefined when neither is set. */
  const bytes = (from: Obj, key: string, path: string): Buffer | undefined => {
    const data = from[`${key}-data`];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
    const ref = from[key];
    if (typeof ref !== 'string' || ref === '') return undefined;
    const full = isAbsolute(ref) ? ref : join(base, ref);
    try {
      return readFileSync(full);
    } catch (e) {
      throw new OptionError('INVALID_OPTION', [file, path, key], 'a readable file', `${full}: ${(e as Error).message}`);
    }
  };
  const server = cluster['server'];
  if (typeof server !== 'string' || !/^https:\/\/[^/]+\/?$/.test(server))
    throw new OptionError(
      'INVALID_OPTION',
      [file, 'clusters', 'server'],
      'https://HOST[:PORT] (TLS only: the credentials are the node’s)',
      String(server),
    );
  if (cluster['insecure-skip-tls-verify'] === true)
    throw new OptionError(
      'INVALID_OPTION',
      [file, 'clusters', 'insecure-skip-tls-verify'],
      'the apiserver verified against a CA',
      'true',
    );
  const ca = bytes(cluster, 'certificate-authority', 'clusters');
  if (ca === undefined)
    throw new OptionError('INVALID_OPTION', [file, 'clusters', 'certificate-authority'], 'the cluster CA', 'none');
  for (const refused of ['exec', 'auth-provider'])
    if (user[refused] !== undefined)
      throw new OptionError('INVALID_OPTION', [file, 'users', refused], 'a client certificate or a token', refused);
  const out: ApiCredentials = { server: server.replace(/\/$/, ''), ca };
  const cert = bytes(user, 'client-certificate', 'users');
  const key = bytes(user, 'client-key', 'users');
  if (cert !== undefined) {
    out.cert = cert;
    // The kubelet's rotated kubelet-client-current.pem holds certificate and key in one file.
    out.key = key ?? cert;
  }
  let token = typeof user['token'] === 'string' ? user['token'] : undefined;
  const tokenFile = user['tokenFile'];
  if (token === undefined && typeof tokenFile === 'string')
    token = bytes({ tokenFile }, 'tokenFile', 'users')?.toString('utf8').trim();
  if (token !== undefined && token !== '') out.token = token;
  if (out.cert === undefined && out.token === undefined)
    throw new OptionError('INVALID_OPTION', [file, 'users'], 'a client certificate or a token', 'neither');
  return out;
}
