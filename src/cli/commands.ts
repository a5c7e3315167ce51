/** The CLI's commands: each names its options, usage line and handler. */
import { fileURLToPath } from 'node:url';
import { hashContainer, preimage } from '../hashing/index.js';
import { supportedReleases, releaseInfo } from '../releases/registry.js';
import { containersOf, onePositional, single, str, type Command, type Values } from './command.js';
import { atPath, type CliIO } from './io.js';

const EXAMPLE_POD = fileURLToPath(new URL('../../examples/pod.json', import.meta.url));
const EXAMPLE_POD_SUMMARY = 'the hash each kubelet release stores for each container (io.kubernetes.container.hash)';

function versionsFrom(values: Values): string[] {
  const v = values['kubelet-version'];
  if (typeof v === 'string') return [releaseInfo(v).release];
  return supportedReleases();
}

/** Hash table: one row per release, one column per container. */
async function hashTable(file: string, values: Values, io: CliIO): Promise<number> {
  const releases = versionsFrom(values);
  const wanted = await containersOf(file, values, io);
  if (values['json']) {
    const rows = wanted.map((c) => ({
      list: c.list,
      name: c.name,
      hashes: Object.fromEntries(releases.map((r) => [r, atPath(c.path, () => hashContainer(c.container, { kubeletVersion: r }))])),
    }));
    io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  const headers = wanted.map((c) => (c.list === 'containers' ? c.name : `${c.name} (${c.list})`));
  const widths = headers.map((h) => Math.max(8, h.length));
  io.stdout.write(['release', ...headers.map((h, i) => h.padEnd(widths[i]!))].join('  ').trimEnd() + '\n');
  for (const r of releases) {
    const cells = wanted.map((c, i) => atPath(c.path, () => hashContainer(c.container, { kubeletVersion: r })).padEnd(widths[i]!));
    io.stdout.write([r.padEnd(7), ...cells].join('  ').trimEnd() + '\n');
  }
  return 0;
}

export const CORE_COMMANDS: Record<string, Command> = {
  example: {
    summary: 'hash the bundled example pod (examples/pod.json) for every supported release',
    usage: '[--json]',
    options: { json: { type: 'boolean' } },
    run: (values, _p, io) => {
      io.stdout.write(`# examples/pod.json: ${EXAMPLE_POD_SUMMARY}\n`);
      return hashTable(EXAMPLE_POD, values, io);
    },
  },
  hash: {
    summary: "print the hash(es) a kubelet computes for a container, a Pod or a workload's pod template",
    usage: '[-k VERSION] [--container NAME] [--json] FILE|-',
    options: { 'kubelet-version': { type: 'string', short: 'k' }, container: { type: 'string', short: 'c' }, json: { type: 'boolean' } },
    run: (values, positionals, io) => hashTable(onePositional(positionals), values, io),
  },
  preimage: {
    summary: 'print the exact text a kubelet hashes (spew text or JSON); --hashed prints what FNV consumes',
    usage: '-k VERSION [--container NAME] [--hashed] FILE|-',
    options: { 'kubelet-version': { type: 'string', short: 'k' }, container: { type: 'string', short: 'c' }, hashed: { type: 'boolean' } },
    run: async (values, positionals, io) => {
      const version = str(values, 'kubelet-version', true);
      const target = single(await containersOf(onePositional(positionals), values, io));
      const pre = atPath(target.path, () => preimage(target.container, { kubeletVersion: version }));
      io.stdout.write(values['hashed'] ? Buffer.from(pre.hashedBytes) : Buffer.from(pre.bytes));
      io.stdout.write('\n');
      return 0;
    },
  },
  releases: {
    summary: 'list the supported releases with their algorithm and storage keys',
    usage: '[--json]',
    options: { json: { type: 'boolean' } },
    run: async (values, _p, io) => {
      const infos = supportedReleases().map((r) => releaseInfo(r));
      if (values['json']) io.stdout.write(JSON.stringify(infos, null, 2) + '\n');
      else for (const i of infos) io.stdout.write(`${i.release.padEnd(5)} ${i.algorithm.padEnd(10)} ${i.hashWithoutResources ? '+withoutResources ' : ''}${i.jsonEscapes ?? ''}\n`);
      return 0;
    },
  },
};
