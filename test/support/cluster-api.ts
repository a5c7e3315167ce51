/**
 * Requests to a test cluster's apiserver that kubectl 1.20 cannot send: a subresource's patch (the
 * `resize` of 1.33+), its server dry run, and objects as the apiserver serves them (its own key order,
 * which kubectl's printer sorts away). curl inside the cluster's network namespace, with the admin's
 * token from a header file only root can read.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inNetns } from './child-process.js';
import type { Cluster } from './cluster.js';

/** The apiserver's status code and body. */
export interface ApiAnswer {
  code: number;
  body: string;
}

/** `method path` (e.g. `PATCH /api/v1/namespaces/x/pods/y/resize?dryRun=All`) with `body` of `contentType`. */
export function apiRequest(c: Cluster, method: string, path: string, body?: string, contentType?: string): ApiAnswer {
  const kubeconfig = JSON.parse(readFileSync(join(c.dir, 'admin.kubeconfig'), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { token: string } }[];
  };
  const headers = join(c.dir, 'api-headers');
  if (!existsSync(headers))
    writeFileSync(headers, `Authorization: Bearer ${kubeconfig.users[0]!.user.token}\n`, { mode: 0o600, flag: 'wx' });
  const [cmd, args] = inNetns(c.netns, 'curl', [
    '-sS',
    '--cacert',
    join(c.dir, 'ca.crt'),
    '-H',
    `@${headers}`,
    ...(contentType ? ['-H', `Content-Type: ${contentType}`] : []),
    '-X',
    method,
    ...(body === undefined ? [] : ['--data-binary', '@-']),
    '-w',
    '\n%{http_code}',
    `${kubeconfig.clusters[0]!.cluster.server}${path}`,
  ]);
  const r = spawnSync(cmd, args, { encoding: 'utf8', input: body ?? '', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`curl ${method} ${path} exited ${String(r.status)}: ${r.stderr}`);
  const lines = r.stdout.trimEnd().split('\n');
  const code = Number(lines.pop());
  return { code, body: lines.join('\n') };
}

/** GET that must answer 200, parsed (JSON.parse keeps the served key order). */
export function apiGet(c: Cluster, path: string): unknown {
  const a = apiRequest(c, 'GET', path);
  if (a.code !== 200) throw new Error(`GET ${path}: ${String(a.code)} ${a.body}`);
  return JSON.parse(a.body);
}
