/**
 * One unary gRPC call over a unix socket with `node:http2`, the transport CRI uses. gRPC over
 * HTTP/2 is a POST to `/package.Service/Method` with `content-type: application/grpc` and
 * `te: trailers`; each message is framed as 1 byte (compressed or not) + 4 bytes big-endian length
 * + the bytes; the outcome is `grpc-status` (and `grpc-message`) in the trailers, or in the headers
 * of a "trailers-only" answer (how a server refuses at once, e.g. UNIMPLEMENTED).
 */
import { connect as connectHttp2, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as connectSocket } from 'node:net';

/** gRPC's status codes by number, for messages. */
export const GRPC_STATUS_NAMES: readonly string[] = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
const UNKNOWN = 2;
const DEADLINE_EXCEEDED = 4;
const INTERNAL = 13;
const UNAVAILABLE = 14;

/** The answer: one message, or a status other than OK with its details. */
export type UnaryAnswer = { message: Uint8Array } | { status: number; details: string };

/** A message in gRPC's length-prefixed frame (uncompressed). */
export function frameMessage(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

/**
 * The one message of a unary answer's body, or a description of what is wrong with it. Nothing
 * was asked in compressed form (no `grpc-accept-encoding`), so a compressed message is refused.
 */
export function unframeMessage(body: Uint8Array): Uint8Array | string {
  if (body.length < 5) return `an answer of ${body.length} bytes, shorter than a message frame`;
  if (body[0] !== 0) return 'a compressed message, which was not asked for';
  const length = new DataView(body.buffer, body.byteOffset, body.length).getUint32(1);
  if (length !== body.length - 5) return `a frame of ${length} bytes in an answer of ${body.length - 5}`;
  return body.subarray(5);
}

/** `grpc-message` is percent-encoded. */
function statusOf(headers: IncomingHttpHeaders): { status: number; details: string } | undefined {
  const raw = headers['grpc-status'];
  if (raw === undefined) return undefined;
  const status = Number(raw);
  const message = headers['grpc-message'];
  let details = typeof message === 'string' ? message : '';
  try {
    details = decodeURIComponent(details);
  } catch {
    // Not valid percent-encoding: shown as sent.
  }
  return { status: Number.isInteger(status) ? status : UNKNOWN, details };
}

/** What a closed stream answered: its message, or the status that says why there is none. */
function outcomeOf(
  httpStatus: number,
  status: { status: number; details: string } | undefined,
  body: Uint8Array,
): UnaryAnswer {
  if (httpStatus !== 200)
    return { status: httpStatus === 0 ? UNAVAILABLE : UNKNOWN, details: `HTTP status ${httpStatus}` };
  if (status === undefined) return { status: INTERNAL, details: 'the answer ended without grpc-status' };
  if (status.status !== 0) return status;
  const message = unframeMessage(body);
  return typeof message === 'string' ? { status: INTERNAL, details: message } : { message };
}

/**
 * Calls `path` on the gRPC server listening on `socket` with the serialised `request`, waiting
 * until `deadline` (ms since the epoch). Never throws: a socket that does not answer is UNAVAILABLE,
 * the deadline DEADLINE_EXCEEDED, an answer that is not gRPC INTERNAL, as grpc-js reports them.
 */
export function callUnary(socket: string, path: string, request: Uint8Array, deadline: number): Promise<UnaryAnswer> {
  return new Promise((resolve) => {
    const session: ClientHttp2Session = connectHttp2('http://localhost', {
      createConnection: () => connectSocket(socket),
    });
    let settled = false;
    const finish = (answer: UnaryAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ status: DEADLINE_EXCEEDED, details: 'Deadline exceeded' }),
      Math.max(0, deadline - Date.now()),
    );
    session.on('error', (e: Error) =>
      finish({ status: UNAVAILABLE, details: `No connection established: ${e.message}` }),
    );
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      te: 'trailers',
    });
    const chunks: Buffer[] = [];
    let headerStatus: { status: number; details: string } | undefined;
    let trailerStatus: { status: number; details: string } | undefined;
    let httpStatus = 0;
    stream.on('response', (headers) => {
      httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
      headerStatus = statusOf(headers);
    });
    stream.on('trailers', (trailers: IncomingHttpHeaders) => (trailerStatus = statusOf(trailers)));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', (e: Error) => finish({ status: UNAVAILABLE, details: e.message }));
    stream.on('close', () => {
      finish(outcomeOf(httpStatus, trailerStatus ?? headerStatus, Buffer.concat(chunks)));
    });
    stream.end(frameMessage(request));
  });
}
