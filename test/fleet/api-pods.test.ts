/**
 * `fleet pods`: the Job's init container lists its node's pods itself, over HTTPS with the projected
 * token, against a local TLS server standing in for the apiserver (a CA and a server certificate
 * made with openssl for 127.0.0.1). What it writes is what `plan --pods` reads.
 */
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inClusterAccess, listNodePods } from '../../src/fleet/index.js';
import { cli } from '../support/cli.js';
import { makeCa } from '../support/tls-ca.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-fleet-pods-'));
const access = join(dir, 'serviceaccount');
const other = join(dir, 'other-ca');
let server: Server;
let url = '';
/** Every request the stand-in apiserver got: its path and query, and the Authorization header. */
const seen: { path: string; auth: string | undefined }[] = [];
let failWith: { status: number; body: string } | undefined;

const podsOf = (node: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${node}-${i}` },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox:1.36' }] },
  }));

beforeAll(async () => {
  makeCa(access, 'cluster-ca');
  makeCa(other, 'another-ca');
  writeFileSync(join(access, 'token'), 'the-token\n');
  writeFileSync(join(other, 'token'), 'the-token\n');
  server = createServer(
    { key: readFileSync(join(access, 'server.key')), cert: readFileSync(join(access, 'server.crt')) },
    (req, res) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization });
      if (failWith) {
        res.writeHead(failWith.status, { 'content-type': 'application/json' });
        res.end(failWith.body);
        return;
      }
      const q = new URL(req.url ?? '/', 'https://x').searchParams;
      const node = /^spec\.nodeName=(.*)$/.exec(q.get('fieldSelector') ?? '')?.[1] ?? '';
      const all = podsOf(node, 5);
      const limit = Number(q.get('limit'));
      const from = Number(q.get('continue') ?? '0');
      const page = all.slice(from, from + limit);
      const next = from + limit < all.length ? String(from + limit) : undefined;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: next ? { continue: next } : {}, items: page }),
      );
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

describe('fleet pods', () => {
  it("lists the node's pods over TLS with the token, every page, as kubectl -o json printed them", async () => {
    seen.length = 0;
    const list = await listNodePods(inClusterAccess({}, access, url), 'node-a', 2);
    expect(list.kind).toBe('List');
    expect(list.items.map((p) => (p['metadata'] as { uid: string }).uid)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `uid-node-a-${i}`),
    );
    expect(list.items.every((p) => p['kind'] === 'Pod' && p['apiVersion'] === 'v1')).toBe(true);
    expect(seen.map((s) => s.path)).toEqual([
      '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=2',
      '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=2&continue=2',
      '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=2&continue=4',
    ]);
    expect(new Set(seen.map((s) => s.auth))).toEqual(new Set(['Bearer the-token']));
  });

  it('the CLI writes a new 0640 file that plan reads; the address comes from the pod environment', async () => {
    const out = join(dir, 'pods.json');
    const port = new URL(url).port;
    const r = await cli(['fleet', 'pods', '--node', 'node-b', '--out', out, '--api-access', access, '--server', url]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`5 pods of node node-b written to ${out}\n`);
    expect(lstatSync(out).mode & 0o777).toBe(0o640);
    const list = JSON.parse(readFileSync(out, 'utf8')) as { items: { spec: { nodeName: string } }[] };
    expect(list.items.map((p) => p.spec.nodeName)).toEqual(Array(5).fill('node-b'));
    // Never overwritten, never through a symlink.
    let again = await cli(['fleet', 'pods', '--node', 'node-b', '--out', out, '--api-access', access, '--server', url]);
    expect(again.code).toBe(2);
    expect(again.err).toContain(out);
    const link = join(dir, 'link.json');
    symlinkSync(join(dir, 'target.json'), link);
    again = await cli(['fleet', 'pods', '--node', 'node-b', '--out', link, '--api-access', access, '--server', url]);
    expect(again.code).toBe(2);
    expect(() => lstatSync(join(dir, 'target.json'))).toThrow();
    // KUBERNETES_SERVICE_HOST/PORT, as in a pod.
    expect(
      inClusterAccess({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }, access).server,
    ).toBe(url);
    expect(inClusterAccess({ KUBERNETES_SERVICE_HOST: 'fd00::1' }, access).server).toBe('https://[fd00::1]:443');
  });

  it('refuses: a server signed by another CA, plain http, no token, an HTTP error (named with its message)', async () => {
    await expect(listNodePods(inClusterAccess({}, other, url), 'node-a')).rejects.toThrow(
      /an apiserver answering over TLS signed by the cluster CA/,
    );
    expect(() => inClusterAccess({}, access, url.replace('https', 'http'))).toThrow(/TLS only/);
    expect(() => inClusterAccess({}, join(dir, 'nowhere'), url)).toThrow(/nowhere\/token/);
    expect(() => inClusterAccess({}, access)).toThrow(/KUBERNETES_SERVICE_HOST/);
    failWith = {
      status: 403,
      body: JSON.stringify({ kind: 'Status', message: 'pods is forbidden: User cannot list' }),
    };
    try {
      const r = await cli(['fleet', 'pods', '--node', 'n', '--out', '-', '--api-access', access, '--server', url]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('HTTP 403: pods is forbidden: User cannot list');
    } finally {
      failWith = undefined;
    }
    const r = await cli(['fleet', 'pods', '--out', '-', '--api-access', access, '--server', url]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('one --node NAME');
    expect((await cli(['fleet', 'pods', '--node', 'n', '--out', '-', '--expect', '2'])).err).toContain(
      'fleet pods takes no --expect',
    );
  });
});
