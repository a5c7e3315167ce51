/**
 * A stand-in CRI runtime on a unix socket, for the tests of what asks RuntimeConfig (doctor --to,
 * upgrade-node's gate) on fake nodes: a gRPC server over node:http2 answering every call with
 * UNIMPLEMENTED (as containerd 1.x answers RuntimeConfig; test/real/containerd-runtime-config
 * judges that), or RuntimeConfig with a cgroup driver (as 2.x). It runs in a child process of its
 * own, so a test that blocks on spawnSync (the agent chrooted into an image) still gets answers;
 * stopped by its PID.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

export type FakeCriAnswer = 'unimplemented' | { cgroupDriver: number };

// The server, as the child runs it: argv[1] the socket, argv[2] the answer (JSON). A RuntimeConfigResponse
// is linux (field 1) holding cgroup_driver (field 1, a varint; proto3 leaves 0 off the wire).
const SERVER = `
const http2 = require('node:http2');
const [socket, answerText] = process.argv.slice(1);
const answer = JSON.parse(answerText);
const server = http2.createServer();
server.on('stream', (stream, headers) => {
  stream.on('data', () => {});
  const path = headers[':path'];
  if (answer === 'unimplemented' || path !== '/runtime.v1.RuntimeService/RuntimeConfig') {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown method ' + path }, { endStream: true });
    return;
  }
  const driver = answer.cgroupDriver;
  const linux = driver === 0 ? Buffer.alloc(0) : Buffer.from([0x08, driver]);
  const message = Buffer.concat([Buffer.from([0x0a, linux.length]), linux]);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(frame);
});
server.listen(socket, () => process.stdout.write('listening\\n'));
`;

/** Serves `answer` on `socket` from a child process until closed; resolves once it listens. */
export async function fakeCri(socket: string, answer: FakeCriAnswer): Promise<{ close: () => Promise<void> }> {
  mkdirSync(dirname(socket), { recursive: true });
  rmSync(socket, { force: true });
  const child = spawn(process.execPath, ['-e', SERVER, socket, JSON.stringify(answer)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the fake CRI server exited (${String(code)})`)));
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        process.kill(child.pid!, 'SIGTERM');
      }),
  };
}
