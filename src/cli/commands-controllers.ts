/**
 * CLI commands over the controllers' API: `changed`, `translate`, `identify`, `explain`, `plan`.
 * Files in (or `-` for stdin), text or `--json` out. `changed` exits 1 when the kubelet would
 * restart the container, like a failed check.
 */
import { explainHashChange } from '../explain/index.js';
import {
  containerChanged,
  identifyReleases,
  planUpgrade,
  translateHash,
  type ContainerStatusInput,
  type FeatureGates,
} from '../kubelet/index.js';
import type { LocatedContainer } from '../pod/locate.js';
import { readRuntimeRecords, type ContainerRecordInfo } from '../runtime/index.js';
import { containersOf, onePositional, single, str, UsageError, type Command, type Values } from './command.js';
import { readInput, readJsonInput, type CliIO } from './io.js';

/** `--feature-gates A=true,B=false`, as the kubelet's flag is written. */
export function featureGates(values: Values): FeatureGates | undefined {
  const text = str(values, 'feature-gates');
  if (text === undefined) return undefined;
  const gates: FeatureGates = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(part);
    if (!m) throw new UsageError(`--feature-gates expects Name=true|false pairs separated by commas, got ${JSON.stringify(part)}`);
    gates[m[1]!] = m[2] === 'true';
  }
  return gates;
}

function json(io: CliIO, value: unknown): void {
  io.stdout.write(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
}

const JSON_OPT = { json: { type: 'boolean' } } as const;
const CONTAINER_OPT = { container: { type: 'string', short: 'c' } } as const;
const FROM_TO = { from: { type: 'string' }, to: { type: 'string' } } as const;

/** The stored hashes for `changed`: a status JSON file, a runtime record, or the flags. */
async function statusFrom(values: Values, io: CliIO, container: LocatedContainer): Promise<ContainerStatusInput> {
  const statusFile = str(values, 'status');
  const recordFile = str(values, 'record');
  const hash = str(values, 'hash');
  const given = [statusFile, recordFile, hash].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UsageError('give exactly one of --status FILE, --record FILE or --hash HEX');
  if (hash !== undefined) {
    const wr = str(values, 'hash-without-resources');
    return wr === undefined ? { hash } : { hash, hashWithoutResources: wr };
  }
  if (statusFile !== undefined) {
    const { doc } = await readJsonInput(statusFile, io);
    return doc as ContainerStatusInput;
  }
  const records = readRuntimeRecords(await readInput(recordFile!, io));
  const rec = records.length === 1 ? records[0] : records.find((r) => r.containerName === container.name);
  if (!rec) throw new UsageError(`the record holds no container named ${JSON.stringify(container.name)}`);
  const out: { hash?: string; hashWithoutResources?: string } = {};
  if (rec.hash !== undefined) out.hash = rec.hash;
  if (rec.hashWithoutResources !== undefined) out.hashWithoutResources = rec.hashWithoutResources;
  return out;
}

export const CONTROLLER_COMMANDS: Record<string, Command> = {
  changed: {
    summary: 'would this kubelet restart the running container? (exit 1 if so) — compares the stored hash with the spec',
    usage: '-k VERSION (--hash HEX [--hash-without-resources HEX] | --status FILE | --record FILE) [--container NAME] [--feature-gates G=true] [--static-pod] [--json] SPEC|-',
    options: {
      'kubelet-version': { type: 'string', short: 'k' },
      hash: { type: 'string' },
      'hash-without-resources': { type: 'string' },
      status: { type: 'string' },
      record: { type: 'string' },
      'feature-gates': { type: 'string' },
      'static-pod': { type: 'boolean' },
      ...CONTAINER_OPT,
      ...JSON_OPT,
    },
    run: async (values, positionals, io) => {
      const version = str(values, 'kubelet-version', true);
      const c = single(await containersOf(onePositional(positionals), values, io));
      const status = await statusFrom(values, io, c);
      const gates = featureGates(values);
      const r = containerChanged(c.container, status, {
        kubeletVersion: version,
        containerList: c.list,
        staticPod: values['static-pod'] === true,
        ...(gates ? { featureGates: gates } : {}),
      });
      if (values['json']) json(io, { container: c.name, list: c.list, ...r });
      else io.stdout.write(`${r.changed ? 'restart' : 'keep'}: ${c.name}: ${r.reason}\n`);
      return r.changed ? 1 : 0;
    },
  },
  translate: {
    summary: 'the hash the --to kubelet computes, after checking --observed against the --from hash',
    usage: '--from VERSION --to VERSION [--observed HEX] [--container NAME] [--json] SPEC|-',
    options: { ...FROM_TO, observed: { type: 'string' }, ...CONTAINER_OPT, ...JSON_OPT },
    run: async (values, positionals, io) => {
      const from = str(values, 'from', true);
      const to = str(values, 'to', true);
      const observed = str(values, 'observed');
      const found = await containersOf(onePositional(positionals), values, io);
      if (observed !== undefined && found.length !== 1) throw new UsageError('--observed needs a single container; pick one with --container');
      const rows = found.map((c) => ({
        container: c.name,
        list: c.list,
        hash: translateHash(c.container, observed === undefined ? { from, to } : { from, to, observed }),
      }));
      if (values['json']) json(io, rows);
      else for (const r of rows) io.stdout.write(found.length === 1 ? `${r.hash}\n` : `${r.container}\t${r.hash}\n`);
      return 0;
    },
  },
  identify: {
    summary: 'which kubelet releases (and gate settings) would have stored --hash for the container (exit 1 if none)',
    usage: '--hash HEX [--container NAME] [--json] SPEC|-',
    options: { hash: { type: 'string' }, ...CONTAINER_OPT, ...JSON_OPT },
    run: async (values, positionals, io) => {
      const hash = str(values, 'hash', true);
      const c = single(await containersOf(onePositional(positionals), values, io));
      const matches = identifyReleases(c.container, hash);
      if (values['json']) json(io, matches);
      else if (matches.length === 0) io.stdout.write(`no supported release computes ${hash} for ${c.name}\n`);
      else {
        for (const m of matches) {
          const notes = [m.key === 'hashWithoutResources' ? 'hashWithoutResources (InPlacePodVerticalScaling on)' : '', m.jsonEscapes ? `built with ${m.jsonEscapes} encoding/json` : ''].filter(Boolean);
          io.stdout.write(`${m.release}${notes.length ? `  ${notes.join(', ')}` : ''}\n`);
        }
      }
      return matches.length === 0 ? 1 : 0;
    },
  },
  explain: {
    summary: 'why two releases hash a container differently, at field level',
    usage: '--from VERSION --to VERSION [--container NAME] [--json] SPEC|-',
    options: { ...FROM_TO, ...CONTAINER_OPT, ...JSON_OPT },
    run: async (values, positionals, io) => {
      const from = str(values, 'from', true);
      const to = str(values, 'to', true);
      const found = await containersOf(onePositional(positionals), values, io);
      const rows = found.map((c) => ({ container: c.name, list: c.list, ...explainHashChange(c.container, { from, to }) }));
      if (values['json']) json(io, rows);
      else for (const r of rows) io.stdout.write(`${r.container}: ${r.summary}\n`);
      return 0;
    },
  },
  plan: {
    summary: "plan a kubelet upgrade: join the API pods with the node's runtime records, verify and translate each hash",
    usage: '--from VERSION --to VERSION --pods FILE [--feature-gates G=true] [--json] RECORD...',
    options: { ...FROM_TO, pods: { type: 'string' }, 'feature-gates': { type: 'string' }, ...JSON_OPT },
    run: async (values, positionals, io) => {
      const from = str(values, 'from', true);
      const to = str(values, 'to', true);
      const podsFile = str(values, 'pods', true);
      if (positionals.length === 0) throw new UsageError('give at least one runtime record file');
      const { doc } = await readJsonInput(podsFile, io);
      const pods = Array.isArray(doc) ? doc : doc !== null && typeof doc === 'object' && 'items' in doc ? (doc as { items: unknown[] }).items : [doc];
      const records: (string | ContainerRecordInfo)[] = [];
      for (const file of positionals) records.push(await readInput(file, io));
      const gates = featureGates(values);
      const plan = planUpgrade({ pods, records, from, to, ...(gates ? { featureGates: gates } : {}) });
      if (values['json']) {
        json(io, plan);
        return 0;
      }
      for (const e of plan.entries) {
        const where = `${e.podNamespace ?? '?'}/${e.podName ?? e.podUid}`;
        const hashes = e.storedHash !== undefined || e.toHash !== undefined ? ` ${e.storedHash ?? '-'} -> ${e.toHash ?? '-'}` : '';
        const file = e.record !== undefined ? ` [${positionals[e.record]}]` : '';
        io.stdout.write(`${e.action.padEnd(12)} ${where} ${e.containerName}${hashes}${file}: ${e.reason}\n`);
      }
      const c = plan.counts;
      io.stdout.write(`# ${plan.from} -> ${plan.to}: keep ${c.keep}, rewrite ${c.rewrite}, will-restart ${c['will-restart']}, unknown ${c.unknown}\n`);
      return 0;
    },
  },
};
