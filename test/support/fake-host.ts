/**
 * A node's / in a directory, small enough to chroot into: this machine's dash and the libraries it
 * links (found with ldd) as /bin/sh, stand-ins for the host's own tools written for dash's builtins
 * only (systemctl and the swap command record their call in /calls.log; `kubelet --version` prints
 * /installed-kubelet, which the swap rewrites; a file /fail-NAME makes NAME fail), and a containerd
 * root with records at 1.30 hashes. `upgrade-node --host-exec chroot` runs its host commands in it
 * exactly as on a node.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashContainer } from '../../src/hash-api/index.js';
import { ContainerdStore } from '../../src/stores/index.js';
import { fixtureContainers, fixturePod } from './cri-fixtures.js';
import { writeContainerdNode, writePodList } from './node-fixture.js';

/** The node's name. */
export const FAKE_NODE = 'node-a';

/** The libraries `bin` links, as ldd resolves them. */
function libraries(bin: string): string[] {
  return execFileSync('ldd', [bin], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /(\/\S+) \(0x/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined);
}

const copy = (from: string, to: string, mode = 0o755): void => {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(realpathSync(from), to);
  chmodSync(to, mode);
};

/** Writes the fake host under `root`; `podsFile` is where its pods list goes (the agent's side). */
export function writeFakeHost(root: string, podsFile: string, pods = 2) {
  const sh = realpathSync('/bin/sh');
  copy(sh, join(root, 'bin', 'sh'));
  for (const lib of libraries(sh)) copy(lib, join(root, lib));
  const tool = (path: string, body: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `#!/bin/sh\n${body}\n`);
    chmodSync(join(root, path), 0o755);
  };
  const failIf = (name: string) => `if [ -e /fail-${name} ]; then echo "${name} broke" >&2; exit 1; fi`;
  tool('usr/bin/systemctl', `echo "systemctl $*" >> /calls.log\n${failIf('systemctl-$1-$2')}`);
  tool('usr/bin/kubelet', 'read -r v < /installed-kubelet\necho "$v"');
  tool(
    'usr/local/bin/swap-kubelet',
    `echo "swap-kubelet $*" >> /calls.log\n${failIf('swap-before')}\necho 'Kubernetes v1.31.14' > /installed-kubelet\n${failIf('swap-after')}`,
  );
  writeFileSync(join(root, 'installed-kubelet'), 'Kubernetes v1.30.14\n');
  writeFileSync(join(root, 'calls.log'), '');
  const apiPods = Array.from({ length: pods }, (_, i) => fixturePod(i));
  const fixtures = fixtureContainers(apiPods, '1.30');
  const containerd = join(root, 'var', 'lib', 'containerd');
  writeContainerdNode(containerd, fixtures);
  // Scheduled on node-a, the name the controller gives the Job ($(SYSTEM_UPGRADE_NODE_NAME)).
  writePodList(
    podsFile,
    apiPods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: FAKE_NODE } })),
  );
  return {
    oldHashes: Object.fromEntries(fixtures.map((f) => [f.id, f.hash])),
    newHashes: Object.fromEntries(fixtures.map((f) => [f.id, hashContainer(f.container, { kubeletVersion: '1.31' })])),
    /** The calls the host's tools recorded so far. */
    calls: (): string[] => readFileSync(join(root, 'calls.log'), 'utf8').split('\n').filter(Boolean),
    /** The stored hash of every container, read now. */
    hashes: async (): Promise<Record<string, string | undefined>> =>
      Object.fromEntries((await new ContainerdStore({ root: containerd }).list()).map((c) => [c.containerId, c.hash])),
    /** Makes NAME (systemctl-VERB-UNIT, swap-before, swap-after) fail from now on. */
    fail: (name: string): void => {
      writeFileSync(join(root, `fail-${name}`), '');
    },
  };
}

/** What every successful upgrade of the fake host runs there, in order. */
export const FAKE_HOST_FORWARD = [
  'systemctl stop kubelet',
  'systemctl stop containerd',
  'swap-kubelet --to 1.31',
  'systemctl start containerd',
  'systemctl start kubelet',
];
