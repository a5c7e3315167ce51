/** The hashing commands: example, hash, preimage, releases. */
import { hashContainer, hashContainerWithoutResources, preimage } from '../hash-api/index.js';
import { releaseInfo, supportedReleases, type ReleaseInfo, kubeletToolchain } from '../releases/index.js';
import { flag, list, str, type CommandContext, type CommandDef, type CommandResult } from './command.js';
import { examplePodText } from './example-pod.js';
import { DEFAULTS_OPTIONS, readContainers, single, specFor, within, type InputContainer } from './inputs.js';
import { CONTAINER, FILES_OPERAND, KUBELET_VERSION } from './shared-options.js';
import { provideInput } from './io.js';
import { OUTPUTS } from './output-schema.js';
import { mergeReleaseRuns, podLabel, table } from './table.js';

/** The example's name in rows and messages: its place in the package, not this machine's path. */
const EXAMPLE_POD = 'examples/pod.json';

/** A release asked for, with the version text as given (a patch picks its Go toolchain). */
interface AskedRelease {
  info: ReleaseInfo;
  version: string;
  /** Set when the patch table chose the encoding/json escapes (`1.29.7 was built with go1.22.5 …`). */
  toolchain: string | null;
  /** The Go of a patch-table build (`go1.22.5`), for the text table. */
  go: string | null;
}

/** The releases of `-k` (repeatable, `Kubernetes v1.29.7` as `kubelet --version` prints it), or every supported release. */
function releasesFrom(ctx: CommandContext): AskedRelease[] {
  const asked = list(ctx.values, 'kubelet-version');
  const out = new Map<string, AskedRelease>();
  for (const version of asked.length > 0 ? asked : supportedReleases()) {
    const info = releaseInfo(version);
    const t = kubeletToolchain(version);
    const toolchain = t.basis === 'patch-table' ? t.source : null;
    // One row per release and toolchain: 1.29.6 and 1.29.7 hash differently, 1.29.1 and 1.29.2 do not.
    const key = `${info.release} ${toolchain ?? ''}`;
    if (!out.has(key)) out.set(key, { info, version, toolchain, go: t.go });
  }
  return [...out.values()];
}

/** A `hash` row: where the container came from, then what one release stores for it. */
type HashRow = InputContainer['ref'] & {
  release: string;
  hash: string;
  hashWithoutResources: string | null;
  toolchain?: string;
};

/**
 * One row per container and release, in input order; with `ranges`, the text table merges the
 * releases that store the same hashes into one row each (`1.16–1.26`). The JSON rows stay one per release.
 */
function hashRows(
  ctx: CommandContext,
  containers: InputContainer[],
  asked: AskedRelease[],
  ranges = false,
): CommandResult {
  const rows: HashRow[] = [];
  const total = containers.length * asked.length;
  const goOf = new Map<HashRow, string>();
  for (const c of containers) {
    for (const { info: r, version, toolchain, go } of asked) {
      const run = <T>(fn: () => T): T => within(c.ref.file, c.object, c.path, fn);
      const spec = specFor(ctx, c, r.release);
      const hash = run(() => hashContainer(spec, { kubeletVersion: version }));
      const withoutResources = r.hashWithoutResources
        ? run(() => hashContainerWithoutResources(spec, { kubeletVersion: version }))
        : null;
      const row: HashRow = {
        ...c.ref,
        release: r.release,
        hash,
        hashWithoutResources: withoutResources,
      };
      if (toolchain !== null) row.toolchain = toolchain;
      if (go !== null) goOf.set(row, go);
      rows.push(row);
      ctx.progress(rows.length, total, 'hashing');
    }
  }
  const files = new Set(containers.map((c) => c.ref.file)).size;
  const showWr = asked.some((r) => r.info.hashWithoutResources);
  const headers = [
    ...(files > 1 ? ['file'] : []),
    'pod',
    'container',
    'release',
    'hash',
    ...(showWr ? ['without-resources'] : []),
  ];
  const cells = rows.map((row) => {
    const ref = row;
    const name =
      ref.list === 'containers'
        ? ref.container
        : `${ref.container} (${ref.list === 'initContainers' ? 'init' : 'ephemeral'})`;
    return [
      ...(files > 1 ? [ref.file] : []),
      podLabel(ref),
      name,
      goOf.has(row) ? `${row.release} (${goOf.get(row)!} build)` : row.release,
      row.hash,
      ...(showWr ? [row.hashWithoutResources] : []),
    ];
  });
  const text = table(headers, ranges ? mergeReleaseRuns(cells, headers.indexOf('release')) : cells);
  return { exitCode: 0, rows, summary: { releases: asked.map((r) => r.info.release) }, text };
}

const hash: CommandDef = {
  name: 'hash',
  summary: 'the hash each kubelet release stores for each container (io.kubernetes.container.hash)',
  description:
    'Prints the hash a kubelet computes for every container of the input, for the releases given with -k (repeatable) or for every supported release. ' +
    'From 1.27 to 1.30 the kubelet also stores hashWithoutResources (used with InPlacePodVerticalScaling); it is shown where the release has it.\n' +
    "The kubelet hashes the container as the apiserver serves it. A manifest or template is hashed as written unless --apply-defaults applies each release's apiserver defaults first (and --token-volume adds the service-account token mount); without them, a warning says when a container lacks what the apiserver adds.",
  options: { 'kubelet-version': { ...KUBELET_VERSION, multiple: true }, container: CONTAINER, ...DEFAULTS_OPTIONS },
  operands: [FILES_OPERAND],
  examples: [
    {
      comment: 'every release, every container of a pod read back from the cluster',
      command: 'kubectl get pod web -o yaml | kubelet-hash hash -',
    },
    {
      comment: 'what a 1.24 node stores for a Deployment written by hand',
      command: 'kubelet-hash hash -k 1.24 --apply-defaults --token-volume kube-api-access-75rfs deployment.yaml',
    },
    {
      comment: 'one release, all pods of a namespace, as JSON',
      command: 'kubectl get pods -o json | kubelet-hash hash -k 1.29 --json -',
    },
  ],
  output: OUTPUTS.hash,
  async run(ctx) {
    const asked = releasesFrom(ctx);
    const releases = asked.map((r) => r.info);
    const containers = await readContainers(ctx, ctx.operands, { ...containerFilter(ctx), releases });
    return hashRows(ctx, containers, asked);
  },
};

function containerFilter(ctx: CommandContext): { container?: string } {
  const name = str(ctx.values, 'container');
  return name === undefined ? {} : { container: name };
}

const example: CommandDef = {
  name: 'example',
  summary: 'hash the bundled example pod (examples/pod.json) for every supported release',
  description:
    'Runs `hash` on examples/pod.json, a Pod as the apiserver serves it (defaults applied), for every supported release or those given with -k.',
  options: { 'kubelet-version': { ...KUBELET_VERSION, multiple: true } },
  operands: [],
  examples: [
    { comment: 'what 1.30 and 1.31 store for the example pod', command: 'kubelet-hash example -k 1.30 -k 1.31' },
  ],
  output: OUTPUTS.hash,
  async run(ctx) {
    const releases = releasesFrom(ctx);
    // Served from the package (or, in the single executable, from the text bundled into it).
    provideInput(ctx.io, EXAMPLE_POD, examplePodText());
    const result = hashRows(ctx, await readContainers(ctx, [EXAMPLE_POD]), releases, true);
    const head =
      '# examples/pod.json: the hash each kubelet release stores for each container (io.kubernetes.container.hash);\n' +
      '# releases that store the same hashes share a row (--json lists every release)\n';
    return { ...result, text: head + String(result.text) };
  },
};

const preimageCommand: CommandDef = {
  name: 'preimage',
  summary: 'the exact text a kubelet hashes (go-spew text or JSON); --hashed prints what FNV-1a consumes',
  description:
    "Prints the pre-image of one container for one release: the go-spew text of the struct (1.8–1.15) or the JSON the kubelet marshals (1.16+). With --hashed, the bytes FNV-1a 32 actually consumes (go-spew's ([]uint8)[…] form from 1.16).",
  options: {
    'kubelet-version': { ...KUBELET_VERSION, required: true, description: `${KUBELET_VERSION.description} (required)` },
    container: { ...CONTAINER, description: 'the container (required when the input has several)' },
    hashed: { type: 'boolean', description: 'print what FNV-1a consumes instead of the pre-image' },
    ...DEFAULTS_OPTIONS,
  },
  operands: [{ ...FILES_OPERAND, count: 'one' }],
  examples: [
    {
      comment: 'the JSON a 1.29 kubelet hashes for container web',
      command: 'kubelet-hash preimage -k 1.29 -c web pod.yaml',
    },
  ],
  output: OUTPUTS.preimage,
  async run(ctx) {
    const version = str(ctx.values, 'kubelet-version', true);
    const c = single(
      await readContainers(ctx, ctx.operands, { ...containerFilter(ctx), releases: [releaseInfo(version)] }),
    );
    const pre = within(c.ref.file, c.object, c.path, () =>
      preimage(specFor(ctx, c, version), { kubeletVersion: version }),
    );
    const hashed = flag(ctx.values, 'hashed');
    const bytes = hashed ? pre.hashedBytes : pre.bytes;
    const row = { ...c.ref, release: pre.release, hashed, preimage: Buffer.from(bytes).toString('utf8') };
    return { exitCode: 0, rows: [row], summary: null, text: Buffer.concat([Buffer.from(bytes), Buffer.from('\n')]) };
  },
};

const releases: CommandDef = {
  name: 'releases',
  summary: 'list the supported releases with their algorithm and storage keys',
  description:
    'Lists every supported kubelet minor release: what HashContainer hashes (legacy go-spew text, JSON, or name and image only), whether hashWithoutResources exists, and the encoding/json escaping of its Go build.',
  options: {},
  operands: [],
  examples: [{ comment: 'the release table', command: 'kubelet-hash releases' }],
  output: OUTPUTS.releases,
  run() {
    const infos = supportedReleases().map((r) => releaseInfo(r));
    const text = table(
      ['release', 'algorithm', 'without-resources', 'json-escapes', 'later-patches'],
      infos.map((i) => [
        i.release,
        i.algorithm,
        i.hashWithoutResources ? 'yes' : 'no',
        i.jsonEscapes,
        i.laterPatchToolchain
          ? `${i.laterPatchToolchain.escapes} from ${i.release}.${i.laterPatchToolchain.fromPatch} (${i.laterPatchToolchain.go})`
          : null,
      ]),
    );
    return Promise.resolve({ exitCode: 0, rows: infos.map((i) => ({ ...i })), summary: null, text });
  },
};

export const CORE_COMMANDS: CommandDef[] = [example, hash, preimageCommand, releases];
