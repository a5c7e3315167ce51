/**
 * One HTTPS request to an apiserver over node:https, with the credentials a kubeconfig or a pod's
 * projected volume gives (bearer token, client certificate, the CA that signed the apiserver's
 * certificate). The answer comes back whatever its status: the callers decide what a 422 means.
 * Only a request that gets no answer (TLS, connection, timeout) is refused here.
 */
import { request } from 'node:https';
import { OptionError } from '../errors.js';
import { JsonNumber } from '../json/number.js';

/** Where and how to reach the apiserver: its URL, the CA, and a bearer token or a client certificate. */
export interface ApiAccess {
  server: string;
  /** The CA that signed the apiserver's certificate (absent: the system's CAs). */
  ca?: Buffer;
  token?: string;
  /** A client certificate and its key (PEM). */
  cert?: Buffer;
  key?: Buffer;
  /** The name to check the apiserver's certificate against, when not the server's host (`tls-server-name`). */
  servername?: string;
  /** `insecure-skip-tls-verify`: the apiserver's certificate is not checked. */
  insecure?: boolean;
  /** Sent as User-Agent, so the apiserver's audit log says which tool made the request. */
  userAgent?: string;
}

/** An apiserver's answer: the HTTP status and the body, parsed as JSON when it is JSON. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The body as received (the first 2000 characters), for messages. */
  text: string;
}

const TIMEOUT_MS = 30_000;

/** Numbers kept as written: JsonNumber (its `text`) and bigint print their digits, not a double's. */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Sends `method path` (with `body` as `contentType`) and returns the answer, any status. Rejects
 * with an OptionError (code APISERVER_ERROR) only when no answer comes.
 */
export function apiRequest(
  access: ApiAccess,
  method: 'GET' | 'PUT' | 'PATCH' | 'POST',
  path: string,
  body?: { text: string; contentType: string },
): Promise<ApiAnswer> {
  const url = new URL(path, access.server);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (access.token !== undefined) headers['authorization'] = `Bearer ${access.token}`;
  if (access.userAgent !== undefined) headers['user-agent'] = access.userAgent;
  if (body) headers['content-type'] = body.contentType;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers,
        timeout: TIMEOUT_MS,
        ...(access.ca ? { ca: access.ca } : {}),
        ...(access.cert ? { cert: access.cert } : {}),
        ...(access.key ? { key: access.key } : {}),
        ...(access.servername !== undefined ? { servername: access.servername } : {}),
        ...(access.insecure ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: callers read `text`
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text: text.slice(0, 2000) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (e) =>
      reject(
        new OptionError(
          'APISERVER_ERROR',
          [url.origin],
          access.ca ? 'an apiserver answering over TLS signed by the given CA' : 'an apiserver answering over TLS',
          e.message,
        ),
      ),
    );
    req.end(body?.text);
  });
}

/** The `message` of a Kubernetes Status body, else the body's first 300 characters. */
export function statusMessage(answer: ApiAnswer): string {
  const said = (answer.body as { message?: unknown } | undefined)?.message;
  return typeof said === 'string' ? said : answer.text.slice(0, 300);
}
