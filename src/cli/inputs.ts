/**
 * From operands to containers: every file (or stdin) is read as a manifest stream, Lists are
 * expanded, and each container keeps a reference (file, document, object, path, line, column)
 * that the outputs and error messages share.
 */
import {
  applyApiserverDefaultsReport,
  containerDefaultsOf,
  missingApiserverDefaults,
  wouldGetTokenMount,
} from '../defaults/index.js';
import { formatJsonPath, isKubeletHashError, type JsonPathSegment } from '../errors.js';
import { locateContainers, type ContainerList } from '../pod/locate.js';
import { manifestObjects, readDocuments, type ManifestObject } from '../manifests/index.js';
import { releaseInfo, type ReleaseInfo } from '../releases/index.js';
import { UsageError, flag, str, type CommandContext, type OptionDef } from './command.js';
import { readInput } from './io.js';
import { LocatedError } from './located-error.js';

/** Where a container came from; the first fields of every row about a container. */
interface ContainerRef {
  file: string;
  document: number;
  kind: string | null;
  namespace: string | null;
  pod: string | null;
  container: string;
  list: ContainerList;
  path: string;
  line: number | null;
  column: number | null;
}

/** A container found in the inputs. */
export interface InputContainer {
  ref: ContainerRef;
  name: string;
  list: ContainerList;
  container: Record<string, unknown>;
  /** The object (Pod, workload…) holding it, with its document. */
  object: ManifestObject;
  /** Its path inside the object. */
  path: JsonPathSegment[];
  /** metadata.uid of the object, when it has one (a pod as the apiserver serves it). */
  uid: string | null;
}

const SYNTAX_POSITION = /at line (\d+), column (\d+)/;

/** Runs `fn` for a value at `path` of `object`; a library error it throws gets the file and position. */
export function within<T>(
  file: string,
  object: ManifestObject | null,
  path: readonly JsonPathSegment[],
  fn: () => T,
): T {
  try {
    return fn();
  } catch (e) {
    if (!isKubeletHashError(e)) throw e;
    const full = object ? e.withPathPrefix([...object.path, ...path]) : e;
    const m = SYNTAX_POSITION.exec(e.detail ?? '');
    const position = m
      ? { line: Number(m[1]), column: Number(m[2]) }
      : (object?.document.positionOf(full.path) ?? null);
    throw new LocatedError(full, file, position);
  }
}

/** The objects of every operand, in order. */
export async function readObjects(
  ctx: CommandContext,
  files: string[],
): Promise<{ file: string; object: ManifestObject }[]> {
  if (files.length === 0) throw new UsageError('give at least one input file (or - for standard input)');
  const out: { file: string; object: ManifestObject }[] = [];
  for (const file of files) {
    const text = await readInput(file, ctx.io);
    const objects = within(file, null, [], () => manifestObjects(readDocuments(text)));
    for (const object of objects) out.push({ file, object });
  }
  return out;
}

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** Every container of the operands, narrowed to `--container` when given. */
export async function readContainers(
  ctx: CommandContext,
  files: string[],
  options: { container?: string; releases?: readonly ReleaseInfo[] } = {},
): Promise<InputContainer[]> {
  await loadLimitRanges(ctx);
  const out: InputContainer[] = [];
  for (const { file, object } of await readObjects(ctx, files)) {
    const found = within(file, object, [], () => locateContainers(object.value));
    const meta = object.value['metadata'];
    const m =
      meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
    const kind = text(object.value['kind']);
    for (const c of found) {
      if (options.container !== undefined && c.name !== options.container) continue;
      const position = object.document.positionOf([...object.path, ...c.path]);
      out.push({
        ref: {
          file,
          document: object.document.index,
          kind,
          namespace: text(m['namespace']),
          pod: text(m['name']),
          container: c.name,
          list: c.list,
          path: formatJsonPath([...object.path, ...c.path]),
          line: position?.line ?? null,
          column: position?.column ?? null,
        },
        name: c.name,
        list: c.list,
        container: c.container,
        object,
        path: c.path,
        uid: text(m['uid']),
      });
    }
  }
  if (out.length === 0) {
    throw new UsageError(
      options.container === undefined
        ? 'the input holds no containers'
        : `no container named ${JSON.stringify(options.container)} in the input`,
    );
  }
  if (options.releases?.some((r) => r.algorithm !== 'name-image')) warnUndefaulted(ctx, out);
  return out;
}

/** `--apply-defaults` and `--token-volume`, for the commands that hash specs. */
export const DEFAULTS_OPTIONS: Record<string, OptionDef> = {
  'apply-defaults': {
    type: 'boolean',
    description:
      "hash what the apiserver of each release stores for a manifest or template: that release's container defaults applied first",
  },
  'token-volume': {
    type: 'string',
    value: 'NAME',
    description:
      'with --apply-defaults (implied): add the service-account token mount of volume NAME (kube-api-access-… from 1.21), as the admission plugin does; `none` says the pod mounts no token (otherwise --apply-defaults warns for releases whose hash covers the mount, before 1.31)',
  },
  'limit-ranges': {
    type: 'string',
    value: 'FILE',
    description:
      "with --apply-defaults (implied): the namespace's LimitRanges (kubectl get limitranges -o yaml; an empty List says there are none), applied as the LimitRanger admission plugin does; without it --apply-defaults warns when a container lacking cpu or memory resources could have been defaulted by one",
  },
};

const limitRangesOf = new WeakMap<CommandContext, unknown[]>();

/** Reads and checks --limit-ranges once per run (a List's items one by one; errors carry the file and position). */
async function loadLimitRanges(ctx: CommandContext): Promise<void> {
  const file = str(ctx.values, 'limit-ranges');
  if (file === undefined || limitRangesOf.has(ctx)) return;
  const text = await readInput(file, ctx.io);
  const documents = within(file, null, [], () => readDocuments(text));
  if (documents.length === 0) {
    throw new UsageError(
      `--limit-ranges ${file} holds no document (an empty List says the namespace has no LimitRange)`,
    );
  }
  const objects = manifestObjects(documents);
  for (const object of objects) within(file, object, [], () => containerDefaultsOf(object.value, []));
  limitRangesOf.set(
    ctx,
    objects.map((o) => o.value),
  );
}

/**
 * The container a kubelet of `release` hashes: as given, or (with --apply-defaults / --token-volume)
 * as that release's apiserver stores it. Errors carry the container's file and position.
 */
export function specFor(ctx: CommandContext, c: InputContainer, release: string): Record<string, unknown> {
  const given = str(ctx.values, 'token-volume');
  const limitRanges = limitRangesOf.get(ctx);
  if (!flag(ctx.values, 'apply-defaults') && given === undefined && limitRanges === undefined) return c.container;
  const tokenVolume = given === 'none' ? undefined : given;
  const podSpec = podSpecOf(c);
  if (given === undefined) warnTokenless(ctx, c, release, podSpec);
  const report = within(c.ref.file, c.object, c.path, () =>
    applyApiserverDefaultsReport(c.container, {
      kubeletVersion: release,
      list: c.list,
      ...(podSpec && c.path.length > 0 ? { podSpec } : {}),
      ...(tokenVolume !== undefined ? { tokenVolume } : {}),
      ...(limitRanges !== undefined ? { limitRanges } : {}),
    }),
  );
  if (report.assumptions.length > 0 && !warnedLimitRangeless.has(ctx)) {
    warnedLimitRangeless.add(ctx);
    // Named by what was given: --token-volume alone implies the defaulting.
    const asked = flag(ctx.values, 'apply-defaults')
      ? '--apply-defaults'
      : '--token-volume (which implies --apply-defaults)';
    ctx.warn(
      `${asked} without --limit-ranges: ${c.ref.file}: ${JSON.stringify(c.name)} has no cpu or memory limits or requests, so a LimitRange of its namespace may have set them and kubelet ${release} hashes them; the hash assumes ${report.assumptions[0]!.replace(/ \(.*$/, '')}: give --limit-ranges FILE (kubectl get limitranges -n NAMESPACE -o yaml)`,
    );
  }
  return report.container;
}

const warnedLimitRangeless = new WeakSet<CommandContext>();

const warnedTokenless = new WeakSet<CommandContext>();

/**
 * `--apply-defaults` without `--token-volume`: the admission plugin mounts the service-account
 * token into every real pod, and releases before 1.31 hash that mount, so the hash would match no
 * real pod. One warning per run; `--token-volume none` says there is no mount.
 */
function warnTokenless(
  ctx: CommandContext,
  c: InputContainer,
  release: string,
  podSpec: Record<string, unknown> | null,
): void {
  if (warnedTokenless.has(ctx) || c.ref.pod === null) return;
  const info = releaseInfo(release);
  if (info.minor >= 31 || info.algorithm === 'name-image') return;
  const mounts = within(c.ref.file, c.object, c.path, () =>
    wouldGetTokenMount(c.container, { list: c.list, ...(podSpec ? { podSpec } : {}) }),
  );
  if (!mounts) return;
  warnedTokenless.add(ctx);
  ctx.warn(
    `--apply-defaults added no service-account token mount to ${c.ref.file}: ${c.ref.kind ?? 'object'}/${c.ref.pod} ${JSON.stringify(c.name)}, but the apiserver mounts one into every pod whose service account does not set automountServiceAccountToken: false, and kubelet ${info.release} hashes it: give --token-volume NAME (the pod's kube-api-access-… volume from 1.21, default-token-… before), or --token-volume none when the pod mounts no token`,
  );
}

/**
 * The apiserver defaults every container and mounts the service-account token before a kubelet
 * sees it; a manifest hashed as written gives another hash for every release before 1.31. One
 * warning per file and problem, naming the containers.
 */
function warnUndefaulted(ctx: CommandContext, containers: InputContainer[]): void {
  if (flag(ctx.values, 'apply-defaults') || str(ctx.values, 'token-volume') !== undefined) return;
  const undefaulted = new Map<string, string[]>();
  const tokenless = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, c: InputContainer): void => {
    const owner = c.ref.pod === null ? '' : `${c.ref.kind ?? 'object'}/${c.ref.pod} `;
    let listed = map.get(c.ref.file);
    if (listed === undefined) map.set(c.ref.file, (listed = []));
    // Pushed, not copied: one copy per container made the warning quadratic in the input.
    listed.push(`${owner}${JSON.stringify(c.name)}`);
  };
  for (const c of containers) {
    const podSpec = podSpecOf(c);
    const inspect = <T>(fn: () => T): T => within(c.ref.file, c.object, c.path, fn);
    if (inspect(() => missingApiserverDefaults(c.container)).length > 0) add(undefaulted, c);
    // A pod read back from the apiserver (it has a uid) already shows whether the token was mounted.
    else if (
      c.uid === null &&
      c.ref.pod !== null &&
      inspect(() => wouldGetTokenMount(c.container, { list: c.list, ...(podSpec ? { podSpec } : {}) }))
    )
      add(tokenless, c);
  }
  const names = (list: string[]): string =>
    list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
  for (const [file, list] of undefaulted) {
    ctx.warn(
      `${file}: ${list.length === 1 ? 'container' : `${list.length} containers`} ${names(list)} without apiserver defaults (no terminationMessagePath, terminationMessagePolicy or imagePullPolicy): hashes before 1.31 are of the text as written, not of what a kubelet sees; use --apply-defaults (and --token-volume NAME), or hash the pod as served (kubectl get pod -o yaml)`,
    );
  }
  for (const [file, list] of tokenless) {
    ctx.warn(
      `${file}: ${names(list)} ${list.length === 1 ? 'has' : 'have'} no service-account token mount: unless the service account sets automountServiceAccountToken: false, the apiserver adds one and releases before 1.31 hash another value (--token-volume NAME adds it)`,
    );
  }
}

function podSpecOf(c: InputContainer): Record<string, unknown> | null {
  // The container's path ends in [list, index]; the pod spec holds the list.
  let cur: unknown = c.object.value;
  for (const seg of c.path.slice(0, -2))
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[seg] : undefined;
  return cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>) : null;
}

/** The one container a command needs; several without --container is a usage error. */
export function single(found: InputContainer[]): InputContainer {
  const [one] = found;
  if (one === undefined || found.length !== 1) {
    const names = found.map((c) => c.name).join(', ');
    throw new UsageError(`the input has ${found.length} containers (${names}); pick one with --container`);
  }
  return one;
}
