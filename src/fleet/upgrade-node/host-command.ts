/**
 * Running the host's own tools from the agent's container: Node has no chroot(2), so the node
 * helper (our static Go binary, src/bbolt/node-helper.ts) chroots into the host's root and execs
 * the command found on the host's PATH; `nsenter` goes one step further into PID 1's namespaces
 * with the host's own nsenter (systemctl then talks to the host's systemd as from a shell there);
 * `none` runs the command as it is (the agent installed on the host, or a test's own processes).
 */
import { spawn } from 'node:child_process';
import { nodeHelper } from '../../bbolt/index.js';

/** How host commands are run. */
export type HostExec = 'chroot' | 'nsenter' | 'none';
export const HOST_EXECS: readonly HostExec[] = ['chroot', 'nsenter', 'none'];

/** Where and how the host's commands run, and how long one may take. */
export interface HostCommands {
  exec: HostExec;
  /** The host's / as mounted in the agent's container (SUC mounts it at /host). */
  hostRoot: string;
  timeoutMs: number;
}

/** The argv that runs `argv` on the host. */
function hostArgv(h: HostCommands, argv: readonly string[]): string[] {
  if (h.exec === 'none') return [...argv];
  const helper = nodeHelper();
  if (helper === undefined)
    throw new Error(
      `running host commands by ${h.exec} needs the node helper (the single executable carries it; else set KUBELET_HASH_NODE_HELPER)`,
    );
  const inner = h.exec === 'nsenter' ? ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', ...argv] : argv;
  return [helper, 'chroot', h.hostRoot, ...inner];
}

/** Runs `argv` on the host; resolves with its stdout, throws naming the command, exit and stderr's end. */
export function runHost(h: HostCommands, argv: readonly string[]): Promise<string> {
  const [cmd, ...args] = hostArgv(h, argv);
  const shown = argv.join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: h.timeoutMs, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', (e) => {
      reject(new Error(`${shown}: ${e.message}`));
    });
    child.once('close', (code, signal) => {
      if (code === 0) resolve(out);
      else
        reject(
          new Error(
            `${shown}: ${signal !== null ? `killed by ${signal}` : `exit ${String(code)}`}${err.trim() !== '' ? `: ${err.trim().slice(-500)}` : ''}`,
          ),
        );
    });
  });
}
