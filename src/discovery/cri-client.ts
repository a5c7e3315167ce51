/**
 * What the runtime serves the kubelet: one CRI `RuntimeService/ListContainers` call over the
 * runtime's unix socket, CRI v1 first and v1alpha2 when v1 is unimplemented (a runtime older than
 * containerd 1.6 / CRI-O 1.23; containerd 1.6 and 1.7 serve both, 2.x v1 only).
 *
 * The transport is `node:http2` over the unix socket (`grpc-call.ts`): one unary call is a few
 * frames, so the package carries no gRPC library (`@grpc/grpc-js` was 26 MB and an install script
 * for this one call). The messages are read by the small protobuf decoder below instead of a
 * `.proto` file and a loader: the request is the empty message and the answer needs five fields, so
 * the package ships no protos and the single executable bundles no loader.
 */
import { StoreError } from '../errors.js';
import { callUnary, GRPC_STATUS_NAMES } from './grpc-call.js';

/**
 * One container as the runtime serves it over CRI.
 *
 * @internal
 */
export interface CriContainer {
  id: string;
  podSandboxId: string;
  /** `metadata.name`: the container's name as the kubelet created it. */
  name: string;
  attempt: number;
  /** 0 CREATED, 1 RUNNING, 2 EXITED, 3 UNKNOWN. */
  state: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * One pod sandbox as the runtime serves it over CRI.
 *
 * @internal
 */
export interface CriSandbox {
  id: string;
  /** 0 SANDBOX_READY, 1 SANDBOX_NOTREADY. */
  state: number;
  /** `metadata.uid`: the pod's uid. */
  podUid: string;
}

/** @internal */
export interface CriListing {
  /** The CRI version that answered. */
  version: 'v1' | 'v1alpha2';
  containers: CriContainer[];
  /** The pod sandboxes (ListPodSandbox), when asked for. */
  sandboxes?: CriSandbox[];
}

const VERSIONS = ['v1', 'v1alpha2'] as const;
/** gRPC's UNIMPLEMENTED: the runtime does not serve this CRI version. */
const UNIMPLEMENTED = 12;
/** ListContainersRequest with no filter: the empty message. */
const EMPTY_REQUEST = new Uint8Array(0);

/** Thrown by the decoder on bytes that are not the message. */
class WireError extends Error {}

/** Protobuf wire format, just enough of it: varints, length-delimited fields, skipping the rest. */
class Reader {
  pos: number;
  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  varint(): number {
    let value = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError('a varint runs past its message');
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * mul;
      mul *= 128;
      if ((b & 0x80) === 0) return value;
    }
    throw new WireError('a varint longer than 10 bytes');
  }

  /** A length-delimited field's bounds. */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (len > this.end - start) throw new WireError('a field runs past its message');
    this.pos = start + len;
    return [start, start + len];
  }

  string(): string {
    const [s, e] = this.span();
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + s, e - s).toString('utf8');
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.span();
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (n > this.end - this.pos) throw new WireError('a fixed field runs past its message');
      this.pos += n;
    } else throw new WireError(`wire type ${wire}`);
  }

  /** Each field of the message between pos and end: (field number, wire type). */
  fields(each: (field: number, wire: number) => boolean): void {
    while (this.pos < this.end) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (!each(field, wire)) this.skip(wire);
    }
  }

  /** A nested message's reader (the field must be length-delimited). */
  sub(wire: number): Reader {
    if (wire !== 2) throw new WireError('a message field that is not length-delimited');
    const [s, e] = this.span();
    return new Reader(this.buf, s, e);
  }
}

/** A `map<string,string>` entry into `into`. */
function readMapEntry(r: Reader, into: Record<string, string>): void {
  let key = '';
  let value = '';
  r.fields((f, w) => {
    if (w !== 2 || (f !== 1 && f !== 2)) return false;
    if (f === 1) key = r.string();
    else value = r.string();
    return true;
  });
  into[key] = value;
}

function readContainer(r: Reader): CriContainer {
  const c: CriContainer = {
    id: '',
    podSandboxId: '',
    name: '',
    attempt: 0,
    state: 0,
    labels: Object.create(null) as Record<string, string>,
    annotations: Object.create(null) as Record<string, string>,
  };
  r.fields((f, w) => {
    if (f === 1 && w === 2) c.id = r.string();
    else if (f === 2 && w === 2) c.podSandboxId = r.string();
    else if (f === 3) {
      const m = r.sub(w);
      m.fields((mf, mw) => {
        if (mf === 1 && mw === 2) c.name = m.string();
        else if (mf === 2 && mw === 0) c.attempt = m.varint();
        else return false;
        return true;
      });
    } else if (f === 6 && w === 0) c.state = r.varint();
    else if (f === 8) readMapEntry(r.sub(w), c.labels);
    else if (f === 9) readMapEntry(r.sub(w), c.annotations);
    else return false;
    return true;
  });
  return c;
}

/**
 * A `ListContainersResponse` (field 1: repeated `Container`; the same numbers in v1 and v1alpha2).
 *
 * @internal
 */
export function decodeListContainersResponse(bytes: Uint8Array): CriContainer[] {
  const r = new Reader(bytes);
  const out: CriContainer[] = [];
  r.fields((f, w) => {
    if (f !== 1) return false;
    out.push(readContainer(r.sub(w)));
    return true;
  });
  return out;
}

/**
 * A `ListPodSandboxResponse` (field 1: repeated `PodSandbox`: id 1, metadata 2 with uid 2, state 3).
 *
 * @internal
 */
export function decodeListPodSandboxResponse(bytes: Uint8Array): CriSandbox[] {
  const r = new Reader(bytes);
  const out: CriSandbox[] = [];
  r.fields((f, w) => {
    if (f !== 1) return false;
    const m = r.sub(w);
    const s: CriSandbox = { id: '', state: 0, podUid: '' };
    m.fields((sf, sw) => {
      if (sf === 1 && sw === 2) s.id = m.string();
      else if (sf === 3 && sw === 0) s.state = m.varint();
      else if (sf === 2) {
        const md = m.sub(sw);
        md.fields((mf, mw) => {
          if (mf !== 2 || mw !== 2) return false;
          s.podUid = md.string();
          return true;
        });
      } else return false;
      return true;
    });
    out.push(s);
    return true;
  });
  return out;
}

const unreachable = (socket: string, detail: string): StoreError =>
  new StoreError(
    'CRI_UNREACHABLE',
    ['runtimeEndpoint'],
    `the runtime answering CRI ListContainers on ${socket} (start it before verify; to check the store files alone, give its root, e.g. --containerd-root, instead of --runtime-endpoint)`,
    detail,
    socket,
  );

/**
 * The containers the runtime behind `socket` serves (every state; no filter), or a typed
 * `CRI_UNREACHABLE` refusal when it does not answer within `timeoutMs` or answers with no
 * `ListContainersResponse`.
 *
 * @internal
 */
export async function listCriContainers(
  socket: string,
  timeoutMs = 10_000,
  options: { sandboxes?: boolean } = {},
): Promise<CriListing> {
  const deadline = Date.now() + timeoutMs;
  const call = (version: string, method: string) =>
    callUnary(socket, `/runtime.${version}.RuntimeService/${method}`, EMPTY_REQUEST, deadline);
  for (const version of VERSIONS) {
    const answer = await call(version, 'ListContainers');
    if ('message' in answer) {
      let containers: CriListing['containers'];
      try {
        containers = decodeListContainersResponse(answer.message);
      } catch (e) {
        if (e instanceof WireError)
          throw unreachable(
            socket,
            `its ${version} ListContainers answer is not a ListContainersResponse: ${e.message}`,
          );
        throw e;
      }
      if (!options.sandboxes) return { version, containers };
      // The sandboxes of the version that answered: their states count too (a NOTREADY sandbox).
      const pods = await call(version, 'ListPodSandbox');
      if (!('message' in pods))
        throw unreachable(
          socket,
          `CRI ${version} ListPodSandbox failed: ${GRPC_STATUS_NAMES[pods.status] ?? pods.status} (${pods.details})`,
        );
      try {
        return { version, containers, sandboxes: decodeListPodSandboxResponse(pods.message) };
      } catch (e) {
        if (e instanceof WireError)
          throw unreachable(
            socket,
            `its ${version} ListPodSandbox answer is not a ListPodSandboxResponse: ${e.message}`,
          );
        throw e;
      }
    }
    if (answer.status === UNIMPLEMENTED && version !== 'v1alpha2') continue;
    throw unreachable(
      socket,
      `CRI ${version} ListContainers failed: ${GRPC_STATUS_NAMES[answer.status] ?? answer.status} (${answer.details})`,
    );
  }
  /* c8 ignore next */
  throw unreachable(socket, 'no CRI version answered');
}

/**
 * What the runtime says to CRI `RuntimeConfig` (cri-api api.proto: RuntimeConfigResponse{linux=1},
 * LinuxRuntimeConfiguration{cgroup_driver=1}, enum SYSTEMD=0, CGROUPFS=1): `served` with the
 * driver's number (absent linux: no driver; proto3 leaves SYSTEMD's 0 off the wire), `unimplemented`
 * (an older runtime), or `failed` with the gRPC status, as the kubelet tells them apart.
 */
export type CriRuntimeConfig =
  | { answer: 'served'; cgroupDriver?: number }
  | { answer: 'unimplemented'; details: string }
  | { answer: 'failed'; status: string; details: string };

/** Decodes a RuntimeConfigResponse: the cgroup driver of its `linux` field, undefined without one. */
function decodeRuntimeConfigResponse(bytes: Uint8Array): { cgroupDriver?: number } {
  const r = new Reader(bytes);
  let driver: number | undefined;
  r.fields((field, wire) => {
    if (field !== 1) return false;
    const linux = r.sub(wire);
    driver = 0;
    linux.fields((lf, lw) => {
      if (lf !== 1 || lw !== 0) return false;
      driver = linux.varint();
      return true;
    });
    return true;
  });
  return driver === undefined ? {} : { cgroupDriver: driver };
}

/**
 * Asks the runtime behind `socket` CRI v1 `RuntimeConfig` (the call the kubelet makes at start from
 * 1.28 with KubeletCgroupDriverFromCRI). Never throws: an answer that is not the message is `failed`.
 *
 * @internal
 */
export async function criRuntimeConfig(socket: string, timeoutMs = 10_000): Promise<CriRuntimeConfig> {
  const answer = await callUnary(
    socket,
    '/runtime.v1.RuntimeService/RuntimeConfig',
    EMPTY_REQUEST,
    Date.now() + timeoutMs,
  );
  if ('message' in answer) {
    try {
      return { answer: 'served', ...decodeRuntimeConfigResponse(answer.message) };
    } catch (e) {
      if (e instanceof WireError)
        return { answer: 'failed', status: 'INTERNAL', details: `not a RuntimeConfigResponse: ${e.message}` };
      throw e;
    }
  }
  if (answer.status === UNIMPLEMENTED) return { answer: 'unimplemented', details: answer.details };
  return {
    answer: 'failed',
    status: GRPC_STATUS_NAMES[answer.status] ?? String(answer.status),
    details: answer.details,
  };
}
