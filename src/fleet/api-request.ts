/**
 * One request to the apiserver over HTTPS (node:https, no client library): the body sent and
 * answered as JSON, the server's certificate checked against the cluster CA only, the caller
 * authenticated by a bearer token or a client certificate (what a kubelet's kubeconfig holds).
 * Any status is handed back: what a 404 or a 409 means is the caller's to say.
 */
import { request } from 'node:https';
import { OptionError } from '../errors.js';

/** Where the apiserver is, the CA that signed it, and who asks: a token, or a client certificate and its key. */
export interface ApiCredentials {
  server: string;
  ca: Buffer;
  token?: string;
  cert?: Buffer;
  key?: Buffer;
  /** Sent as User-Agent, so the apiserver's audit log says which tool made the request. */
  userAgent?: string;
}

/** The apiserver's answer: its status and the body parsed as JSON (undefined when it is not JSON). */
export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The body as text (for messages when it is not a Status object). */
  text: string;
}

/** The `message` of a Kubernetes Status body, else the body's first 300 characters. */
export function answerMessage(answer: ApiAnswer): string {
  const said = (answer.body as { message?: unknown } | undefined)?.message;
  return typeof said === 'string' ? said : answer.text.slice(0, 300);
}

/** `method path` with `body` (JSON) under `contentType`; refuses only when no answer comes (TLS, network, 30 s). */
export function apiRequest(
  access: ApiCredentials,
  method: 'GET' | 'PUT' | 'PATCH',
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<ApiAnswer> {
  const url = new URL(path, access.server);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (access.token !== undefined) headers['authorization'] = `Bearer ${access.token}`;
  if (access.userAgent !== undefined) headers['user-agent'] = access.userAgent;
  if (payload !== undefined) {
    headers['content-type'] = contentType;
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: access.ca,
        ...(access.cert !== undefined ? { cert: access.cert } : {}),
        ...(access.key !== undefined ? { key: access.key } : {}),
        headers,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (e) =>
      reject(
        new OptionError(
          'INVALID_OPTION',
          [access.server],
          'an apiserver answering over TLS signed by the cluster CA',
          e.message,
        ),
      ),
    );
    req.end(payload);
  });
}
