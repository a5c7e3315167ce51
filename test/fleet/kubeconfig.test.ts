/**
 * A kubelet's kubeconfig read as the guard reads it, and a request made with it to a local TLS
 * server (certificates made here with openssl): the server checked against the kubeconfig's CA, the
 * client certificate presented, the token sent, the guard's user agent on the wire.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from '../../src/fleet/api-client.js';
import { readKubeconfig } from '../../src/fleet/kubeconfig.js';
import { makeCa, signClient } from '../support/tls-ca.js';

const kubeconfigAccess = (file: string) => readKubeconfig(file).access;

let dir: string;
let server: Server;
let url: string;
const seen: { agent?: string; auth?: string; cn?: string; body?: string }[] = [];

const pem = (name: string): Buffer => readFileSync(join(dir, name));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kh-kubeconfig-'));
  makeCa(dir, 'test-ca');
  signClient(dir, 'client', '/O=system:nodes/CN=system:node:node-a');
  // The kubelet's rotated client credential: certificate and key in one file.
  writeFileSync(join(dir, 'kubelet-client-current.pem'), Buffer.concat([pem('client.crt'), pem('client.key')]));
  server = createServer(
    {
      key: pem('server.key'),
      cert: pem('server.crt'),
      ca: pem('ca.crt'),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        const tls = req.socket instanceof TLSSocket ? req.socket : undefined;
        seen.push({
          agent: req.headers['user-agent'] ?? '',
          auth: req.headers.authorization ?? 'none',
          cn: tls?.authorized ? String(tls.getPeerCertificate().subject.CN) : 'unverified',
          body,
        });
        res.writeHead(req.method === 'PUT' ? 409 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', message: `${req.method ?? ''} ${req.url ?? ''}` }));
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const kubeconfig = (user: string, cluster = `certificate-authority: ca.crt\n    server: ${url}`): string => {
  const file = join(dir, `kubeconfig-${String(seen.length)}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    ${cluster}\nusers:\n- name: u\n  user:\n${user}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`,
  );
  return file;
};

describe('readKubeconfig + apiRequest', () => {
  it("a kubelet's kubeconfig (certificate and key in one file, relative to the kubeconfig): the node's certificate is presented, the user agent sent", async () => {
    const access = kubeconfigAccess(
      kubeconfig('    client-certificate: kubelet-client-current.pem\n    client-key: kubelet-client-current.pem'),
    );
    const answer = await apiRequest({ ...access, userAgent: 'kubelet-hash-hold/9.9.9' }, 'GET', '/api/v1/nodes/node-a');
    expect(answer).toMatchObject({ status: 200, body: { message: 'GET /api/v1/nodes/node-a' } });
    expect(seen.at(-1)).toMatchObject({ agent: 'kubelet-hash-hold/9.9.9', auth: 'none', cn: 'system:node:node-a' });
  });

  it('inline -data and a token; a PUT sends its JSON body and hands back a 409 as an answer', async () => {
    const b64 = (f: string): string => pem(f).toString('base64');
    const access = kubeconfigAccess(
      kubeconfig(`    token: abc123`, `certificate-authority-data: ${b64('ca.crt')}\n    server: ${url}`),
    );
    const answer = await apiRequest(access, 'PUT', '/x', {
      text: JSON.stringify({ spec: { renewTime: 't' } }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(409);
    expect(seen.at(-1)).toMatchObject({ auth: 'Bearer abc123', body: '{"spec":{"renewTime":"t"}}' });
  });

  it('refuses a server it cannot verify (another CA), and kubeconfigs it will not use', async () => {
    makeCa(join(dir, 'other'), 'other');
    const other = kubeconfigAccess(
      kubeconfig('    token: t', `certificate-authority: other/ca.crt\n    server: ${url}`),
    );
    await expect(apiRequest(other, 'GET', '/')).rejects.toThrow(/signed by the given CA/);
    // insecure-skip-tls-verify is read as kubectl reads it; `hold` refuses it (it sends the node's credentials).
    expect(
      kubeconfigAccess(
        kubeconfig(
          '    token: t',
          `insecure-skip-tls-verify: true\n    certificate-authority: ca.crt\n    server: ${url}`,
        ),
      ).insecure,
    ).toBe(true);
    expect(() =>
      kubeconfigAccess(kubeconfig('    token: t', `certificate-authority: ca.crt\n    server: http://127.0.0.1:1`)),
    ).toThrow(/https/);
    expect(() => kubeconfigAccess(kubeconfig('    exec: {command: x}'))).toThrow(
      /users\[0\]\.user\.exec: .*no credential plugin is run/,
    );
  });
});
