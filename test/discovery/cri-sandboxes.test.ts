/**
 * The CRI client's ListPodSandbox (issue 37: the runtime's word on sandbox readiness counts): its
 * decoder against protobufjs's encoder, and the call beside ListContainers on an in-process gRPC
 * server on a unix socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeListPodSandboxResponse, listCriContainers } from '../../src/discovery/cri-client.js';

const PROTO = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'protos', 'cri-runtime.proto');
const def = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: Number, defaults: true });
const service = def['runtime.v1.RuntimeService'] as grpc.ServiceDefinition;

const dir = mkdtempSync(join(tmpdir(), 'kh-cri-sandboxes-'));
const servers: grpc.Server[] = [];
afterAll(() => {
  for (const s of servers) s.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

const items = [
  {
    id: 'a'.repeat(64),
    metadata: { name: 'web-0', uid: 'uid-0', namespace: 'default', attempt: 1 },
    state: 0,
    created_at: '1',
    labels: { x: 'y' },
    annotations: {},
    runtime_handler: 'runc',
  },
  {
    id: 'b'.repeat(64),
    metadata: { name: 'api-1', uid: 'uid-1', namespace: 'shop', attempt: 0 },
    state: 1,
    created_at: '2',
    labels: {},
    annotations: { k: 'v' },
    runtime_handler: '',
  },
];
const want = [
  { id: 'a'.repeat(64), state: 0, podUid: 'uid-0' },
  { id: 'b'.repeat(64), state: 1, podUid: 'uid-1' },
];

describe('CRI ListPodSandbox', () => {
  it('the decoder reads id, pod uid and state from what protobufjs encodes, skipping the rest', () => {
    const bytes = service.ListPodSandbox!.responseSerialize({ items });
    expect(decodeListPodSandboxResponse(bytes)).toEqual(want);
    expect(decodeListPodSandboxResponse(Buffer.alloc(0))).toEqual([]);
  });

  it('listCriContainers asks for the sandboxes too when told, and refuses a runtime that fails to list them', async () => {
    const serve = async (sandboxes: 'ok' | 'fail') => {
      const socket = join(dir, `cri-${sandboxes}.sock`);
      const server = new grpc.Server();
      server.addService(service, {
        ListContainers: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => {
          cb(null, { containers: [] });
        },
        ListPodSandbox: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => {
          if (sandboxes === 'fail') cb({ code: grpc.status.INTERNAL, details: 'boom' });
          else cb(null, { items });
        },
      });
      await new Promise<void>((resolve, reject) =>
        server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (e) =>
          e ? reject(e) : resolve(),
        ),
      );
      servers.push(server);
      return socket;
    };
    const ok = await serve('ok');
    expect(await listCriContainers(ok, 5000, { sandboxes: true })).toEqual({
      version: 'v1',
      containers: [],
      sandboxes: want,
    });
    expect(await listCriContainers(ok, 5000)).toEqual({ version: 'v1', containers: [] });
    const failing = await serve('fail');
    await expect(listCriContainers(failing, 5000, { sandboxes: true })).rejects.toMatchObject({
      code: 'CRI_UNREACHABLE',
      detail: expect.stringContaining('ListPodSandbox failed: INTERNAL (boom)'),
    });
  });
});
