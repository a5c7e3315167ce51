/**
 * The node:http2 gRPC call CRI goes through (src/discovery/grpc-call.ts), against servers that
 * answer wrongly: the happy path and the status codes are in cri-client.test.ts against grpc-js.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callUnary, frameMessage, unframeMessage } from '../../src/discovery/grpc-call.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-grpc-call-'));
const servers: (Server | Http2Server)[] = [];
afterAll(() => {
  for (const s of servers) s.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function listen(server: Server | Http2Server): Promise<string> {
  const socket = join(dir, `s-${n++}.sock`);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  servers.push(server);
  return socket;
}

/** An HTTP/2 server answering every request with `headers`, `body` and `trailers`. */
function http2Answering(headers: Record<string, string | number>, body: Uint8Array, trailers?: Record<string, string>) {
  const server = createHttp2Server();
  server.on('stream', (stream) => {
    stream.respond(headers, { waitForTrailers: trailers !== undefined });
    if (trailers) stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.end(body);
  });
  return listen(server);
}

const soon = () => Date.now() + 2_000;

describe('gRPC message frames', () => {
  it('frames with a zero flag and a big-endian length, and reads the frame back', () => {
    expect([...frameMessage(new Uint8Array([7, 8]))]).toEqual([0, 0, 0, 0, 2, 7, 8]);
    expect([...(unframeMessage(frameMessage(new Uint8Array([7, 8]))) as Uint8Array)]).toEqual([7, 8]);
    expect([...(unframeMessage(frameMessage(new Uint8Array(0))) as Uint8Array)]).toEqual([]);
  });

  it('refuses a short body, a compressed message and a length that is not the body', () => {
    expect(unframeMessage(new Uint8Array([0, 0]))).toBe('an answer of 2 bytes, shorter than a message frame');
    expect(unframeMessage(new Uint8Array([1, 0, 0, 0, 0]))).toBe('a compressed message, which was not asked for');
    expect(unframeMessage(new Uint8Array([0, 0, 0, 0, 9, 1]))).toBe('a frame of 9 bytes in an answer of 1');
  });
});

describe('callUnary against servers that are not gRPC', () => {
  it('a server that never answers: DEADLINE_EXCEEDED at the deadline', async () => {
    const socket = await listen(createNetServer(() => undefined));
    const started = Date.now();
    await expect(callUnary(socket, '/a.B/C', new Uint8Array(0), Date.now() + 300)).resolves.toEqual({
      status: 4,
      details: 'Deadline exceeded',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('an HTTP/2 404: UNKNOWN naming the HTTP status', async () => {
    const socket = await http2Answering({ ':status': 404 }, new Uint8Array(0));
    await expect(callUnary(socket, '/a.B/C', new Uint8Array(0), soon())).resolves.toEqual({
      status: 2,
      details: 'HTTP status 404',
    });
  });

  it('an answer without grpc-status: INTERNAL', async () => {
    const socket = await http2Answering({ ':status': 200 }, frameMessage(new Uint8Array([1])));
    await expect(callUnary(socket, '/a.B/C', new Uint8Array(0), soon())).resolves.toEqual({
      status: 13,
      details: 'the answer ended without grpc-status',
    });
  });

  it('a trailers-only refusal, with its percent-encoded message decoded', async () => {
    const socket = await http2Answering(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown%20service' },
      new Uint8Array(0),
    );
    await expect(callUnary(socket, '/a.B/C', new Uint8Array(0), soon())).resolves.toEqual({
      status: 12,
      details: 'unknown service',
    });
  });

  it('OK in the trailers with a compressed frame: INTERNAL, not a message', async () => {
    const socket = await http2Answering(
      { ':status': 200, 'content-type': 'application/grpc' },
      new Uint8Array([1, 0, 0, 0, 1, 9]),
      { 'grpc-status': '0' },
    );
    await expect(callUnary(socket, '/a.B/C', new Uint8Array(0), soon())).resolves.toEqual({
      status: 13,
      details: 'a compressed message, which was not asked for',
    });
  });

  it('sends the request framed, with the gRPC headers, and returns the one message', async () => {
    const server = createHttp2Server();
    const seen: unknown[] = [];
    server.on('stream', (stream, headers) => {
      const body: Buffer[] = [];
      stream.on('data', (c: Buffer) => body.push(c));
      stream.on('end', () => {
        seen.push(headers[':path'], headers['content-type'], headers['te'], [...Buffer.concat(body)]);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frameMessage(new Uint8Array([42])));
      });
    });
    const socket = await listen(server);
    const answer = await callUnary(socket, '/a.B/C', new Uint8Array([5, 6]), soon());
    expect('message' in answer && [...answer.message]).toEqual([42]);
    expect(seen).toEqual(['/a.B/C', 'application/grpc', 'trailers', [0, 0, 0, 0, 2, 5, 6]]);
  });
});
