/**
 * CLI commands over the controllers' API: `changed`, `translate`, `identify`, `explain`.
 * A verdict is given only on inputs the tool can vouch for: a malformed hash, an unknown gate, a
 * status or record without a hash, or a record of another pod is refused (exit 2), never read as
 * "restart".
 */
import { explainHashChange } from '../explain/index.js';
import { HashFormatError, isKubeletHashError } from '../errors.js';
import { parseHash } from '../hash/format.js';
import {
  containerChanged,
  identifyReleases,
  readStoredHashes,
  translateHash,
  type ContainerStatusInput,
} from '../kubelet/index.js';
import { releaseInfo } from '../releases/index.js';
import { readRuntimeRecords, selectRecord, type SelectRecordInput } from '../runtime-records/index.js';
import { UsageError, flag, str, type CommandContext, type CommandDef, type OptionDef } from './command.js';
import { CONTAINER, FILES_OPERAND, KUBELET_VERSION } from './shared-options.js';
import { DEFAULTS_OPTIONS, readContainers, single, specFor, within, type InputContainer } from './inputs.js';
import { LocatedError } from './located-error.js';
import { readInput } from './io.js';
import { checkGatesFor, featureGates, GATES } from './feature-gates.js';
import { OUTPUTS } from './output-schema.js';
import { podLabel, table } from './table.js';
import { JsonNumber } from '../json/number.js';
import { isPlainObject } from '../decode/input.js';
import { mirroredPodUid } from '../pod/mirror-pod.js';
import { readDocuments, type ManifestDocument } from '../manifests/index.js';

const FROM: OptionDef = {
  type: 'string',
  required: true,
  value: 'VERSION',
  description: 'the kubelet version that wrote the stored hash (required)',
};
const TO: OptionDef = {
  type: 'string',
  required: true,
  value: 'VERSION',
  description: 'the kubelet version to compute for (required)',
};
/** A hash given on the command line must be one the kubelet could have written. */
function hashArg(ctx: CommandContext, name: string, required: true): string;
function hashArg(ctx: CommandContext, name: string, required?: false): string | undefined;
function hashArg(ctx: CommandContext, name: string, required = false): string | undefined {
  const v = required ? str(ctx.values, name, true) : str(ctx.values, name);
  if (v !== undefined) checkHash(v, `--${name}`);
  return v;
}

function checkHash(text: unknown, where: string): void {
  try {
    parseHash(text);
  } catch (e) {
    if (!(e instanceof HashFormatError)) throw e;
    throw new HashFormatError(
      'INVALID_HASH',
      e.path,
      `${where}: a hash the kubelet writes (hex digits, at most 64 bits; either case is read, as the kubelet's strconv.ParseUint does)`,
      e.detail,
    );
  }
}

/** The stored hashes for `changed`: --hash, a status file, or the runtime record of this container. */
async function storedFor(
  ctx: CommandContext,
  c: InputContainer,
): Promise<{ status: ContainerStatusInput; source: string }> {
  const statusFile = str(ctx.values, 'status');
  const recordFile = str(ctx.values, 'record');
  const hash = hashArg(ctx, 'hash');
  const given = [statusFile, recordFile, hash].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UsageError('give exactly one of --hash HEX, --status FILE or --record FILE');
  if (hash !== undefined) {
    const wr = hashArg(ctx, 'hash-without-resources');
    return { status: wr === undefined ? { hash } : { hash, hashWithoutResources: wr }, source: '--hash' };
  }
  if (str(ctx.values, 'hash-without-resources') !== undefined)
    throw new UsageError('--hash-without-resources goes with --hash');
  if (statusFile !== undefined) {
    const text = await readInput(statusFile, ctx.io);
    const documents = within(statusFile, null, [], () => readDocuments(text));
    const only = documents.length === 1 ? documents[0] : undefined;
    // The file's one document is the status; nothing or several are refused as the library refuses
    // nothing or a list for a status.
    const status = only ? plain(only.value) : documents.length === 0 ? undefined : documents.map((d) => plain(d.value));
    readStatus(statusFile, only ?? null, status);
    return { status: status as ContainerStatusInput, source: statusFile };
  }
  if (recordFile === undefined) throw new UsageError('give exactly one of --hash HEX, --status FILE or --record FILE');
  const text = await readInput(recordFile, ctx.io);
  const record = within(recordFile, null, [], () => selectRecord(readRuntimeRecords(text), recordTarget(c)));
  // The record is the status, as the library takes it: its hash, and its identity checked again.
  readStatus(recordFile, null, record);
  return { status: record, source: recordFile };
}

/**
 * Reads the stored hashes as `containerChanged` will (same codes, paths rooted at `status`), so a
 * refusal names the file it came from and, for a status file, the line of the key.
 */
function readStatus(file: string, document: ManifestDocument | null, status: unknown): void {
  try {
    readStoredHashes(status, ['status']);
  } catch (e) {
    if (!isKubeletHashError(e)) throw e;
    throw new LocatedError(e, file, document?.positionOf(e.path.slice(1)) ?? null);
  }
}

/** A status as the library takes it: a YAML/JSON number is its text, which is what the kubelet reads from a label. */
function plain(value: unknown): unknown {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return value.map((v: unknown) => (v instanceof JsonNumber ? v.text : v));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v instanceof JsonNumber ? v.text : v]));
}

/**
 * Which record is this container's: a Pod is matched by its uid, name and namespace (a mirror
 * pod's records carry the static pod's uid, its config.mirror annotation); a bare container or a
 * template has no pod identity, so the records must hold one pod.
 */
function recordTarget(c: InputContainer): SelectRecordInput {
  const meta = c.object.value['metadata'];
  const isPod = c.ref.kind === 'Pod' || (c.ref.kind === null && meta !== undefined);
  if (!isPod) return { container: c.name };
  const uid = mirroredPodUid(meta) ?? c.uid;
  return {
    container: c.name,
    pod: {
      ...(uid !== null ? { uid } : {}),
      ...(c.ref.pod !== null ? { name: c.ref.pod } : {}),
      ...(c.ref.namespace !== null ? { namespace: c.ref.namespace } : {}),
    },
  };
}

const changed: CommandDef = {
  name: 'changed',
  summary: 'would this kubelet restart the running container? (exit 1 if so)',
  description:
    "Compares the hash stored for a running container (--hash, a --status file with the runtime's annotations, or a --record from docker inspect / crictl inspect) with what the kubelet of -k computes for the spec, with that release's restart rule.\n" +
    'A record is matched to the container by pod uid, namespace and name (a node-wide docker inspect holds many pods; a mirror pod by the uid in its kubernetes.io/config.mirror annotation); one of another pod, or several that fit, are refused. A status or record without a kubelet hash, a malformed hash, and an unknown feature gate are refused (exit 2).',
  options: {
    'kubelet-version': { ...KUBELET_VERSION, required: true, description: `${KUBELET_VERSION.description} (required)` },
    hash: { type: 'string', value: 'HEX', description: 'the stored io.kubernetes.container.hash' },
    'hash-without-resources': {
      type: 'string',
      value: 'HEX',
      description: 'the stored io.kubernetes.container.hashWithoutResources (with --hash)',
    },
    status: {
      type: 'string',
      value: 'FILE',
      description: 'JSON/YAML map of the stored annotations (or {hash, hashWithoutResources})',
    },
    record: {
      type: 'string',
      value: 'FILE',
      description: 'runtime record: docker inspect, config.v2.json or crictl inspect output',
    },
    'feature-gates': GATES,
    'static-pod': {
      type: 'boolean',
      description: 'the pod is a static pod (the kubelet restarts its containers on any hash change)',
    },
    container: { ...CONTAINER, description: 'the container (required when the input has several)' },
    ...DEFAULTS_OPTIONS,
  },
  operands: [
    {
      ...FILES_OPERAND,
      count: 'one',
      description: 'the pod (or container) spec as the apiserver serves it; - for standard input',
    },
  ],
  examples: [
    {
      comment: 'before upgrading the node to 1.31: would nginx be restarted?',
      command: 'kubectl get pod web -o yaml | kubelet-hash changed -k 1.31 -c nginx --record crictl-inspect.json -',
    },
    { comment: 'with a hash read from the runtime', command: 'kubelet-hash changed -k 1.29 --hash 311670a pod.yaml' },
  ],
  finding: 'the kubelet would restart the container',
  output: OUTPUTS.changed,
  async run(ctx) {
    const version = str(ctx.values, 'kubelet-version', true);
    const gates = featureGates(ctx);
    const c = single(
      await readContainers(ctx, ctx.operands, { ...containerName(ctx), releases: [releaseInfo(version)] }),
    );
    // Before the status is read.
    checkGatesFor(version, gates);
    const { status, source } = await storedFor(ctx, c);
    const spec = specFor(ctx, c, version);
    const r = within(c.ref.file, c.object, c.path, () =>
      containerChanged(spec, status, {
        kubeletVersion: version,
        containerList: c.list,
        staticPod: flag(ctx.values, 'static-pod'),
        ...(gates ? { featureGates: gates } : {}),
      }),
    );
    const text = `${r.changed ? 'restart' : 'keep'}: ${podLabel(c.ref)} ${c.name}: ${r.reason}\n`;
    return {
      exitCode: r.changed ? 1 : 0,
      rows: [{ ...c.ref, ...r, source }],
      summary: { release: r.release, changed: r.changed ? 1 : 0 },
      text,
    };
  },
};

function containerName(ctx: CommandContext): { container?: string } {
  const name = str(ctx.values, 'container');
  return name === undefined ? {} : { container: name };
}

const translate: CommandDef = {
  name: 'translate',
  summary: 'the hash the --to kubelet computes, after checking --observed against the --from hash',
  description:
    'Computes what the kubelet of --to stores for each container. With --observed (the hash stored now), first checks that the --from kubelet computes exactly that for the spec, and refuses (exit 2) when it does not: the spec is then not what the kubelet hashed.',
  options: {
    from: FROM,
    to: TO,
    observed: {
      type: 'string',
      value: 'HEX',
      description: 'the hash stored now, checked against --from (needs a single container)',
    },
    container: CONTAINER,
  },
  operands: [FILES_OPERAND],
  examples: [
    {
      comment: 'the 1.31 hash of a container whose 1.30 hash is 311670a',
      command: 'kubelet-hash translate --from 1.30 --to 1.31 --observed 311670a container.json',
    },
  ],
  output: OUTPUTS.translate,
  async run(ctx) {
    const from = str(ctx.values, 'from', true);
    const to = str(ctx.values, 'to', true);
    const observed = hashArg(ctx, 'observed');
    const [fromInfo, toInfo] = [releaseInfo(from, ['--from']), releaseInfo(to, ['--to'])];
    const found = await readContainers(ctx, ctx.operands, containerName(ctx));
    if (observed !== undefined) single(found);
    const rows = found.map((c) => ({
      ...c.ref,
      from: fromInfo.release,
      to: toInfo.release,
      verified: observed !== undefined,
      hash: within(c.ref.file, c.object, c.path, () =>
        translateHash(c.container, observed === undefined ? { from, to } : { from, to, observed }),
      ),
    }));
    const text =
      rows.length === 1 && rows[0]
        ? `${rows[0].hash}\n`
        : table(
            ['pod', 'container', 'hash'],
            rows.map((r) => [podLabel(r), r.container, r.hash]),
          );
    return { exitCode: 0, rows, summary: { from: fromInfo.release, to: toInfo.release }, text };
  },
};

const identify: CommandDef = {
  name: 'identify',
  summary: 'which kubelet releases (and settings) would have stored --hash for the container (exit 1 if none)',
  description:
    'Lists every release whose kubelet writes the given hash for the container, oldest first, with the setting that makes it (hashWithoutResources with InPlacePodVerticalScaling, a Go 1.22 patch build).',
  options: {
    hash: { type: 'string', required: true, value: 'HEX', description: 'the stored hash (required)' },
    container: { ...CONTAINER, description: 'the container (required when the input has several)' },
  },
  operands: [{ ...FILES_OPERAND, count: 'one' }],
  examples: [
    { comment: 'which kubelet wrote 9624f5a5?', command: 'kubelet-hash identify --hash 9624f5a5 container.json' },
  ],
  finding: 'no supported release computes the hash for the container',
  output: OUTPUTS.identify,
  async run(ctx) {
    const hash = hashArg(ctx, 'hash', true);
    const c = single(await readContainers(ctx, ctx.operands, containerName(ctx)));
    const matches = within(c.ref.file, c.object, c.path, () => identifyReleases(c.container, hash));
    const lines = matches.map((m) => {
      const notes = [
        m.key === 'hashWithoutResources' ? 'hashWithoutResources (InPlacePodVerticalScaling on)' : '',
        m.jsonEscapes ? `built with ${m.jsonEscapes} encoding/json` : '',
      ].filter(Boolean);
      return `${m.release}${notes.length ? `  ${notes.join(', ')}` : ''}\n`;
    });
    const text = matches.length === 0 ? `no supported release computes ${hash} for ${c.name}\n` : lines.join('');
    return {
      exitCode: matches.length === 0 ? 1 : 0,
      rows: [{ ...c.ref, hash, matches }],
      summary: { identified: matches.length > 0 ? 1 : 0 },
      text,
    };
  },
};

const explain: CommandDef = {
  name: 'explain',
  summary: 'why two releases hash a container differently, at field level',
  description:
    'Explains, for each container, why the --from and --to kubelets compute different hashes: a change of algorithm, fields added to or dropped from the Go types, defaults that print differently.',
  options: { from: FROM, to: TO, container: CONTAINER },
  operands: [FILES_OPERAND],
  examples: [
    {
      comment: 'what changed between 1.13 and 1.14 for these containers',
      command: 'kubelet-hash explain --from 1.13 --to 1.14 pod.yaml',
    },
  ],
  output: OUTPUTS.explain,
  async run(ctx) {
    const from = str(ctx.values, 'from', true);
    const to = str(ctx.values, 'to', true);
    const found = await readContainers(ctx, ctx.operands, containerName(ctx));
    const rows = found.map((c) => ({
      ...c.ref,
      ...within(c.ref.file, c.object, c.path, () => explainHashChange(c.container, { from, to })),
    }));
    const text = rows.map((r) => `${podLabel(r)} ${r.container}: ${r.summary}\n`).join('');
    return { exitCode: 0, rows, summary: { from: releaseInfo(from).release, to: releaseInfo(to).release }, text };
  },
};

export const CONTROLLER_COMMANDS: CommandDef[] = [changed, translate, identify, explain];
