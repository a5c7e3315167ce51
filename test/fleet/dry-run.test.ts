/**
 * `predict --kubeconfig` against a stand-in apiserver over TLS (a CA and a certificate for
 * 127.0.0.1 made with openssl): the edit goes out as a dry-run JSON merge patch to the request
 * that carries it (the Pod, its resize or ephemeralcontainers subresource, a workload), with the
 * kubeconfig's credentials; the apiserver's refusal is the verdict, and a disagreement with the
 * model is reported and exits 2. The real apiservers judge the same in
 * test/real/apiserver-dry-run.integration.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePatch } from '../../src/fleet/dry-run.js';
import { JsonNumber } from '../../src/json/number.js';
import { cli } from '../support/cli.js';
import { makeCa } from '../support/tls-ca.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-dry-run-'));
const pki = join(dir, 'pki');
let server: Server;
let url = '';
interface Seen {
  method: string;
  path: string;
  contentType: string | undefined;
  auth: string | undefined;
  body: unknown;
  clientCert: boolean;
}
const seen: Seen[] = [];
/** The answer to the next PATCH: a status and a body. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };
/** What /api/v1 serves for pods (1.33+: resize and ephemeralcontainers as Pods). */
let podResources = [
  { name: 'pods', kind: 'Pod', namespaced: true },
  { name: 'pods/resize', kind: 'Pod', namespaced: true },
  { name: 'pods/ephemeralcontainers', kind: 'Pod', namespaced: true },
];

beforeAll(async () => {
  makeCa(pki, 'cluster-ca');
  server = createServer(
    {
      key: readFileSync(join(pki, 'server.key')),
      cert: readFileSync(join(pki, 'server.crt')),
      ca: readFileSync(join(pki, 'ca.crt')),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString('utf8')));
      req.on('end', () => {
        const path = req.url ?? '';
        seen.push({
          method: req.method ?? '',
          path,
          contentType: req.headers['content-type'],
          auth: req.headers.authorization,
          body: text ? JSON.parse(text) : undefined,
          clientCert: (req.socket as { authorized?: boolean }).authorized === true,
        });
        const send = (status: number, body: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (path === '/version') send(200, { gitVersion: 'v1.33.7' });
        else if (path === '/api/v1') send(200, { kind: 'APIResourceList', resources: podResources });
        else if (path === '/apis/apps/v1')
          send(200, {
            kind: 'APIResourceList',
            resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true }],
          });
        else send(answer.status, answer.body);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A kubeconfig for the stand-in: the CA by path (relative to the file), and `user`. */
function kubeconfig(name: string, user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  const file = join(pki, `${name}.kubeconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: test',
      'contexts:',
      '- name: test',
      '  context: {cluster: c, user: u, namespace: shop}',
      'clusters:',
      `- name: c`,
      `  cluster: ${JSON.stringify({ server: url, 'certificate-authority': 'ca.crt', ...cluster })}`,
      'users:',
      `- name: u`,
      `  user: ${JSON.stringify(user)}`,
      '',
    ].join('\n'),
  );
  return file;
}

const pod = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', resourceVersion: '7', labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1', ...container }], ...spec },
  status: { phase: 'Running' },
});
const res = (cpu: string) => ({ resources: { requests: { cpu }, limits: { cpu: '2' } } });

async function predict(oldDoc: unknown, newDoc: unknown, extra: string[] = []) {
  const o = join(dir, 'old.json');
  const n = join(dir, 'new.json');
  writeFileSync(o, JSON.stringify(oldDoc));
  writeFileSync(n, JSON.stringify(newDoc));
  seen.length = 0;
  const r = await cli(['predict', '-k', '1.33', '--json', ...extra, o, n]);
  const out = r.out
    ? (JSON.parse(r.out) as { rows: Record<string, unknown>[]; summary: Record<string, unknown> })
    : undefined;
  return { ...r, out };
}

describe('mergePatch', () => {
  it('is RFC 7386 from OLD to NEW: members removed are null, lists replaced whole, numbers kept as written', () => {
    const big = new JsonNumber('9007199254740993');
    expect(
      mergePatch(
        { a: 1, b: { c: 2, d: 3 }, l: [1, 2], n: null, same: { x: 1 } },
        { a: 1, b: { c: 2, e: 4 }, l: [1], n: null, same: { x: 1 }, big },
      ),
    ).toEqual({ b: { d: null, e: 4 }, l: [1], big });
    expect(mergePatch({ a: [1] }, { a: [1] })).toBeUndefined();
  });
});

describe('predict --kubeconfig', () => {
  const token = () => kubeconfig('token', { token: 'the-token' });

  it('a refused Pod edit: sent as a dry-run merge patch with the token; the apiserver refusal is the row, and the model agrees', async () => {
    answer = {
      status: 422,
      body: {
        kind: 'Status',
        reason: 'Invalid',
        message: 'Pod "web-0" is invalid: spec: Forbidden: pod updates may not change fields',
        details: { causes: [{ field: 'spec', reason: 'FieldValueForbidden', message: 'Forbidden: pod updates …' }] },
      },
    };
    const r = await predict(pod({}), pod({ env: [{ name: 'A', value: '1' }] }), ['--kubeconfig', token()]);
    expect(r.err).toBe('');
    expect(r.code).toBe(2);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /version',
      'GET /api/v1',
      'PATCH /api/v1/namespaces/shop/pods/web-0?dryRun=All',
    ]);
    const patch = seen[2]!;
    expect(patch.contentType).toBe('application/merge-patch+json');
    expect(patch.auth).toBe('Bearer the-token');
    // Only the change: no status, no resourceVersion.
    expect(patch.body).toEqual({
      spec: { containers: [{ name: 'web', image: 'nginx:1', env: [{ name: 'A', value: '1' }] }] },
    });
    const row = r.out!.rows[0]!;
    expect(row).toMatchObject({
      verdict: 'refused',
      decidedBy: 'apiserver',
      source: 'dry-run',
      reportedField: 'spec',
      disagreement: null,
      apiserver: { request: 'update', status: 422, admitted: false, reason: 'Invalid', causes: [{ field: 'spec' }] },
    });
    expect(String(row.reason)).toContain('pod updates may not change fields');
    expect(r.out!.summary).toMatchObject({ apiserver: 'v1.33.7', disagreements: 0, refused: 1 });
  });

  it('a resize goes to pods/resize, ephemeral containers to pods/ephemeralcontainers, a workload to its resource', async () => {
    answer = { status: 200, body: {} };
    let r = await predict(pod(res('500m')), pod(res('1')), ['--kubeconfig', token()]);
    expect(seen.at(-1)!.path).toBe('/api/v1/namespaces/shop/pods/web-0/resize?dryRun=All');
    expect(r.out!.rows[0]).toMatchObject({
      source: 'model',
      apiserver: { request: 'resize', admitted: true },
      disagreement: null,
    });
    expect(r.code).toBe(0);
    await predict(pod({}), pod({}, { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }), [
      '--kubeconfig',
      token(),
    ]);
    expect(seen.at(-1)!.path).toBe('/api/v1/namespaces/shop/pods/web-0/ephemeralcontainers?dryRun=All');
    expect(seen.at(-1)!.body).toEqual({ spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] } });
    // Without the subresources (an older server), the Pod itself.
    podResources = [{ name: 'pods', kind: 'Pod', namespaced: true }];
    try {
      await predict(pod(res('500m')), pod(res('1')), ['--kubeconfig', token()]);
      expect(seen.at(-1)!.path).toBe('/api/v1/namespaces/shop/pods/web-0?dryRun=All');
    } finally {
      podResources = [
        { name: 'pods', kind: 'Pod', namespaced: true },
        { name: 'pods/resize', kind: 'Pod', namespaced: true },
        { name: 'pods/ephemeralcontainers', kind: 'Pod', namespaced: true },
      ];
    }
    const deployment = (image: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'prod' },
      spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
    });
    r = await predict(deployment('nginx:1'), deployment('nginx:2'), ['--kubeconfig', token()]);
    expect(seen.at(-1)!.path).toBe('/apis/apps/v1/namespaces/prod/deployments/web?dryRun=All');
    expect(r.out!.rows[0]).toMatchObject({ verdict: 'replaced', apiserver: { admitted: true }, disagreement: null });
    expect(r.code).toBe(1);
  });

  it('a disagreement is reported as such and exits 2: the apiserver refuses what the model admits, and the reverse', async () => {
    answer = {
      status: 422,
      body: {
        kind: 'Status',
        reason: 'Invalid',
        message: 'no',
        details: { causes: [{ field: 'spec.containers[0].image' }] },
      },
    };
    let r = await predict(pod({}), pod({ image: 'nginx:2' }), ['--kubeconfig', token()]);
    expect(r.code).toBe(2);
    expect(r.out!.rows[0]).toMatchObject({
      verdict: 'refused',
      source: 'dry-run',
      reportedField: 'spec.containers[0].image',
    });
    expect(String(r.out!.rows[0]!.disagreement)).toMatch(
      /^the apiserver refuses it at "spec.containers\[0\].image" \(no\); the model predicts in-place/,
    );
    expect(r.out!.summary).toMatchObject({ disagreements: 1 });
    answer = { status: 200, body: {} };
    r = await predict(pod({}), pod({ env: [{ name: 'A', value: '1' }] }), ['--kubeconfig', token()]);
    expect(r.code).toBe(2);
    expect(r.out!.rows[0]).toMatchObject({ verdict: 'unpredictable', decidedBy: 'apiserver', source: 'dry-run' });
    expect(String(r.out!.rows[0]!.disagreement)).toMatch(/^the apiserver admits it; the model refuses it at "spec"/);
    // Both refuse, at different fields.
    answer = {
      status: 422,
      body: { kind: 'Status', reason: 'Invalid', message: 'no', details: { causes: [{ field: 'metadata' }] } },
    };
    r = await predict(pod({}), pod({ env: [{ name: 'A', value: '1' }] }), ['--kubeconfig', token()]);
    expect(r.out!.rows[0]!.disagreement).toBe('both refuse it, the apiserver at "metadata", the model at "spec"');
    // The text names it too.
    const o = join(dir, 'old.json');
    const n = join(dir, 'new.json');
    const text = await cli(['predict', '-k', '1.33', '--kubeconfig', token(), o, n]);
    expect(text.out).toContain('# DISAGREEMENT Pod/web-0: both refuse it');
    expect(text.out).toContain('# apiserver v1.33.7 (dry run): 1 of 1 objects judged otherwise than the model');
  });

  it('client certificates from the kubeconfig, inline or by path; a token file', async () => {
    answer = { status: 200, body: {} };
    const cert = readFileSync(join(pki, 'server.crt')).toString('base64');
    const key = readFileSync(join(pki, 'server.key')).toString('base64');
    await predict(pod({}), pod({ image: 'nginx:2' }), [
      '--kubeconfig',
      kubeconfig('inline', { 'client-certificate-data': cert, 'client-key-data': key }),
    ]);
    expect(seen.every((s) => s.clientCert && s.auth === undefined)).toBe(true);
    await predict(pod({}), pod({ image: 'nginx:2' }), [
      '--kubeconfig',
      kubeconfig('paths', { 'client-certificate': 'server.crt', 'client-key': join(pki, 'server.key') }),
    ]);
    expect(seen.every((s) => s.clientCert)).toBe(true);
    writeFileSync(join(pki, 'token-file'), 'from-a-file\n');
    await predict(pod({}), pod({ image: 'nginx:2' }), [
      '--kubeconfig',
      kubeconfig('tokenfile', { tokenFile: 'token-file' }),
    ]);
    expect(seen.every((s) => s.auth === 'Bearer from-a-file')).toBe(true);
  });

  it('bad kubeconfigs and answers that are no verdict are typed errors naming the file, the path and the value', async () => {
    const codeOf = async (args: string[]) => {
      const r = await predict(pod({}), pod({ image: 'nginx:2' }), args);
      expect(r.code).toBe(2);
      return JSON.parse(r.err) as { error: { code: string; message: string } };
    };
    const exec = await codeOf(['--kubeconfig', kubeconfig('exec', { exec: { command: 'aws' } })]);
    expect(exec.error.code).toBe('INVALID_KUBECONFIG');
    expect(exec.error.message).toContain('.users[0].user.exec');
    expect(exec.error.message).toContain('no credential plugin is run');
    const plain = await codeOf(['--kubeconfig', kubeconfig('http', { token: 't' }, { server: 'http://127.0.0.1:1' })]);
    expect(plain.error.message).toMatch(/clusters\[0\]\.cluster\.server.*TLS only.*http:\/\/127\.0\.0\.1:1/);
    const half = await codeOf(['--kubeconfig', kubeconfig('half', { 'client-certificate': 'server.crt' })]);
    expect(half.error.message).toContain('a client certificate and its key, both');
    const context = await codeOf(['--kubeconfig', token(), '--context', 'prod']);
    expect(context.error.message).toContain('an entry named "prod" (it has "test")');
    const missing = await codeOf(['--kubeconfig', join(dir, 'nowhere')]);
    expect(missing.error.code).toBe('INVALID_KUBECONFIG');
    const wrongCa = join(dir, 'other');
    makeCa(wrongCa, 'another-ca');
    const untrusted = await codeOf([
      '--kubeconfig',
      kubeconfig('other', { token: 't' }, { 'certificate-authority': join(wrongCa, 'ca.crt') }),
    ]);
    expect(untrusted.error.code).toBe('APISERVER_ERROR');
    expect(untrusted.error.message).toContain('an apiserver answering over TLS signed by the given CA');
    answer = {
      status: 403,
      body: { kind: 'Status', message: 'pods "web-0" is forbidden: User "u" cannot patch resource "pods"' },
    };
    const rbac = await codeOf(['--kubeconfig', token()]);
    expect(rbac.error.code).toBe('APISERVER_ERROR');
    expect(rbac.error.message).toContain('HTTP 403: pods "web-0" is forbidden: User "u" cannot patch');
    // A 403 from an admission plugin is a refusal of the edit.
    answer = {
      status: 403,
      body: { kind: 'Status', reason: 'Forbidden', message: 'pods "web-0" is forbidden: node "n" not found' },
    };
    const admission = await predict(pod({}), pod({ image: 'nginx:2' }), ['--kubeconfig', token()]);
    expect(admission.out!.rows[0]).toMatchObject({ verdict: 'refused', apiserver: { status: 403, admitted: false } });
    const usage = await cli(['predict', '-k', '1.33', '--context', 'x', join(dir, 'old.json'), join(dir, 'new.json')]);
    expect(usage.err).toContain('--context needs --kubeconfig FILE');
  });
});
