/** Test certificates made with openssl: a CA, a server certificate for 127.0.0.1, client certificates. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CA, and a certificate for 127.0.0.1 signed by it (what a cluster's apiserver has). */
export function makeCa(into: string, cn: string): void {
  mkdirSync(into, { recursive: true });
  const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: into, stdio: 'pipe' });
  ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    `/CN=${cn}`,
  ]);
  ssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  writeFileSync(join(into, 'ext'), 'subjectAltName=IP:127.0.0.1\n');
  ssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '1',
    '-extfile',
    'ext',
  ]);
}

/** A client certificate `NAME.crt`/`NAME.key` for `subject` (`/O=system:nodes/CN=system:node:a`), signed by {@link makeCa}'s CA in `into`. */
export function signClient(into: string, name: string, subject: string): void {
  const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: into, stdio: 'pipe' });
  ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  ssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-out',
    `${name}.crt`,
  ]);
}
