/**
 * The CRI client verify uses (src/discovery/cri-client.ts): its protobuf decoder against
 * protobufjs's encoder (what @grpc/proto-loader builds from the CRI protos), CRI v1 with the
 * v1alpha2 fallback, and every way a socket can fail to answer, against in-process gRPC servers on
 * unix sockets. The real containerd releases are in test/real/containerd-verify-cri.integration.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors.js';
import { decodeListContainersResponse, listCriContainers, type CriContainer } from '../../src/discovery/cri-client.js';
import { checkRuntimeAgreement } from '../../src/node-upgrade/runtime-agreement.js';
import type { NodePlanEntry } from '../../src/node-upgrade/plan-file.js';

const PROTO = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'protos', 'cri-runtime.proto');
const def = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: Number, defaults: true });
const service = def['runtime.v1.RuntimeService'] as grpc.ServiceDefinition;
const encode = (containers: unknown[]): Buffer => service.ListContainers!.responseSerialize({ containers });

/** The CRI service definition under another version's path (v1alpha2 has the same messages). */
const asVersion = (version: string): grpc.ServiceDefinition =>
  Object.fromEntries(
    Object.entries(service).map(([k, m]) => [
      k,
      { ...m, path: m.path.replace('/runtime.v1.', `/runtime.${version}.`) },
    ]),
  );

const dir = mkdtempSync(join(tmpdir(), 'kh-cri-client-'));
const servers: grpc.Server[] = [];
afterAll(() => {
  for (const s of servers) s.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** A gRPC server on a fresh unix socket serving ListContainers under `versions`. */
async function serve(versions: string[], answer: () => unknown[] | Error): Promise<string> {
  const socket = join(dir, `cri-${n++}.sock`);
  const server = new grpc.Server();
  for (const v of versions)
    server.addService(asVersion(v), {
      ListContainers: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => {
        const a = answer();
        if (a instanceof Error) cb({ code: grpc.status.INTERNAL, details: a.message });
        else cb(null, { containers: a });
      },
    });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())),
  );
  servers.push(server);
  return socket;
}

const container = (i: number): CriContainer => ({
  id: `c${i}`.padEnd(64, '0'),
  podSandboxId: `s${i}`.padEnd(64, '0'),
  name: `app-${i}`,
  attempt: i,
  state: i % 4,
  labels: { 'io.kubernetes.pod.uid': `uid-${i}`, 'io.kubernetes.container.name': `app-${i}` },
  annotations: { 'io.kubernetes.container.hash': (0x1000 + i).toString(16) },
});
/** The container in proto-loader's (snake_case) form, with the fields the decoder skips. */
const wire = (c: CriContainer) => ({
  id: c.id,
  pod_sandbox_id: c.podSandboxId,
  metadata: { name: c.name, attempt: c.attempt },
  image: { image: 'registry.example/app:1' },
  image_ref: 'sha256:00',
  state: c.state,
  created_at: '1764633600123456789',
  labels: c.labels,
  annotations: c.annotations,
});
const plain = (cs: CriContainer[]) =>
  cs.map((c) => ({ ...c, labels: { ...c.labels }, annotations: { ...c.annotations } }));

describe('the ListContainersResponse decoder', () => {
  it('reads what protobufjs encodes (ids, sandbox, name, attempt, state, labels, annotations; skips the rest)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.string({ unit: 'grapheme' }),
            podSandboxId: fc.string(),
            name: fc.string({ unit: 'grapheme' }),
            attempt: fc.nat(),
            state: fc.integer({ min: 0, max: 3 }),
            labels: fc.dictionary(fc.string(), fc.string({ unit: 'grapheme' })),
            annotations: fc.dictionary(fc.string(), fc.string({ maxLength: 300 })),
          }),
          { maxLength: 6 },
        ),
        (cs) => {
          const safe = cs.map((c) => ({
            ...c,
            labels: Object.assign(Object.create(null), c.labels) as Record<string, string>,
            annotations: Object.assign(Object.create(null), c.annotations) as Record<string, string>,
          }));
          expect(plain(decodeListContainersResponse(encode(safe.map(wire))))).toEqual(plain(safe));
        },
      ),
    );
  });

  it('refuses bytes that are not the message (a field past the end, a group wire type)', () => {
    const good = encode([wire(container(1))]);
    expect(() => decodeListContainersResponse(good.subarray(0, good.length - 3))).toThrow(/runs past its message/);
    expect(() => decodeListContainersResponse(Buffer.from([0x13]))).toThrow(/wire type 3/);
  });
});

describe('listCriContainers', () => {
  it('asks CRI v1 first', async () => {
    const socket = await serve(['v1', 'v1alpha2'], () => [wire(container(1)), wire(container(2))]);
    const listing = await listCriContainers(socket);
    expect(listing.version).toBe('v1');
    expect(plain(listing.containers)).toEqual(plain([container(1), container(2)]));
  });

  it('falls back to v1alpha2 when v1 is unimplemented (a runtime before containerd 1.6)', async () => {
    const socket = await serve(['v1alpha2'], () => [wire(container(3))]);
    const listing = await listCriContainers(socket);
    expect(listing.version).toBe('v1alpha2');
    expect(plain(listing.containers)).toEqual(plain([container(3)]));
  });

  it('a socket serving neither, a failing call, no socket at all, an answer that is not the message: CRI_UNREACHABLE', async () => {
    const none = await serve([], () => []);
    const failing = await serve(['v1'], () => new Error('boom'));
    const garbage = join(dir, 'garbage.sock');
    const server = new grpc.Server();
    server.addService(
      {
        ListContainers: {
          ...service.ListContainers!,
          path: '/runtime.v1.RuntimeService/ListContainers',
          responseSerialize: () => Buffer.from([0x0a, 0x05, 0x01]),
        },
      },
      { ListContainers: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, {}) },
    );
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${garbage}`, grpc.ServerCredentials.createInsecure(), (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    servers.push(server);
    const cases: [string, RegExp][] = [
      [none, /CRI v1alpha2 ListContainers failed: UNIMPLEMENTED/],
      [failing, /CRI v1 ListContainers failed: INTERNAL \(boom\)/],
      [join(dir, 'absent.sock'), /CRI v1 ListContainers failed: UNAVAILABLE/],
      [garbage, /its v1 ListContainers answer is not a ListContainersResponse: a field runs past its message/],
    ];
    for (const [socket, detail] of cases) {
      const e = await listCriContainers(socket, 2_000).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(StoreError);
      expect(e).toMatchObject({ code: 'CRI_UNREACHABLE', path: ['runtimeEndpoint'] });
      expect((e as Error).message).toMatch(detail);
      expect((e as Error).message).toContain(`the runtime answering CRI ListContainers on ${socket}`);
    }
  });
});

describe('checkRuntimeAgreement', () => {
  const entry = (c: CriContainer, over: Partial<NodePlanEntry> = {}): NodePlanEntry =>
    ({
      action: 'keep',
      reason: 'same hash',
      containerId: c.id,
      podUid: c.labels['io.kubernetes.pod.uid']!,
      containerName: c.name,
      observed: { hash: c.annotations['io.kubernetes.container.hash']! },
      computed: {},
      ...over,
    }) as NodePlanEntry;
  const listing = (cs: CriContainer[]) => ({ version: 'v1' as const, containers: cs });
  const refusal = (f: () => void): string => {
    try {
      f();
    } catch (e) {
      expect(e).toMatchObject({ code: 'CRI_DISAGREES' });
      return (e as Error).message;
    }
    throw new Error('expected CRI_DISAGREES');
  };

  it('the same containers, hashes and identities: no refusal; an API container without a record is not asked for', () => {
    const cs = [container(1), container(2)];
    const noRecord = { ...entry(container(9)), containerId: undefined } as NodePlanEntry;
    expect(() =>
      checkRuntimeAgreement([...cs.map((c) => entry(c)), noRecord], listing(cs), '/run/x.sock'),
    ).not.toThrow();
  });

  it('each kind of difference is named: served only, stored only, another hash, pod uid, container name', () => {
    const [a, b, c, d, e] = [1, 2, 3, 4, 5].map(container) as [
      CriContainer,
      CriContainer,
      CriContainer,
      CriContainer,
      CriContainer,
    ];
    const message = refusal(() =>
      checkRuntimeAgreement(
        [
          entry(b),
          entry(c, { observed: { hash: 'deadbeef' } }),
          entry(d, { podUid: 'other-uid' }),
          entry(e, { containerName: 'sidecar' }),
        ],
        listing([a, c, d, e]),
        '/run/x.sock',
      ),
    );
    expect(message).toContain('5 containers differ (the runtime serves 4, the store holds 4)');
    expect(message).toContain(
      `container ${a.id.slice(0, 13)} (pod ?/? uid uid-1, sandbox ${a.podSandboxId.slice(0, 13)}, app-1 attempt 1): served by the runtime, not in the store`,
    );
    expect(message).toContain(
      `container ${b.id.slice(0, 13)} (pod ?/? uid uid-2, app-2): in the store, not served by the runtime`,
    );
    expect(message).toContain('hash: the store holds deadbeef, the runtime serves 1003');
    expect(message).toContain('pod uid: the store holds other-uid, the runtime serves uid-4');
    expect(message).toContain('container name: the store holds sidecar, the runtime serves app-5');
  });

  it('names 20 containers and counts the rest', () => {
    const cs = Array.from({ length: 25 }, (_, i) => container(i));
    const message = refusal(() => checkRuntimeAgreement([], listing(cs), '/run/x.sock'));
    expect(message.match(/served by the runtime, not in the store/g)).toHaveLength(20);
    expect(message).toContain('; and 5 more');
  });
});
