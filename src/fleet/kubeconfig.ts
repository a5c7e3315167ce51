/**
 * A kubeconfig file read as kubectl reads one (client-go's clientcmd): the current context (or
 * the one named), its cluster's server and CA, its user's token or client certificate, its
 * namespace. Paths inside the file are relative to the file's directory. Credentials that need a
 * program (`exec`, `auth-provider`) are refused rather than run: this tool runs nothing it is
 * handed. Every refusal names the file, the JSON path in it, what was expected and what was found.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { OptionError, type JsonPathSegment } from '../errors.js';
import { isPlainObject } from '../decode/input.js';
import { yamlNow } from '../on-demand.js';
import type { ApiAccess } from './api-client.js';

/** What a kubeconfig's context says: how to reach the apiserver and the namespace to default to. */
export interface KubeconfigContext {
  /** The context used (the current one unless another was named). */
  context: string;
  access: ApiAccess;
  /** The context's namespace, when it sets one. */
  namespace?: string;
}

type Obj = Record<string, unknown>;

/** Reads the kubeconfig at `file` (YAML or JSON) and resolves `context` (default: its current-context). */
export function readKubeconfig(file: string, context?: string): KubeconfigContext {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new OptionError('INVALID_KUBECONFIG', [file], 'a readable kubeconfig file', (e as Error).message);
  }
  return parseKubeconfig(text, file, context);
}

/** {@link readKubeconfig} on the file's text (`file` names it in errors and anchors relative paths). */
function parseKubeconfig(text: string, file: string, context?: string): KubeconfigContext {
  const refuse = (path: JsonPathSegment[], expected: string, found: string): never => {
    throw new OptionError('INVALID_KUBECONFIG', [file, ...path], expected, found);
  };
  let doc: unknown;
  try {
    doc = yamlNow().parse(text);
  } catch (e) {
    refuse([], 'a kubeconfig in YAML or JSON', (e as Error).message.split('\n')[0] ?? '');
  }
  if (!isPlainObject(doc)) refuse([], 'a kubeconfig (a mapping with clusters, users, contexts)', describe(doc));
  const config = doc as Obj;
  const name = context ?? config['current-context'];
  if (typeof name !== 'string' || name === '')
    refuse(['current-context'], 'the context to use (or --context NAME)', describe(name));
  const ctxEntry = named(config, 'contexts', name as string, refuse);
  const ctx = member(ctxEntry.value, 'context', [...ctxEntry.path, 'context'], refuse);
  const clusterName = ctx['cluster'];
  if (typeof clusterName !== 'string' || clusterName === '')
    refuse([...ctxEntry.path, 'context', 'cluster'], 'the name of a cluster', describe(clusterName));
  const clusterEntry = named(config, 'clusters', clusterName as string, refuse);
  const clusterPath = [...clusterEntry.path, 'cluster'];
  const cluster = member(clusterEntry.value, 'cluster', clusterPath, refuse);
  const server = cluster['server'];
  if (typeof server !== 'string' || !/^https:\/\/[^/?#]+\/?$/.test(server))
    refuse(
      [...clusterPath, 'server'],
      'https://HOST[:PORT] (TLS only: the credentials go with every request)',
      describe(server),
    );
  const base = dirname(file);
  const bytes = (path: JsonPathSegment[], owner: Obj, fileKey: string, dataKey: string): Buffer | undefined => {
    const data = owner[dataKey];
    if (data !== undefined && data !== null) {
      if (typeof data !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(data))
        refuse([...path, dataKey], 'base64 text', describe(data));
      return Buffer.from(data as string, 'base64');
    }
    const at = owner[fileKey];
    if (at === undefined || at === null || at === '') return undefined;
    if (typeof at !== 'string') return refuse([...path, fileKey], 'a file path', describe(at));
    const full = isAbsolute(at) ? at : join(base, at);
    try {
      return readFileSync(full);
    } catch (e) {
      return refuse([...path, fileKey], 'a readable file', `${full}: ${(e as Error).message}`);
    }
  };
  const access: ApiAccess = { server: (server as string).replace(/\/$/, '') };
  const ca = bytes(clusterPath, cluster, 'certificate-authority', 'certificate-authority-data');
  if (ca) access.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) access.insecure = true;
  const tlsName = cluster['tls-server-name'];
  if (typeof tlsName === 'string' && tlsName !== '') access.servername = tlsName;

  const userName = ctx['user'];
  if (typeof userName === 'string' && userName !== '') {
    const userEntry = named(config, 'users', userName, refuse);
    const userPath = [...userEntry.path, 'user'];
    const user = member(userEntry.value, 'user', userPath, refuse);
    for (const k of ['exec', 'auth-provider'])
      if (user[k] !== undefined && user[k] !== null)
        refuse([...userPath, k], 'a token or a client certificate (no credential plugin is run)', `${k} is set`);
    if (user['username'] !== undefined || user['password'] !== undefined)
      refuse([...userPath, 'username'], 'a token or a client certificate', 'basic authentication');
    const tokenFile = user['tokenFile'];
    let token = user['token'];
    if ((token === undefined || token === '') && typeof tokenFile === 'string' && tokenFile !== '') {
      const full = isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile);
      try {
        token = readFileSync(full, 'utf8').trim();
      } catch (e) {
        refuse([...userPath, 'tokenFile'], 'a readable file', `${full}: ${(e as Error).message}`);
      }
    }
    if (token !== undefined && token !== null && token !== '') {
      if (typeof token !== 'string') refuse([...userPath, 'token'], 'a bearer token', describe(token));
      access.token = token as string;
    }
    const cert = bytes(userPath, user, 'client-certificate', 'client-certificate-data');
    const key = bytes(userPath, user, 'client-key', 'client-key-data');
    if ((cert === undefined) !== (key === undefined))
      refuse(
        [...userPath, cert ? 'client-key' : 'client-certificate'],
        'a client certificate and its key, both',
        'only one is given',
      );
    if (cert && key) {
      access.cert = cert;
      access.key = key;
    }
  }
  const namespace = ctx['namespace'];
  return {
    context: name as string,
    access,
    ...(typeof namespace === 'string' && namespace !== '' ? { namespace } : {}),
  };
}

/** The entry of `list` (contexts, clusters, users) called `name`, with its JSON path. */
function named(
  config: Obj,
  list: string,
  name: string,
  refuse: (path: JsonPathSegment[], expected: string, found: string) => never,
): { value: Obj; path: JsonPathSegment[] } {
  const entries = config[list];
  if (!Array.isArray(entries)) return refuse([list], `a list of named ${list}`, describe(entries));
  const i = entries.findIndex((e) => isPlainObject(e) && e['name'] === name);
  if (i < 0) {
    const names = entries.map((e) => (isPlainObject(e) ? String(e['name']) : '?'));
    return refuse(
      [list],
      `an entry named ${JSON.stringify(name)}`,
      `it has ${names.map((n) => JSON.stringify(n)).join(', ') || 'none'}`,
    );
  }
  return { value: entries[i] as Obj, path: [list, i] };
}

function member(
  entry: Obj,
  key: string,
  path: JsonPathSegment[],
  refuse: (path: JsonPathSegment[], expected: string, found: string) => never,
): Obj {
  const v = entry[key];
  return isPlainObject(v) ? v : refuse(path, 'a mapping', describe(v));
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}
